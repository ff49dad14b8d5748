package search

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/augur-tuning/augur/features"
)

// Settings are the run-level settings that Run enforces for every
// strategy, so that no strategy re-implements them (gonum's
// optimize.Settings).
type Settings struct {
	// Budget is the most objective calls the search makes, failed ones
	// included: Result.Evals <= Budget always holds. 0 means no limit:
	// each strategy ends by itself (see its documentation).
	//
	// Random, Anneal, PSO and Grouped never call the objective twice for
	// one configuration, so for them the budget counts distinct
	// configurations; HillClimb does not remember scores, and a climb that
	// steps back onto a configuration pays for it again. Every strategy
	// may stop short of its budget: any of them on a space smaller than
	// the budget, HillClimb when no valid neighbour exists or its climbs
	// do not divide the budget, PSO when it keeps finding only
	// configurations already seen, Anneal and Grouped when their restarts
	// find no configuration they have not seen.
	Budget int
	// Pruned, when set, says which configurations are known to fail
	// before anything is compiled: over the device's limits (a work-group
	// larger than the device allows, more local memory than it has), which
	// a tuner that reads the limits never compiles (Kernel Tuner leaves
	// them out of its search space). Eval neither calls the objective for
	// them nor counts them against the budget; they score as failed
	// evaluations, at no cost (Result.Pruned counts them). So strategies
	// compared at one budget all spend it within the device's limits, as
	// the two-stage tuner does (eval's replays, bench/RESULTS.md, session
	// 18). nil: none is known.
	Pruned func(features.Config) bool
}

// Run searches s with st for the configuration obj scores highest: the
// driver of every strategy. It counts the objective calls, keeps the best
// result, and stops st at Settings.Budget, however st is written: once
// the budget is spent, Evaluator.Eval calls the objective no more. A
// strategy reads the budget only where its schedule depends on it
// (Anneal's cooling, Random's sample). Run returns ErrNothingFound when
// no evaluation succeeded.
func Run(st Strategy, s *features.Space, obj Objective, rng *rand.Rand, set Settings) (Result, error) {
	if set.Budget < 0 {
		return Result{}, fmt.Errorf("search: Settings.Budget must be >= 0, got %d", set.Budget)
	}
	if st == nil {
		return Result{}, fmt.Errorf("search: Run: the strategy is nil")
	}
	e := &Evaluator{obj: obj, budget: set.Budget, pruned: set.Pruned}
	if err := st.Search(s, e, rng); err != nil {
		return e.r, err
	}
	if e.r.Best == nil {
		return e.r, ErrNothingFound
	}
	return e.r, nil
}

// Evaluator is what a strategy evaluates configurations through: Run's
// objective, its count of calls and its budget, and the best result so
// far. Only Run makes one.
type Evaluator struct {
	obj    Objective
	budget int
	pruned func(features.Config) bool
	r      Result
}

// Eval scores c and keeps it when it is the best so far; false when the
// evaluation failed (an error or NaN), with -Inf as the score. Once the
// budget is spent it calls the objective no more and returns -Inf, false.
// A configuration of Settings.Pruned is a failed evaluation that is
// neither made nor counted in Evals.
func (e *Evaluator) Eval(c features.Config) (float64, bool) {
	if e.Spent() {
		return math.Inf(-1), false
	}
	if e.pruned != nil && e.pruned(c) {
		e.r.Pruned++
		return math.Inf(-1), false
	}
	e.r.Evals++
	v, err := e.obj(c)
	if err != nil || math.IsNaN(v) {
		return math.Inf(-1), false
	}
	if e.r.Best == nil || v > e.r.Score {
		e.r.Best = c.Clone()
		e.r.Score = v
	}
	return v, true
}

// Spent reports whether the budget is spent; never without one.
func (e *Evaluator) Spent() bool { return e.budget > 0 && e.r.Evals >= e.budget }

// Budget returns Settings.Budget, 0 when there is none.
func (e *Evaluator) Budget() int { return e.budget }

// Evals returns the objective calls made so far.
func (e *Evaluator) Evals() int { return e.r.Evals }

// Best returns the best configuration evaluated so far (nil while none
// succeeded) and its score. The configuration is the evaluator's: copy it
// to keep it.
func (e *Evaluator) Best() (features.Config, float64) { return e.r.Best, e.r.Score }
