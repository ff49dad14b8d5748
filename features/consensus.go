package features

import (
	"fmt"
	"math"
)

// Consensus is a pick rule a model carries when training found that it
// picks better on held-out shapes than the model alone
// (train.Selection.Consensus): of the model's first few configurations for
// a new shape, the runtime picks the one that ran fastest at the training
// shapes nearest it. A model ranks well but its favourite is one argmax's
// luck; the nearby shapes' timings were measured.
//
// A candidate's score is the weighted mean, over the Nearest training
// shapes closest to the new one (the squared differences of the logarithms
// of the task values), of the logarithm of its Speeds entry there, with
// weights exp(-distance / Tau); a configuration a shape does not list
// counts as Unlisted. The highest score wins; ties go to the earlier
// candidate, the model's pick first.
type Consensus struct {
	ConsensusRule
	// Shapes are the device's training shapes.
	Shapes []Task `json:"shapes"`
	// Configs[i] are the configurations that ran fastest on Shapes[i],
	// fastest first, as indices into Pool, and Speeds[i] their speeds as
	// fractions of the shape's fastest (1 for the first).
	Configs [][]int     `json:"configs"`
	Speeds  [][]float64 `json:"speeds"`
	// Pool holds each distinct configuration once.
	Pool []Config `json:"pool"`
}

// ConsensusRule is how Consensus scores: training's held-out scoring
// (train.Select) and the runtime apply the same rule with Pick.
type ConsensusRule struct {
	// Candidates is how many of the model's configurations compete: the
	// pick, one of the fastest measured at the nearby training shapes and
	// the model's next best (runtime.Chooser.Candidates' order).
	Candidates int `json:"candidates"`
	// Nearest is how many training shapes score a candidate.
	Nearest int `json:"nearest"`
	// Tau scales the distance in the weights.
	Tau float64 `json:"tau"`
	// Unlisted is the speed credited to a configuration a shape does not
	// list: it failed there, was not measured, or ran slower than the
	// shape's listed ones.
	Unlisted float64 `json:"unlisted"`
}

// Pick returns which of n candidates the rule picks for the shape whose
// logarithms (TaskLogs) are l, scored at the Nearest of shapes nearest it;
// speed(s, i) is candidate i's listed speed at shapes[s], false when the
// shape does not list it. With no shapes, or one candidate, it returns 0.
func (r ConsensusRule) Pick(shapes LogShapes, l []float64, n int, speed func(s, i int) (float64, bool)) int {
	var buf [8]float64
	scores := buf[:0]
	if n > len(buf) {
		scores = make([]float64, 0, n)
	}
	scores = r.Scores(scores, shapes, l, n, speed)
	best := 0
	for i, v := range scores {
		// A later candidate wins only when better.
		if v > scores[best] {
			best = i
		}
	}
	return best
}

// Scores appends the n candidates' scores to dst (see Pick): the sum over
// the Nearest shapes nearest l of the weight exp(-distance / Tau) times the
// logarithm of the candidate's speed there, Unlisted where the shape does
// not list it. The weights' sum is the same for every candidate, so the
// sum orders them as the weighted mean does. All zeros with no shapes.
func (r ConsensusRule) Scores(dst []float64, shapes LogShapes, l []float64, n int, speed func(s, i int) (float64, bool)) []float64 {
	var idx [16]int
	k := shapes.Nearest(l, idx[:min(r.Nearest, len(idx))])
	var w [16]float64
	for j, s := range idx[:k] {
		d := 0.0
		for f, v := range l {
			x := v - shapes[s][f]
			d += x * x
		}
		w[j] = math.Exp(-d / r.Tau)
	}
	for i := range n {
		score := 0.0
		for j, s := range idx[:k] {
			v, ok := speed(s, i)
			if !ok {
				v = r.Unlisted
			}
			score += w[j] * math.Log(v)
		}
		dst = append(dst, score)
	}
	return dst
}

// check reports whether the table is consistent: one list of
// configurations and speeds a shape, indices in range, shapes of the
// right length, configurations in the space, speeds in (0, 1].
func (c *Consensus) check(nTask int, s *Space) error {
	if c == nil {
		return nil
	}
	if c.Candidates < 1 || c.Nearest < 1 || !(c.Tau > 0) || !(c.Unlisted > 0 && c.Unlisted <= 1) {
		return fmt.Errorf("consensus: candidates %d, nearest %d, tau %g, unlisted %g: want >= 1, >= 1, > 0, (0, 1]",
			c.Candidates, c.Nearest, c.Tau, c.Unlisted)
	}
	if len(c.Shapes) != len(c.Configs) || len(c.Shapes) != len(c.Speeds) {
		return fmt.Errorf("consensus: %d shapes, %d configuration lists, %d speed lists", len(c.Shapes), len(c.Configs), len(c.Speeds))
	}
	for i, sh := range c.Shapes {
		if len(sh) != nTask {
			return fmt.Errorf("consensus: shape %v has %d values, want %d", sh, len(sh), nTask)
		}
		if len(c.Configs[i]) != len(c.Speeds[i]) {
			return fmt.Errorf("consensus: shape %v lists %d configurations, %d speeds", sh, len(c.Configs[i]), len(c.Speeds[i]))
		}
		for j, k := range c.Configs[i] {
			if k < 0 || k >= len(c.Pool) {
				return fmt.Errorf("consensus: index %d outside a pool of %d", k, len(c.Pool))
			}
			if v := c.Speeds[i][j]; !(v > 0 && v <= 1) {
				return fmt.Errorf("consensus: shape %v: speed %g outside (0, 1]", sh, v)
			}
		}
	}
	for _, cfg := range c.Pool {
		if !s.Valid(cfg) {
			return fmt.Errorf("consensus: configuration %v is not in the space", cfg)
		}
	}
	return nil
}
