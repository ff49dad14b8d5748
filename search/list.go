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
// A budget stops it before the end of the list.
type List struct {
	Configs []features.Config
}

// Search implements Strategy; it draws nothing from rng.
func (l List) Search(s *features.Space, e *Evaluator, _ *rand.Rand) error {
	for _, c := range l.Configs {
		if e.Spent() {
			break
		}
		if s.Valid(c) {
			e.Eval(c)
		}
	}
	return nil
}
