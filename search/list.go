package search

import (
	"math/rand/v2"

	"github.com/augur-tuning/augur/features"
)

var _ Strategy = (*List)(nil)

// List evaluates a fixed list of configurations in order, as an empirical
// grid search over a hand-chosen set does (Bergstra et al. compare
// against Pinto and Cox's 73-point grid for fbcorr: datasets.Kernel.Grid).
// Configurations outside the space are skipped without being evaluated.
type List struct {
	Configs []features.Config
	// Budget caps the objective calls; 0 means the whole list.
	Budget int
}

// WithBudget implements Budgeted: Budget becomes n.
func (l List) WithBudget(n int) (Strategy, error) {
	if err := checkBudget(n); err != nil {
		return nil, err
	}
	l.Budget = n
	return l, nil
}

// Search implements Strategy; it draws nothing from rng.
func (l List) Search(s *features.Space, obj Objective, _ *rand.Rand) (Result, error) {
	var t tracker
	for _, c := range l.Configs {
		if l.Budget > 0 && t.r.Evals >= l.Budget {
			break
		}
		if s.Valid(c) {
			t.eval(obj, c)
		}
	}
	return t.result()
}
