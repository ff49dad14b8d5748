package search

import (
	"math"
	"math/rand/v2"

	"github.com/augur-tuning/augur/features"
)

// memo evaluates each configuration at most once, so that strategies which
// walk back over ground they have covered (annealing, a swarm converging on
// its best) spend their budget on distinct configurations only.
type memo struct {
	e    *Evaluator
	seen map[int]float64 // keyed by Space.Index; -Inf marks a failed evaluation
}

func newMemo(e *Evaluator) *memo { return &memo{e: e, seen: map[int]float64{}} }

// eval returns c's score (-Inf when it failed) and whether this call paid
// for an objective evaluation. Once the budget is spent it returns -Inf
// and false, and remembers nothing.
func (m *memo) eval(s *features.Space, c features.Config) (score float64, fresh bool) {
	k := s.Index(c)
	if v, ok := m.seen[k]; ok {
		return v, false
	}
	if m.e.Spent() {
		return math.Inf(-1), false
	}
	v, ok := m.e.Eval(c)
	if !ok {
		v = math.Inf(-1)
	}
	m.seen[k] = v
	return v, true
}

// unseen returns a random valid configuration that m has not evaluated, or
// false when maxRedraws draws found none.
func (m *memo) unseen(s *features.Space, rng *rand.Rand) (features.Config, bool) {
	for range maxRedraws {
		c, ok := s.Random(rng)
		if !ok {
			return nil, false
		}
		if _, seen := m.seen[s.Index(c)]; !seen {
			return c, true
		}
	}
	return nil, false
}

// indexOf returns the position of v in vs, or -1. Parameters have a handful
// of values, so a scan beats a map.
func indexOf(vs []int, v int) int {
	for i, x := range vs {
		if x == v {
			return i
		}
	}
	return -1
}
