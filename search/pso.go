package search

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/augur-tuning/augur/features"
)

var _ Strategy = (*PSO)(nil)

// PSO is CLTune's discrete accelerated particle swarm (Nugteren and
// Codreanu 2015, section IV.D, after Yang et al.'s accelerated PSO). A swarm
// of particles starts at random valid configurations; the particles move in
// turn, and each parameter of the moving particle independently takes a
// random value with probability Alpha, the particle's own best value with
// probability Beta, the swarm's best value with probability Gamma, and
// otherwise keeps its value. Linear combinations of positions mean little in
// a narrow discrete space, which is why CLTune draws instead of averaging.
//
// A position that breaks the space's constraints is redrawn, and after 1000
// failed draws replaced by a random valid configuration; it is never
// evaluated. As in Anneal, scores are remembered, the budget
// (Settings.Budget) counts distinct evaluations, the swarm's starting
// positions included, and the search stops, with a budget or without,
// after 1000 moves in a row onto configurations already seen.
type PSO struct {
	// Swarm is the number of particles; 0 means 3, the smaller of the two
	// swarm sizes CLTune's experiments use (3 and 6). A budget below the
	// swarm size shrinks the swarm to the budget.
	Swarm int
	// Alpha is the probability of moving a parameter to a random value;
	// 0 means 0.4.
	Alpha float64
	// Beta is the probability of moving a parameter to the particle's own
	// best value; 0 means 0, CLTune's setting (Yang et al. argue the local
	// best adds little).
	Beta float64
	// Gamma is the probability of moving a parameter to the swarm's best
	// value; 0 means 0.4. Alpha+Beta+Gamma must not exceed 1.
	Gamma float64
}

func (p PSO) params(budget int) (swarm int, alpha, beta, gamma float64, err error) {
	swarm, alpha, beta, gamma = p.Swarm, p.Alpha, p.Beta, p.Gamma
	if swarm == 0 {
		swarm = 3
	}
	if alpha == 0 {
		alpha = 0.4
	}
	if gamma == 0 {
		gamma = 0.4
	}
	switch {
	case swarm < 0:
		err = fmt.Errorf("search: PSO.Swarm must be >= 0, got %d", p.Swarm)
	case !(alpha >= 0 && alpha <= 1):
		err = fmt.Errorf("search: PSO.Alpha must be in [0, 1], got %g", p.Alpha)
	case !(beta >= 0 && beta <= 1):
		err = fmt.Errorf("search: PSO.Beta must be in [0, 1], got %g", p.Beta)
	case !(gamma >= 0 && gamma <= 1):
		err = fmt.Errorf("search: PSO.Gamma must be in [0, 1], got %g", p.Gamma)
	case alpha+beta+gamma > 1+1e-9:
		err = fmt.Errorf("search: PSO.Alpha+Beta+Gamma must be <= 1, got %g+%g+%g (zeros read as defaults 0.4, 0, 0.4)", alpha, beta, gamma)
	}
	if budget > 0 {
		swarm = min(swarm, budget)
	}
	return swarm, alpha, beta, gamma, err
}

// Search implements Strategy.
func (p PSO) Search(s *features.Space, e *Evaluator, rng *rand.Rand) error {
	swarm, alpha, beta, gamma, err := p.params(e.Budget())
	if err != nil {
		return err
	}
	m := newMemo(e)
	pos := make([]features.Config, swarm)
	best := make([]features.Config, swarm) // each particle's best; nil until one succeeds
	bestScore := make([]float64, swarm)
	for i := range pos {
		c, ok := s.Random(rng)
		if !ok {
			return fmt.Errorf("search: no valid configuration found to start from")
		}
		pos[i] = c
		bestScore[i] = math.Inf(-1)
		if v, _ := m.eval(s, c); !math.IsInf(v, -1) {
			best[i], bestScore[i] = c.Clone(), v
		}
	}
	next := make(features.Config, len(s.Params))
	for i, stale := 0, 0; !e.Spent() && stale < maxRedraws; i = (i + 1) % swarm {
		swarmBest, _ := e.Best()
		if !p.move(s, pos[i], best[i], swarmBest, next, alpha, beta, gamma, rng) {
			c, ok := s.Random(rng)
			if !ok {
				break
			}
			copy(next, c)
		}
		pos[i], next = next, pos[i]
		v, fresh := m.eval(s, pos[i])
		if fresh {
			stale = 0
		} else {
			stale++
		}
		if v > bestScore[i] {
			if best[i] == nil {
				best[i] = make(features.Config, len(s.Params))
			}
			copy(best[i], pos[i])
			bestScore[i] = v
		}
	}
	return nil
}

// move writes into next the particle's new position drawn from cur, its own
// best and the swarm's best (either nil while nothing has succeeded, in
// which case the parameter stays), and reports false when maxRedraws draws
// found no valid position.
func (PSO) move(s *features.Space, cur, own, swarm, next features.Config, alpha, beta, gamma float64, rng *rand.Rand) bool {
	for try := 0; try < maxRedraws; try++ {
		for d, prm := range s.Params {
			next[d] = cur[d]
			switch u := rng.Float64(); {
			case u < alpha:
				next[d] = prm.Values[rng.IntN(len(prm.Values))]
			case u < alpha+beta:
				if own != nil {
					next[d] = own[d]
				}
			case u < alpha+beta+gamma:
				if swarm != nil {
					next[d] = swarm[d]
				}
			}
		}
		if s.Valid(next) {
			return true
		}
	}
	return false
}
