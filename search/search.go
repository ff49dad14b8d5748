package search

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/augur-tuning/augur/features"
)

// Objective scores a configuration; higher is better. An error marks the
// configuration as failed: strategies record it and move on.
type Objective func(features.Config) (float64, error)

// Result is the outcome of one search.
type Result struct {
	// Best is the highest-scoring configuration found; nil when every
	// evaluation failed.
	Best  features.Config
	Score float64
	// Evals counts objective calls, failed ones included.
	Evals int
}

// ErrNothingFound is returned when no evaluated configuration succeeded.
var ErrNothingFound = errors.New("search: no configuration evaluated successfully")

// Strategy searches a space for the configuration the objective scores
// highest.
type Strategy interface {
	Search(s *features.Space, obj Objective, rng *rand.Rand) (Result, error)
}

var (
	_ Strategy = (*HillClimb)(nil)
	_ Strategy = (*Random)(nil)
	_ Strategy = (*Exhaustive)(nil)
)

// tracker keeps the best result seen.
type tracker struct{ r Result }

func (t *tracker) eval(obj Objective, c features.Config) (float64, bool) {
	t.r.Evals++
	v, err := obj(c)
	if err != nil || math.IsNaN(v) {
		return math.Inf(-1), false
	}
	if t.r.Best == nil || v > t.r.Score {
		t.r.Best = c.Clone()
		t.r.Score = v
	}
	return v, true
}

func (t *tracker) result() (Result, error) {
	if t.r.Best == nil {
		return t.r, ErrNothingFound
	}
	return t.r, nil
}

// Exhaustive evaluates every valid configuration.
type Exhaustive struct{}

// Search implements Strategy.
func (Exhaustive) Search(s *features.Space, obj Objective, _ *rand.Rand) (Result, error) {
	var t tracker
	s.Each(func(c features.Config) bool { t.eval(obj, c); return true })
	return t.result()
}

// Random evaluates Budget distinct valid configurations drawn uniformly.
type Random struct {
	// Budget is the number of evaluations; 0 means 100.
	Budget int
}

// Search implements Strategy.
func (r Random) Search(s *features.Space, obj Objective, rng *rand.Rand) (Result, error) {
	n := r.Budget
	if n == 0 {
		n = 100
	}
	if n < 0 {
		return Result{}, fmt.Errorf("search: Random.Budget must be >= 0, got %d", n)
	}
	var t tracker
	for _, c := range s.Sample(rng, n) {
		t.eval(obj, c)
	}
	return t.result()
}

// HillClimb is Bergstra's stochastic hill climb: from Start, each step
// resamples every parameter of the current configuration with probability
// P (at least one changes) and moves when the candidate scores higher.
// Candidates that break the space's constraints are redrawn without being
// evaluated.
type HillClimb struct {
	// Steps is the number of evaluations after the start; 0 means 75
	// (HC75).
	Steps int
	// P is the probability of resampling each parameter; 0 means 0.25.
	P float64
	// Start is the first configuration; nil means a random valid one.
	Start features.Config
	// Restarts is the number of extra climbs from random valid
	// configurations, each with Steps evaluations; 0 means none.
	Restarts int
}

// maxRedraws bounds the draws spent looking for a valid neighbour.
const maxRedraws = 1000

func (h HillClimb) params() (int, float64, error) {
	steps, p := h.Steps, h.P
	if steps == 0 {
		steps = 75
	}
	if p == 0 {
		p = 0.25
	}
	if steps < 0 {
		return 0, 0, fmt.Errorf("search: HillClimb.Steps must be >= 0, got %d", h.Steps)
	}
	if p < 0 || p > 1 {
		return 0, 0, fmt.Errorf("search: HillClimb.P must be in [0, 1], got %g", h.P)
	}
	if h.Restarts < 0 {
		return 0, 0, fmt.Errorf("search: HillClimb.Restarts must be >= 0, got %d", h.Restarts)
	}
	return steps, p, nil
}

// Search implements Strategy.
func (h HillClimb) Search(s *features.Space, obj Objective, rng *rand.Rand) (Result, error) {
	steps, p, err := h.params()
	if err != nil {
		return Result{}, err
	}
	var t tracker
	cur := make(features.Config, len(s.Params))
	cand := make(features.Config, len(s.Params))
	for climb := 0; climb <= h.Restarts; climb++ {
		if climb == 0 && h.Start != nil {
			if !s.Valid(h.Start) {
				return Result{}, fmt.Errorf("search: start %s is not a valid configuration", s.Format(h.Start))
			}
			copy(cur, h.Start)
		} else {
			c, ok := s.Random(rng)
			if !ok {
				return Result{}, fmt.Errorf("search: no valid configuration found to start from")
			}
			copy(cur, c)
		}
		score, _ := t.eval(obj, cur)
		for step := 0; step < steps; step++ {
			if !Neighbour(s, cur, cand, p, rng) {
				break
			}
			if v, ok := t.eval(obj, cand); ok && v > score {
				score = v
				cur, cand = cand, cur
			}
		}
	}
	return t.result()
}

// Neighbour writes into cand a valid configuration that differs from cur in
// at least one parameter, each parameter redrawn with probability p. It
// reports false when maxRedraws draws found none.
func Neighbour(s *features.Space, cur, cand features.Config, p float64, rng *rand.Rand) bool {
	for try := 0; try < maxRedraws; try++ {
		changed := false
		for k, prm := range s.Params {
			cand[k] = cur[k]
			if len(prm.Values) > 1 && rng.Float64() < p {
				cand[k] = other(prm.Values, cur[k], rng)
				changed = true
			}
		}
		if !changed {
			k := rng.IntN(len(s.Params))
			if len(s.Params[k].Values) < 2 {
				continue
			}
			cand[k] = other(s.Params[k].Values, cur[k], rng)
		}
		if s.Valid(cand) {
			return true
		}
	}
	return false
}

// other draws a value of vs different from v.
func other(vs []int, v int, rng *rand.Rand) int {
	for {
		if x := vs[rng.IntN(len(vs))]; x != v {
			return x
		}
	}
}
