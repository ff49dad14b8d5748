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
	// Pruned counts the proposals of configurations in Settings.Pruned,
	// which Evals leaves out (a strategy may propose one more than once).
	Pruned int
}

// ErrNothingFound is returned when no evaluated configuration succeeded.
var ErrNothingFound = errors.New("search: no configuration evaluated successfully")

// Strategy searches a space for the configuration the objective scores
// highest, evaluating configurations through e; Run is the driver that
// owns e, counts the evaluations and enforces the budget. Search returns
// an error only for invalid options or a space it cannot start in: a
// search that found nothing is Run's ErrNothingFound.
type Strategy interface {
	Search(s *features.Space, e *Evaluator, rng *rand.Rand) error
}

var (
	_ Strategy = (*HillClimb)(nil)
	_ Strategy = (*Random)(nil)
	_ Strategy = (*Exhaustive)(nil)
)

// Exhaustive evaluates every valid configuration, in the space's order.
type Exhaustive struct{}

// Search implements Strategy.
func (Exhaustive) Search(s *features.Space, e *Evaluator, _ *rand.Rand) error {
	s.Each(func(c features.Config) bool { e.Eval(c); return !e.Spent() })
	return nil
}

// Random evaluates distinct valid configurations drawn uniformly: as many
// as the budget, or every valid configuration, in a random order, without
// one. With Settings.Pruned its draws are uniform among the configurations
// within the device's limits: the pruned ones it meets cost nothing, and
// it draws on until the budget is spent.
type Random struct{}

// Search implements Strategy.
func (Random) Search(s *features.Space, e *Evaluator, rng *rand.Rand) error {
	// The space in a random order, evaluated until the budget is spent:
	// without pruned configurations, the draws of Space.Sample (which
	// leaves a space no larger than the budget in its own order).
	cs := s.All()
	if n := e.Budget(); n == 0 || n < len(cs) {
		rng.Shuffle(len(cs), func(i, j int) { cs[i], cs[j] = cs[j], cs[i] })
	}
	for _, c := range cs {
		if e.Spent() {
			break
		}
		e.Eval(c)
	}
	return nil
}

// HillClimb is Bergstra's stochastic hill climb: from Start, each step
// resamples every parameter of the current configuration with probability
// P (at least one changes) and moves when the candidate scores higher.
// Candidates that break the space's constraints are redrawn without being
// evaluated.
//
// Without a budget it makes Restarts+1 climbs of Steps steps. With one,
// and Steps unset, one climb takes the whole budget; with Steps set,
// climbs keep their length and as many as fit the budget are made
// (budget/(Steps+1) climbs, the remainder of fewer than Steps+1
// evaluations left unspent, Restarts ignored), and a budget shorter than
// one climb shortens it.
type HillClimb struct {
	// Steps is the number of evaluations after the start of a climb; 0
	// means 75 (HC75), or one climb as long as the budget.
	Steps int
	// P is the probability of resampling each parameter; 0 means 0.25.
	P float64
	// Start is the first configuration; nil means a random valid one.
	Start features.Config
	// Restarts is the number of extra climbs from random valid
	// configurations, each with Steps evaluations, without a budget; 0
	// means none.
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

// climbs returns the number of climbs and their steps under budget n (0:
// none); steps < 0 means a climb that runs until the budget is spent.
func (h HillClimb) climbs(steps, n int) (int, int) {
	switch {
	case n == 0:
		return h.Restarts + 1, steps
	case h.Steps == 0 || h.Steps+1 > n:
		return 1, -1
	}
	return n / (h.Steps + 1), h.Steps
}

// Search implements Strategy.
func (h HillClimb) Search(s *features.Space, e *Evaluator, rng *rand.Rand) error {
	steps, p, err := h.params()
	if err != nil {
		return err
	}
	climbs, steps := h.climbs(steps, e.Budget())
	cur := make(features.Config, len(s.Params))
	cand := make(features.Config, len(s.Params))
	for climb := 0; climb < climbs && !e.Spent(); climb++ {
		if climb == 0 && h.Start != nil {
			if !s.Valid(h.Start) {
				return fmt.Errorf("search: start %s is not a valid configuration", s.Format(h.Start))
			}
			copy(cur, h.Start)
		}
		score, started := math.Inf(-1), false
		if climb == 0 && h.Start != nil {
			score, _ = e.Eval(cur)
			started = true
		}
		// A random start of the pruned configurations (Settings.Pruned)
		// costs nothing and is drawn again.
		for try := 0; !started && try < maxRedraws; try++ {
			c, ok := s.Random(rng)
			if !ok {
				return fmt.Errorf("search: no valid configuration found to start from")
			}
			copy(cur, c)
			before := e.Evals()
			score, _ = e.Eval(cur)
			started = e.Evals() > before || e.Spent()
		}
		// A step is a counted evaluation: a pruned neighbour costs nothing,
		// and maxRedraws of them in a row end the climb.
		for step, idle := 0, 0; (steps < 0 || step < steps) && !e.Spent() && idle < maxRedraws; {
			if !Neighbour(s, cur, cand, p, rng) {
				break
			}
			before := e.Evals()
			v, ok := e.Eval(cand)
			if e.Evals() == before {
				idle++
				continue
			}
			step, idle = step+1, 0
			if ok && v > score {
				score = v
				cur, cand = cand, cur
			}
		}
	}
	return nil
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
