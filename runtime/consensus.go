package runtime

import (
	"cmp"
	"slices"

	"github.com/augur-tuning/augur/features"
)

// consensus is a model's nearest-shape rule (features.Consensus), ready
// to score.
type consensus struct {
	rule   features.ConsensusRule
	logs   features.LogShapes
	speeds []map[int]float64 // each training shape's listed speeds by Space.Index
}

// newConsensus returns the rule of c for space; nil for none.
func newConsensus(c *features.Consensus, space *features.Space) *consensus {
	if c == nil {
		return nil
	}
	out := &consensus{rule: c.ConsensusRule}
	for i, sh := range c.Shapes {
		out.logs = append(out.logs, features.TaskLogs(nil, sh))
		m := make(map[int]float64, len(c.Configs[i]))
		for j, p := range c.Configs[i] {
			m[space.Index(c.Pool[p])] = c.Speeds[i][j]
		}
		out.speeds = append(out.speeds, m)
	}
	return out
}

// consensusPool is how many candidates a model carrying the rule gathers
// before it orders them (Candidates).
const consensusPool = 8

// order sorts picks, stably, by the rule's score on shape t, best first.
func (cs *consensus) order(t features.Task, picks []Pick, space *features.Space) {
	if len(picks) < 2 {
		return
	}
	idx := make([]int, len(picks))
	for i, p := range picks {
		idx[i] = space.Index(p.Config)
	}
	scores := cs.rule.Scores(nil, cs.logs, features.TaskLogs(nil, t), len(picks), func(s, i int) (float64, bool) {
		v, ok := cs.speeds[s][idx[i]]
		return v, ok
	})
	perm := make([]int, len(picks))
	for i := range perm {
		perm[i] = i
	}
	slices.SortStableFunc(perm, func(a, b int) int { return cmp.Compare(scores[b], scores[a]) })
	sorted := make([]Pick, len(picks))
	for i, j := range perm {
		sorted[i] = picks[j]
	}
	copy(picks, sorted)
}

// topScored keeps the n best configurations offered, best first, each
// the keeper's own copy.
type topScored struct {
	n   int
	top []scored
}

// wants reports whether a configuration scored v would enter.
func (ts *topScored) wants(v float64) bool { return len(ts.top) < ts.n || v > ts.top[len(ts.top)-1].v }

func (ts *topScored) add(cfg features.Config, v float64) {
	at := len(ts.top)
	for at > 0 && ts.top[at-1].v < v {
		at--
	}
	ts.top = slices.Insert(ts.top, at, scored{cfg: cfg.Clone(), v: v})
	ts.top = ts.top[:min(len(ts.top), ts.n)]
}

// consensusSearch is search re-ranked by the model's nearest-shape rule:
// of the climb's pick, the nearby training shapes' fastest configurations
// (nearBests) and the climb's next best, interleaved as Candidates orders
// them, the rule's first Candidates compete, and the one that ran fastest
// at the training shapes nearest t wins (features.ConsensusRule.Pick). A
// value the classifier fixed stays fixed.
func (c *Chooser) consensusSearch(t features.Task) Pick {
	m := c.consensus.rule.Candidates
	top := &topScored{n: m}
	p := c.climbTop(t, nil, top)
	cands := []scored{{cfg: p.Config, v: p.LogSpeedup}}
	seen := []int{c.space.Index(p.Config)}
	near := c.nearBests(t)
	if fixed, fv := c.fixedParam(t); fixed >= 0 && p.Fixed != "" {
		// The classifier fixed a value: the nearby bests must keep it.
		near = slices.DeleteFunc(near, func(s scored) bool { return s.cfg[fixed] != fv })
	}
	// The climb's others after its pick, as Candidates' ranking leaves
	// the pick out.
	next := slices.DeleteFunc(top.top, func(s scored) bool { return c.space.Index(s.cfg) == seen[0] })
	add := func(s scored) {
		if x := c.space.Index(s.cfg); len(cands) < m && !slices.Contains(seen, x) {
			seen = append(seen, x)
			cands = append(cands, s)
		}
	}
	for i := 0; len(cands) < m && (i < len(near) || i < len(next)); i++ {
		if i < len(near) {
			add(near[i])
		}
		if i < len(next) {
			add(next[i])
		}
	}
	var lbuf [8]float64
	l := features.TaskLogs(lbuf[:0], t)
	w := c.consensus.rule.Pick(c.consensus.logs, l, len(cands), func(s, i int) (float64, bool) {
		v, ok := c.consensus.speeds[s][seen[i]]
		return v, ok
	})
	if w > 0 {
		p.Config, p.LogSpeedup = cands[w].cfg.Clone(), cands[w].v
	}
	return p
}
