package search

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/augur-tuning/augur/features"
)

var (
	_ Strategy = Fixed{}
	_ Strategy = Oracle{}
)

// Restrict returns the part of s in which the named parameter takes only
// value: the same parameters, in the same order, with that one's domain
// cut to the one value, and the same constraints. Configurations of the
// result are configurations of s, so an objective over s scores them.
// Building it costs what NewSpace costs.
func Restrict(s *features.Space, name string, value int) (*features.Space, error) {
	k := s.Param(name)
	if k < 0 {
		return nil, fmt.Errorf("search: restrict: %q is not a parameter: %w", name, features.ErrUnknownName)
	}
	if !slices.Contains(s.Params[k].Values, value) {
		return nil, fmt.Errorf("search: restrict: %s=%d is not among its values %v", name, value, s.Params[k].Values)
	}
	params := slices.Clone(s.Params)
	params[k].Values = []int{value}
	sub, err := features.NewSpace(params, s.Constraints)
	if err != nil {
		return nil, fmt.Errorf("search: restrict: %w", err)
	}
	return sub, nil
}

// Fixed runs Strategy with the parameter Param held at Value: the strategy
// searches the space restricted to it. Garvey and Abdelrahman (2018,
// section 6.3) fix the data loading technique a classifier predicts and
// search the rest.
type Fixed struct {
	Strategy Strategy
	Param    string
	Value    int
}

// Search implements Strategy.
func (f Fixed) Search(s *features.Space, e *Evaluator, rng *rand.Rand) error {
	if f.Strategy == nil {
		return fmt.Errorf("search: Fixed.Strategy is nil")
	}
	sub, err := Restrict(s, f.Param, f.Value)
	if err != nil {
		return err
	}
	return f.Strategy.Search(sub, e, rng)
}

// Oracle runs Strategy once for every value of Param, held fixed, and keeps
// the best configuration found: what a perfect classifier of Param would
// reach (Garvey and Abdelrahman's oracles, 2018, section 8.1). Result.Evals
// is the sum over the runs, and a budget is shared by them, in the order
// of Param's values. A value the constraints leave no configuration for is
// skipped.
type Oracle struct {
	Strategy Strategy
	Param    string
}

// Search implements Strategy.
func (o Oracle) Search(s *features.Space, e *Evaluator, rng *rand.Rand) error {
	if o.Strategy == nil {
		return fmt.Errorf("search: Oracle.Strategy is nil")
	}
	k := s.Param(o.Param)
	if k < 0 {
		return fmt.Errorf("search: Oracle.Param %q is not a parameter: %w", o.Param, features.ErrUnknownName)
	}
	for _, v := range s.Params[k].Values {
		if e.Spent() {
			break
		}
		sub, err := Restrict(s, o.Param, v)
		if err != nil {
			return err
		}
		if sub.Len() == 0 {
			continue // the constraints rule the value out
		}
		if err := o.Strategy.Search(sub, e, rng); err != nil {
			return err
		}
	}
	return nil
}
