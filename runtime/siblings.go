package runtime

import (
	"strings"

	"github.com/augur-tuning/augur/features"
)

// sibling is another device's best measured configuration of one shape,
// which a device with a model of its own may copy at that shape
// (features.SiblingChoice).
type sibling struct {
	config features.Config
	source string // "copy:<slug>"
}

// siblingTable returns, for a device served by its own model entry, the
// best configurations that other devices of its type measured, by shape:
// nil unless training chose to copy them (entry.Siblings) and any exist.
func siblingTable(b *features.Bundle, entry *features.Model, table map[features.TaskKey]features.Config, space *features.Space) map[features.TaskKey][]sibling {
	if entry == nil || entry.Siblings == nil || !entry.Siblings.Copy || entry.Platform == nil || entry.Name == SourceFleet {
		return nil
	}
	out := map[features.TaskKey][]sibling{}
	for _, m := range b.Measured {
		key := m.Task.Key()
		if strings.EqualFold(m.Device, entry.Name) || b.MeasuredType(m) != entry.Platform.Type || len(m.Task) != len(b.TaskNames) || !space.Valid(m.Config) {
			continue
		}
		if _, own := table[key]; own {
			continue
		}
		out[key] = append(out[key], sibling{config: m.Config, source: SourceCopy + ":" + m.Device})
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// siblingPick is the pick at t from other devices' bests of the very
// shape (Chooser.siblings): of those that run on the device, the one the
// model predicts fastest; false when there is none.
func (c *Chooser) siblingPick(t features.Task, sibs []sibling) (Pick, bool) {
	batch := make([]features.Config, 0, len(sibs))
	from := make([]string, 0, len(sibs))
	for _, s := range sibs {
		if c.runs(t, s.config) {
			batch, from = append(batch, s.config), append(from, s.source)
		}
	}
	if len(batch) == 0 {
		return Pick{}, false
	}
	vals, oks := make([]float64, len(batch)), make([]bool, len(batch))
	c.model.Scorer(t).ScoreBatch(batch, vals, oks)
	best := 0
	for i := range batch {
		if oks[i] && (!oks[best] || vals[i] > vals[best]) {
			best = i
		}
	}
	p := Pick{Config: batch[best].Clone(), Model: c.model.Name, Source: from[best], OutsideOctaves: c.outside(t),
		ExpectedPct: c.bundleSiblings.CopyPct}
	p.LogSpeedup, p.Clamped = c.model.PredictClamped(t, p.Config)
	return p, true
}

// pickSibling sets *p to the sibling pick at t (key its TaskKey) and
// reports whether there was one.
func (c *Chooser) pickSibling(t features.Task, key features.TaskKey, p *Pick) bool {
	sp, ok := c.siblingPick(t, c.siblings[key])
	if ok {
		*p = sp
	}
	return ok
}
