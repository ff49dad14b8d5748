package search

import "fmt"

// Budgeted is a Strategy whose number of objective evaluations can be set,
// so that a harness can run "strategy X with budget N" over any of them.
//
// A budget is the most objective calls a search makes, failed ones
// included: Result.Evals <= N always holds. Random, Anneal, PSO and Grouped
// never call the objective twice for one configuration, so for them N
// counts distinct configurations; HillClimb does not remember scores, and a
// climb that steps back onto a configuration pays for it again. Every
// strategy may stop short of its budget: any of them on a space smaller
// than N, HillClimb when no valid neighbour exists or its climbs do not
// divide N, PSO when it keeps finding only configurations already seen,
// Anneal and Grouped when their restarts find no configuration they have
// not seen.
type Budgeted interface {
	Strategy
	// WithBudget returns a copy of the strategy, its other options kept,
	// that makes at most n objective calls; an error when it cannot.
	WithBudget(n int) (Strategy, error)
}

var (
	_ Budgeted = Random{}
	_ Budgeted = HillClimb{}
	_ Budgeted = Anneal{}
	_ Budgeted = PSO{}
	_ Budgeted = Grouped{}
)

// WithBudget returns s limited to n objective calls (see Budgeted). It
// fails for a strategy without a budget, such as Exhaustive, and for n < 1.
func WithBudget(s Strategy, n int) (Strategy, error) {
	b, ok := s.(Budgeted)
	if !ok {
		return nil, fmt.Errorf("search: %T has no budget", s)
	}
	return b.WithBudget(n)
}

func checkBudget(n int) error {
	if n < 1 {
		return fmt.Errorf("search: budget must be >= 1, got %d", n)
	}
	return nil
}

// WithBudget implements Budgeted: Budget becomes n.
func (r Random) WithBudget(n int) (Strategy, error) {
	if err := checkBudget(n); err != nil {
		return nil, err
	}
	r.Budget = n
	return r, nil
}

// WithBudget implements Budgeted: Budget becomes n.
func (a Anneal) WithBudget(n int) (Strategy, error) {
	if err := checkBudget(n); err != nil {
		return nil, err
	}
	a.Budget = n
	return a, nil
}

// WithBudget implements Budgeted: Budget becomes n.
func (p PSO) WithBudget(n int) (Strategy, error) {
	if err := checkBudget(n); err != nil {
		return nil, err
	}
	p.Budget = n
	return p, nil
}

// WithBudget implements Budgeted. With Steps unset, one climb takes the
// whole budget: Steps = n-1 after the start. With Steps set, climbs keep
// their length and Restarts fill the budget: n/(Steps+1) climbs in all, the
// remainder of fewer than Steps+1 evaluations left unspent; a budget
// shorter than one climb shortens it to Steps = n-1. Since Steps = 0 means
// 75, the smallest budget a climb can take is 2.
func (h HillClimb) WithBudget(n int) (Strategy, error) {
	if n < 2 {
		return nil, fmt.Errorf("search: HillClimb needs a budget >= 2, got %d", n)
	}
	if h.Steps <= 0 || h.Steps+1 > n {
		h.Steps, h.Restarts = n-1, 0
		return h, nil
	}
	h.Restarts = n/(h.Steps+1) - 1
	return h, nil
}
