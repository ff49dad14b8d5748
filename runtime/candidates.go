package runtime

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/augur-tuning/augur/features"
)

// Candidates returns the model's k best distinct configurations known to
// run on the device for shape t, the pick first; the first is what Choose
// returns (same Source rules: a wisdom or table hit, a copy, the model's
// pick, or the reference). k < 1 is an error; a bad shape an error
// wrapping ErrShape.
//
// After the pick come, in turn, one of the fastest configurations measured
// on the device at the training shapes nearest t and one of the model's
// ranking of every configuration that ran in its training data (the
// model's Known) and fits the device's limits. The nearby bests are
// Bundle.Measured's entries of the device for the Options.Starts training
// shapes nearest t on a log scale, best predicted first, with Source
// SourceNear. The model's ranking alone returns near-duplicates of the
// pick, which win or lose with it; a configuration that was fastest on a
// nearby shape was measured, not predicted. On four devices' whole-space
// data, leaving each shape out, this lifted the best of the first 3 from
// 84.7-96.2% of the optimum to 87.9-99.1% (bench/RESULTS.md, "Top-k
// candidates: variants"). Each candidate carries its predicted
// log-speedup and launch plan.
//
// A model that carries the nearest-shape rule (features.Consensus)
// gathers at least 8 this way and orders those after the pick by the rule:
// by their speed at the training shapes nearest t. On the H200 and H100
// whole-space conv2d sets, leaving each shape out, this raised the best of
// the first 5 from 98.9% of the optimum to 99.2% and 99.0% (the first 2
// and 3 fell on the H200, rose on the H100; bench/RESULTS.md, "The
// nearest-shape rule, session 23").
//
// Ranking costs a batch of predictions, a millisecond or a few, and is
// not cached: Candidates is for the first call of a shape, before a
// library measures the candidates once and records the winner (Wisdom).
// Fewer than k come back when the chooser knows fewer: one, the
// reference, with no model. A bundle that records no known configurations
// ranks those that its climb (Choose's search) scored, and their
// one-parameter neighbours when too few.
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
	// No more candidates than raw configurations: k near MaxInt must not
	// overflow the counts below.
	k = min(k, c.space.RawSize())
	out := make([]Pick, 1, min(k, 64))
	out[0] = first.clone()
	if k == 1 || c.model == nil {
		return out, nil
	}
	// The pick is not ranked again: the rest of the ranking and the
	// nearby shapes' bests follow it in turn, a nearby best first.
	// The loop below takes at most want-1 of the ranking, and one more
	// for each nearby best it holds too, beside the pick. A model
	// carrying the nearest-shape rule gathers at least consensusPool
	// and orders them, after the pick, by the rule.
	want := k
	if c.consensus != nil {
		want = max(k, consensusPool)
	}
	pick := c.space.Index(first.Config)
	near := c.nearBests(t)
	ranked := slices.DeleteFunc(c.ranked(t, want, want+len(near)+1), func(r scored) bool { return c.space.Index(r.cfg) == pick })
	seen := map[int]bool{pick: true}
	ref := c.referenceLog(t)
	for i := 0; len(out) < want && (i < len(ranked) || i < len(near)); i++ {
		for _, r := range [2][]scored{near, ranked} {
			if i >= len(r) || len(out) == want {
				continue
			}
			if x := c.space.Index(r[i].cfg); !seen[x] {
				seen[x] = true
				p := c.candidate(t, r[i].cfg, r[i].v, ref)
				if r[i].near {
					p.Source = SourceNear
				}
				out = append(out, p)
			}
		}
	}
	if c.consensus != nil {
		c.consensus.order(t, out[1:], c.space)
	}
	out = out[:min(k, len(out))]
	return out, nil
}

// SourceNear is the Source of a candidate (Chooser.Candidates) that is
// the fastest configuration measured on the device at one of the training
// shapes nearest the asked one, and of the pick of a device model trained
// on one shape (features.Model.Shapes 1) at any other shape: that shape's
// best, which such a model, never having seen a shape change, does not
// second-guess.
const SourceNear = "near"

// nearBests returns the fastest configurations measured on the chooser's
// device (Bundle.Measured) at the Options.Starts training shapes nearest t
// on a log scale, t itself excluded, that fit the device's limits on t,
// best predicted first.
func (c *Chooser) nearBests(t features.Task) []scored {
	if c.model == nil || c.copies != nil {
		return nil
	}
	slugs := c.deviceSlugs()
	type entry struct {
		cfg  features.Config
		dist float64
	}
	var es []entry
	key := t.Key()
	var lbuf [8]float64
	lt := features.TaskLogs(lbuf[:0], t)
	for _, m := range c.bundle.Measured {
		if len(m.Task) != len(t) || m.Task.Key() == key || !slices.ContainsFunc(slugs, func(s string) bool { return strings.EqualFold(s, m.Device) }) {
			continue
		}
		d := 0.0
		for f, v := range m.Task {
			x := lt[f] - math.Log(float64(max(v, 1)))
			d += x * x
		}
		es = append(es, entry{m.Config, d})
	}
	// Nearest first; whether one fits the device is asked only until
	// Starts do, since it costs a launch geometry.
	slices.SortStableFunc(es, func(a, b entry) int { return cmp.Compare(a.dist, b.dist) })
	batch := make([]features.Config, 0, c.opt.Starts)
	for _, e := range es {
		if len(batch) == c.opt.Starts {
			break
		}
		if c.space.Valid(e.cfg) && c.runs(t, e.cfg) {
			batch = append(batch, e.cfg)
		}
	}
	vals, oks := make([]float64, len(batch)), make([]bool, len(batch))
	c.model.Scorer(t).ScoreBatch(batch, vals, oks)
	var out []scored
	for i, cfg := range batch {
		if oks[i] {
			out = append(out, scored{cfg: cfg, v: vals[i], near: true})
		}
	}
	slices.SortStableFunc(out, func(a, b scored) int { return cmp.Compare(b.v, a.v) })
	return out
}

// deviceSlugs are the names Bundle.Measured may give the chooser's device,
// as measuredTable matches them.
func (c *Chooser) deviceSlugs() []string {
	var slugs []string
	if c.opt.Platform != nil {
		slugs = append(slugs, c.opt.Platform.Slug())
	}
	if c.opt.Device != "" {
		slugs = append(slugs, c.opt.Device)
	}
	if c.model != nil && c.model.Name != SourceFleet {
		slugs = append(slugs, c.model.Name)
	}
	return slugs
}

// scored is a configuration and its predicted log-speedup.
type scored struct {
	cfg  features.Config
	v    float64
	near bool // a nearby shape's measured best (nearBests)
}

// ranked returns the first n configurations of those Candidates chooses
// among, best predicted first, ties in the order they were scored: the
// first n of the stable sort of every known configuration that fits the
// device and the model's limits. Only the known configurations that can
// reach the first n are scored in full, and whether one fits the device is
// asked only of one that would enter them: that question costs a launch
// geometry, most configurations never get that far, and a score does not
// depend on what else the batch holds.
func (c *Chooser) ranked(t features.Task, k, n int) []scored {
	if len(c.knownList) == 0 {
		pool := c.climbPool(t, k)
		slices.SortStableFunc(pool, func(a, b scored) int { return cmp.Compare(b.v, a.v) })
		return pool[:min(n, len(pool))]
	}
	// The climb's configurations that are known and fit the device are
	// in the ranking: its n best score at least the n-th best of them,
	// and the rest need not be scored in full (ScoreBatchAbove).
	var sample []float64
	c.climb(t, func(cfg features.Config, v float64) {
		if c.known[c.space.Index(cfg)] {
			sample = append(sample, v)
		}
	})
	floor := math.Inf(-1)
	if len(sample) >= n {
		slices.Sort(sample)
		floor = sample[len(sample)-n]
	}
	vals, oks := make([]float64, len(c.knownList)), make([]bool, len(c.knownList))
	c.model.Scorer(t).ScoreBatchAbove(c.knownList, vals, oks, floor)
	top := make([]scored, 0, min(n, len(c.knownList))+1)
	for i, cfg := range c.knownList {
		v := vals[i]
		if !oks[i] || v < floor || (len(top) == n && cmp.Compare(v, top[n-1].v) <= 0) || !c.runs(t, cfg) {
			continue
		}
		// After every configuration scored as high: the stable order.
		at := len(top)
		for at > 0 && cmp.Compare(top[at-1].v, v) < 0 {
			at--
		}
		top = slices.Insert(top, at, scored{cfg: cfg, v: v})
		if len(top) > n {
			top = top[:n]
		}
	}
	return top
}

// climbPool returns what Choose's climb scored on t, distinct, grown by
// the one-parameter neighbours of the best so far until it holds k.
func (c *Chooser) climbPool(t features.Task, k int) []scored {
	var pool []scored
	seen := map[int]bool{}
	c.climb(t, func(cfg features.Config, v float64) {
		if i := c.space.Index(cfg); !seen[i] {
			seen[i] = true
			pool = append(pool, scored{cfg: cfg.Clone(), v: v})
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
				pool = append(pool, scored{cfg: n, v: vals[i]})
			}
		}
	}
	return pool
}

// candidate is the Pick of a ranked configuration of the model's, v its
// prediction and ref the reference's (Pick.LogSpeedup).
func (c *Chooser) candidate(t features.Task, cfg features.Config, v, ref float64) Pick {
	source := c.source
	if c.copies != nil {
		source = SourceFleet // the copies are the first; the rest the fleet model's
	}
	p := Pick{Config: cfg.Clone(), Model: c.model.Name, Source: source,
		OutsideOctaves: c.outside(t), ExpectedPct: c.expected[0], WorstPct: c.expected[1], names: c.names, kernel: c.kernel}
	p.LogSpeedup, p.Clamped = c.model.Clamp(v)
	p.LogSpeedup -= ref
	if c.kernel != nil {
		p.Plan.Launch, _ = c.kernel.Geometry(t, p.Config)
		p.Plan.BuildOptions = c.kernel.Options(t, p.Config)
		p.Plan.Values = c.kernel.ConfigValues(t, p.Config)
	}
	return p
}
