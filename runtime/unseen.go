package runtime

import (
	"cmp"
	"math"
	"slices"

	"github.com/augur-tuning/augur/features"
)

// copySource is one device's measured bests (Bundle.Measured), which a
// device with no model of its own may copy.
type copySource struct {
	source  string      // "copy:<slug>", built once so that a pick allocates none
	logs    [][]float64 // ln of each measured shape's values
	tasks   []features.Task
	configs []features.Config
}

// unseenPolicy sets the Chooser up for a device that the fleet model
// (entry) serves with the device's platform features plat (nil: not such
// a device): it keeps the fleet model's search, within the limits of the
// device's type, or copies other devices' measured bests, as
// Options.Unseen or the bundle's policy says, for shapes another device
// measured and for new shapes apart.
func (c *Chooser) unseenPolicy(b *features.Bundle, entry *features.Model, opt Options, plat *features.Platform) {
	if c.source != SourceFleet || plat == nil || opt.Model != "" {
		return
	}
	measured, fresh := c.policies(b, opt)
	c.expectedNew = c.expected
	if u := b.Unseen; u != nil && u.PctGeomean != nil {
		// The picks were scored on held-out devices: a truer
		// expectation for a new device than the fleet model's held-out
		// shapes of the devices it was trained on.
		c.expected = [2]float64{u.PctGeomean[measured], u.PctWorstDevice[measured]}
		c.expectedNew = c.expected
		if u.NewShapes != "" && u.NewPctGeomean != nil {
			c.expectedNew = [2]float64{u.NewPctGeomean[fresh], u.NewPctWorstDevice[fresh]}
		}
	}
	// Copy from devices of the same type (a GPU's best from GPUs) when
	// there are any: a CPU's best configuration says nothing about a GPU's,
	// and the fleet model, which ranks the copies, knows least across
	// that divide.
	typeOf := b.MeasuredType
	sameType, typed := false, false // an unknown type copies from every device
	for _, m := range b.Measured {
		sameType = sameType || (plat.Type != "" && typeOf(m) == plat.Type)
		typed = typed || typeOf(m) != ""
	}
	if plat.Type != "" && typed && !sameType {
		// The held-out figures are those of devices of the bundle's
		// types: a GPU held out of GPUs says nothing of a CPU (the
		// Xeon held out of two GPUs got 46.4% of its optimum where the
		// GPUs got 95-96%; bench/RESULTS.md, session 26).
		c.expected, c.expectedNew = [2]float64{}, [2]float64{}
	}
	if sameType && !sharesType(b) && opt.Unseen == "" {
		// No two of the bundle's devices share a type, so training
		// decided the policy on devices held out with none of their
		// type to copy from: how copies across types fare. This device
		// has a source of its own type, which that says nothing of: at
		// a shape that source measured it copies, as a bundle with no
		// policy does (a GPU held out of a GPU and a CPU: the GPU's
		// copies 98.3% of its optimum, the fleet search 97.7%;
		// bench/RESULTS.md, session 29).
		measured = features.UnseenCopy
		c.expected = [2]float64{}
	}
	if l := entry.TypeLimits[plat.Type]; len(l) > 0 && plat.Type != "" {
		// The fleet model's limits are every device's: a CPU's
		// work-groups of 512 items beside a GPU whose driver runs 256.
		// The rows of this device's type vouch for what it runs.
		if m, err := c.model.WithLimits(l); err == nil {
			c.model = m
		}
	}
	c.copyMeasured, c.copyNew = measured == features.UnseenCopy, fresh == features.UnseenCopy
	if !c.copyMeasured && !c.copyNew {
		return
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
		c.copies[i].logs = append(c.copies[i].logs, features.TaskLogs(nil, m.Task))
		c.copies[i].tasks = append(c.copies[i].tasks, m.Task)
		c.copies[i].configs = append(c.copies[i].configs, m.Config)
	}
	if c.copies != nil {
		c.source = SourceCopy
		c.rankCopies()
	}
}

// sharesType reports whether two of the devices with measured bests in b
// are of one known type.
func sharesType(b *features.Bundle) bool {
	devices := map[string][]string{} // type: devices
	for _, m := range b.Measured {
		if t := b.MeasuredType(m); t != "" && !slices.Contains(devices[t], m.Device) {
			devices[t] = append(devices[t], m.Device)
			if len(devices[t]) > 1 {
				return true
			}
		}
	}
	return false
}

// rankCopies orders the copy sources by the fleet model's mean predicted
// log-speedup of their copies on the device, over every shape any source
// measured; copy then takes the first source whose copy runs. One device's
// bests, copied on every shape, hold up better than a choice between
// devices made shape by shape, which follows the model's error from shape
// to shape: the Xeon held out of a fleet of it, the H200 and the H100
// reached 34.0% of its optimum choosing per shape, 46.1% copying the H100
// everywhere (bench/RESULTS.md, 2026-11-26).
func (c *Chooser) rankCopies() {
	if len(c.copies) < 2 {
		return
	}
	var tasks []features.Task
	for _, src := range c.copies {
		tasks = append(tasks, src.tasks...)
	}
	mean := make([]float64, len(c.copies))
	vals, oks := make([]float64, 1), make([]bool, 1)
	for i, src := range c.copies {
		n := 0
		for _, t := range tasks {
			cfg := src.configs[src.nearest(features.TaskLogs(nil, t))]
			c.model.Scorer(t).ScoreBatch([]features.Config{cfg}, vals, oks)
			if oks[0] {
				mean[i] += vals[0]
				n++
			}
		}
		if n == 0 {
			mean[i] = math.Inf(-1)
		} else {
			mean[i] /= float64(n)
		}
	}
	order := make([]int, len(c.copies))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(mean[b], mean[a]) })
	ranked := make([]copySource, len(c.copies))
	for i, o := range order {
		ranked[i] = c.copies[o]
	}
	c.copies = ranked
}

// nearest is the index of src's measured shape nearest l (log scale), -1
// when it has none.
func (src copySource) nearest(l []float64) int { return features.LogShapes(src.logs).NearestOne(l) }

// policies are the unseen-device policies in force for a shape that a
// copy source measured and for a new one: Options.Unseen for both, else
// the bundle's, else copying.
func (c *Chooser) policies(b *features.Bundle, opt Options) (measured, fresh string) {
	switch {
	case opt.Unseen != "":
		return opt.Unseen, opt.Unseen
	case b.Unseen != nil:
		return b.Unseen.For(true), b.Unseen.For(false)
	}
	return features.UnseenCopy, features.UnseenCopy
}

// copy returns, of the copy sources' best configurations at their shapes
// nearest t (log scale), the first source's (rankCopies) that runs on the
// device; the fleet model's search when none can, or when the policy for
// t, a shape some source measured or a new one, is the search.
func (c *Chooser) copy(t features.Task) Pick {
	l := features.TaskLogs(nil, t)
	batch := make([]features.Config, 0, len(c.copies))
	from := make([]string, 0, len(c.copies))
	measured := false
	for _, src := range c.copies {
		bi := src.nearest(l)
		if bi < 0 {
			continue
		}
		measured = measured || slices.Equal(src.tasks[bi], t)
		if c.runs(t, src.configs[bi]) {
			batch, from = append(batch, src.configs[bi]), append(from, src.source)
		}
	}
	expected := c.expectedNew
	if measured {
		expected = c.expected
	}
	if len(batch) == 0 || (measured && !c.copyMeasured) || (!measured && !c.copyNew) {
		p := c.search(t)
		p.Source, p.ExpectedPct, p.WorstPct = SourceFleet, expected[0], expected[1]
		return p
	}
	vals, oks := make([]float64, len(batch)), make([]bool, len(batch))
	c.model.Scorer(t).ScoreBatch(batch, vals, oks)
	// The sources are in rankCopies' order: the first whose copy the
	// model can score.
	best := -1
	for i := range batch {
		if oks[i] {
			best = i
			break
		}
	}
	if best < 0 {
		// Every copy lies beyond the fleet model's resource limits
		// (Model.Limits), where its predictions mean nothing: the first
		// device's, in the bundle's order.
		best, vals[0] = 0, 0
	}
	return Pick{Config: batch[best].Clone(), LogSpeedup: vals[best], Model: c.model.Name, Source: from[best],
		OutsideOctaves: c.outside(t), ExpectedPct: expected[0], WorstPct: expected[1]}
}
