package runtime

import (
	"math"

	"github.com/augur-tuning/augur/features"
)

// copySource is one device's measured bests (Bundle.Measured), which a
// device with no model of its own may copy.
type copySource struct {
	source  string      // "copy:<slug>", built once so that a pick allocates none
	logs    [][]float64 // ln of each measured shape's values
	configs []features.Config
}

// unseenPolicy sets the Chooser up for a device that the fleet model
// serves with the device's platform features plat (nil: not such a
// device): it keeps the fleet model's search, or copies other devices'
// measured bests, as Options.Unseen or the bundle's policy says.
func (c *Chooser) unseenPolicy(b *features.Bundle, opt Options, plat *features.Platform) {
	if c.source != SourceFleet || plat == nil || opt.Model != "" {
		return
	}
	if u := b.Unseen; u != nil && u.PctGeomean != nil {
		// The picks were scored on held-out devices: a truer
		// expectation for a new device than the fleet model's held-out
		// shapes of the devices it was trained on.
		defer func() {
			p := c.policy(b, opt)
			c.expected = [2]float64{u.PctGeomean[p], u.PctWorstDevice[p]}
		}()
	}
	if c.policy(b, opt) != features.UnseenCopy {
		return
	}
	// Copy from devices of the same type (a GPU's best from GPUs) when
	// there are any: a CPU's best configuration says nothing about a GPU's,
	// and the fleet model, which ranks the copies, knows least across
	// that divide.
	types := map[string]string{}
	for _, m := range b.Models {
		if m.Platform != nil {
			types[m.Name] = m.Platform.Type
		}
	}
	typeOf := func(m features.MeasuredBest) string {
		if m.Type != "" {
			return m.Type
		}
		return types[m.Device]
	}
	sameType := false // an unknown type copies from every device
	for _, m := range b.Measured {
		if plat.Type != "" && typeOf(m) == plat.Type {
			sameType = true
			break
		}
	}
	at := map[string]int{}
	for _, m := range b.Measured {
		if len(m.Task) != len(b.TaskNames) || !c.space.Valid(m.Config) || (sameType && typeOf(m) != plat.Type) {
			continue
		}
		i, ok := at[m.Device]
		if !ok {
			i = len(c.copies)
			at[m.Device] = i
			c.copies = append(c.copies, copySource{source: SourceCopy + ":" + m.Device})
		}
		c.copies[i].logs = append(c.copies[i].logs, logs(m.Task))
		c.copies[i].configs = append(c.copies[i].configs, m.Config)
	}
	if c.copies != nil {
		c.source = SourceCopy
	}
}

// policy is the unseen-device policy in force: Options.Unseen, else the
// bundle's, else copying.
func (c *Chooser) policy(b *features.Bundle, opt Options) string {
	switch {
	case opt.Unseen != "":
		return opt.Unseen
	case b.Unseen != nil:
		return b.Unseen.Policy
	}
	return features.UnseenCopy
}

// copy returns, of each copy source's best configuration at its shape
// nearest t (log scale), the one the fleet model predicts fastest on the
// device; the fleet model's search when none can run on the device.
func (c *Chooser) copy(t features.Task) Pick {
	l := logs(t)
	batch := make([]features.Config, 0, len(c.copies))
	from := make([]string, 0, len(c.copies))
	for _, src := range c.copies {
		bi, bd := -1, math.Inf(1)
		for i, g := range src.logs {
			d := 0.0
			for f := range l {
				x := l[f] - g[f]
				d += x * x
			}
			if d < bd {
				bi, bd = i, d
			}
		}
		if bi >= 0 && c.runs(t, src.configs[bi]) {
			batch, from = append(batch, src.configs[bi]), append(from, src.source)
		}
	}
	if len(batch) == 0 {
		return c.search(t)
	}
	vals, oks := make([]float64, len(batch)), make([]bool, len(batch))
	c.model.Scorer(t).ScoreBatch(batch, vals, oks)
	best := -1
	for i := range batch {
		if oks[i] && (best < 0 || vals[i] > vals[best]) {
			best = i
		}
	}
	if best < 0 {
		// Every copy lies beyond the fleet model's resource limits
		// (Model.Limits), where its predictions mean nothing: the first
		// device's, in the bundle's order.
		best, vals[0] = 0, 0
	}
	return Pick{Config: batch[best].Clone(), LogSpeedup: vals[best], Model: c.model.Name, Source: from[best],
		OutsideOctaves: c.outside(t), ExpectedPct: c.expected[0], WorstPct: c.expected[1]}
}
