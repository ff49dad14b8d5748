package search

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/augur-tuning/augur/features"
)

var _ Strategy = (*Anneal)(nil)

// Anneal is simulated annealing as CLTune implements it (Nugteren and
// Codreanu 2015, section IV.C): from Start, each step draws a random
// neighbour that differs in one parameter and moves there when it scores
// higher, or otherwise with probability exp((new-old)/T_k), where the
// temperature T_k = Temperature*(1-k/N) cools linearly to zero as the
// k-th distinct evaluation approaches N, the budget (Settings.Budget) or,
// without one, the number of valid configurations. Early on the walk
// escapes local optima; at the end it only climbs.
//
// Scores are remembered, so a step onto a configuration already evaluated
// costs no objective call: the budget counts distinct evaluations. A walk
// that takes 100 steps in a row onto configurations it has seen is stuck
// (a cold walk on a local optimum whose neighbours it has all tried), and
// continues from a random valid configuration it has not seen, at the
// temperature the schedule has reached; the search stops when N
// configurations are evaluated, or when 1000 random draws find no
// configuration it has not seen (a small space exhausted).
type Anneal struct {
	// Temperature is the initial temperature, in the objective's units;
	// 0 means 4, the value CLTune's experiments use (they try 2, 4 and 6,
	// with execution times in milliseconds as energies). On a log-speedup
	// objective 4 is hot: a move that is e times slower is still taken with
	// probability 0.78 at the start; try 0.1 to 1 there.
	Temperature float64
	// Start is the first configuration; nil means a random valid one.
	Start features.Config
}

func (a Anneal) params() (float64, error) {
	temp := a.Temperature
	if temp == 0 {
		temp = 4
	}
	if temp < 0 || math.IsInf(temp, 0) || math.IsNaN(temp) {
		return 0, fmt.Errorf("search: Anneal.Temperature must be finite and >= 0, got %g", a.Temperature)
	}
	return temp, nil
}

// Search implements Strategy.
func (a Anneal) Search(s *features.Space, e *Evaluator, rng *rand.Rand) error {
	temp, err := a.params()
	if err != nil {
		return err
	}
	horizon := e.Budget()
	if horizon == 0 {
		horizon = s.Len()
	}
	cur, err := start(s, "Anneal.Start", a.Start, rng)
	if err != nil {
		return err
	}
	m := newMemo(e)
	score, _ := m.eval(s, cur)
	cand := make(features.Config, len(s.Params))
	for stale := 0; !e.Spent() && e.Evals() < horizon; {
		if stale >= restartAfter {
			c, ok := m.unseen(s, rng)
			if !ok {
				break
			}
			copy(cur, c)
			score, _ = m.eval(s, cur)
			stale = 0
			continue
		}
		// A space whose constraints tie parameters together may leave no
		// valid one-parameter move; a random jump keeps the walk going.
		if !Neighbour(s, cur, cand, 0, rng) {
			c, ok := s.Random(rng)
			if !ok {
				break
			}
			copy(cand, c)
		}
		v, fresh := m.eval(s, cand)
		if fresh {
			stale = 0
		} else {
			stale++
		}
		t := temp * (1 - float64(e.Evals())/float64(horizon))
		if accept(score, v, t, rng) {
			cur, cand = cand, cur
			score = v
		}
	}
	return nil
}

// restartAfter is the number of steps in a row onto configurations already
// seen after which Anneal restarts. A conv2d configuration has at most 19
// one-parameter neighbours, which 100 uniform draws all find with
// probability 0.92; a walk that has seen every neighbour of a local optimum
// it will not leave only spins.
const restartAfter = 100

// accept is the Metropolis rule for maximization: always take a better
// score, never a failed one, and a worse one with probability
// exp((v-cur)/t). A walk that stands on a failed configuration moves on
// whatever it finds, since nothing can be worse.
func accept(cur, v, t float64, rng *rand.Rand) bool {
	switch {
	case math.IsInf(cur, -1):
		return true
	case v > cur:
		return true
	case math.IsInf(v, -1) || t <= 0:
		return false
	}
	return rng.Float64() < math.Exp((v-cur)/t)
}

// start returns a copy of c after checking it, or a random valid
// configuration when c is nil. field names the option c came from.
func start(s *features.Space, field string, c features.Config, rng *rand.Rand) (features.Config, error) {
	if c != nil {
		if !s.Valid(c) {
			return nil, fmt.Errorf("search: %s %s is not a valid configuration", field, s.Format(c))
		}
		return c.Clone(), nil
	}
	c, ok := s.Random(rng)
	if !ok {
		return nil, fmt.Errorf("search: no valid configuration found to start from")
	}
	return c, nil
}
