package runtime

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/augur-tuning/augur/features"
)

// Candidates returns the model's k best distinct configurations known to
// run on the device for shape t, best predicted first; the first is what
// Choose returns (same Source rules: a wisdom or table hit, a copy, the
// model's pick, or the reference). k < 1 is an error; a bad shape an error
// wrapping ErrShape.
//
// The others are the model's ranking of every configuration that ran in
// its training data (the model's Known) and fits the device's limits,
// each with its predicted log-speedup and launch plan and the model's
// source ("model:<slug>" or "fleet"). Ranking them costs a batch of
// predictions, a millisecond or a few, and is not cached: Candidates is
// for the first call of a shape, before a library measures the candidates
// once and records the winner (Wisdom). Fewer than k come back when the
// chooser knows fewer: one, the reference, with no model. A bundle that
// records no known configurations ranks those that its climb (Choose's
// search) scored, and their one-parameter neighbours when too few.
//
// The result is the caller's own.
func (c *Chooser) Candidates(t features.Task, k int) ([]Pick, error) {
	if k < 1 {
		return nil, fmt.Errorf("runtime: Candidates: k must be >= 1, got %d", k)
	}
	first, err := c.pick(t)
	if err != nil {
		return nil, err
	}
	out := make([]Pick, 1, min(k, 64))
	out[0] = *first
	out[0].Config = first.Config.Clone()
	if k == 1 || c.model == nil {
		return out, nil
	}
	seen := map[int]bool{c.space.Index(first.Config): true}
	for _, r := range c.ranked(t, k) {
		if len(out) == k {
			break
		}
		if i := c.space.Index(r.cfg); !seen[i] {
			seen[i] = true
			out = append(out, c.candidate(t, r.cfg, r.v))
		}
	}
	return out, nil
}

// scored is a configuration and its predicted log-speedup.
type scored struct {
	cfg features.Config
	v   float64
}

// ranked returns the configurations Candidates chooses among, best
// predicted first, ties in the order they were scored.
func (c *Chooser) ranked(t features.Task, k int) []scored {
	var pool []scored
	if len(c.knownList) > 0 {
		batch := make([]features.Config, 0, len(c.knownList))
		for _, cfg := range c.knownList {
			if c.runs(t, cfg) {
				batch = append(batch, cfg)
			}
		}
		vals, oks := make([]float64, len(batch)), make([]bool, len(batch))
		c.model.Scorer(t).ScoreBatch(batch, vals, oks)
		for i, cfg := range batch {
			if oks[i] {
				pool = append(pool, scored{cfg, vals[i]})
			}
		}
	} else {
		pool = c.climbPool(t, k)
	}
	slices.SortStableFunc(pool, func(a, b scored) int { return cmp.Compare(b.v, a.v) })
	return pool
}

// climbPool returns what Choose's climb scored on t, distinct, grown by
// the one-parameter neighbours of the best so far until it holds k.
func (c *Chooser) climbPool(t features.Task, k int) []scored {
	var pool []scored
	seen := map[int]bool{}
	c.climb(t, func(cfg features.Config, v float64) {
		if i := c.space.Index(cfg); !seen[i] {
			seen[i] = true
			pool = append(pool, scored{cfg.Clone(), v})
		}
	})
	sc := c.model.Scorer(t)
	for next := 0; len(pool) < k && next < len(pool); next++ {
		slices.SortStableFunc(pool, func(a, b scored) int { return cmp.Compare(b.v, a.v) })
		base := pool[next].cfg
		var batch []features.Config
		for p, param := range c.space.Params {
			for _, v := range param.Values {
				n := base.Clone()
				n[p] = v
				if i := c.space.Index(n); c.space.Valid(n) && !seen[i] && c.runs(t, n) {
					seen[i] = true
					batch = append(batch, n)
				}
			}
		}
		vals, oks := make([]float64, len(batch)), make([]bool, len(batch))
		sc.ScoreBatch(batch, vals, oks)
		for i, n := range batch {
			if oks[i] {
				pool = append(pool, scored{n, vals[i]})
			}
		}
	}
	return pool
}

// candidate is the Pick of a ranked configuration of the model's.
func (c *Chooser) candidate(t features.Task, cfg features.Config, v float64) Pick {
	source := c.source
	if c.copies != nil {
		source = SourceFleet // the copies are the first; the rest the fleet model's
	}
	p := Pick{Config: cfg.Clone(), LogSpeedup: v, Model: c.model.Name, Source: source,
		OutsideOctaves: c.outside(t), ExpectedPct: c.expected[0], WorstPct: c.expected[1], names: c.names}
	if c.kernel != nil {
		p.Plan.Launch, _ = c.kernel.Geometry(t, p.Config)
		p.Plan.BuildOptions = c.kernel.Options(t, p.Config)
	}
	return p
}
