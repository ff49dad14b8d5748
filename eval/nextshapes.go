package eval

import (
	"fmt"
	"math"
	"strings"

	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/train"
)

// NextShapes are the shapes NextShapesFor suggests one device measure
// next, in the order to measure them.
type NextShapes struct {
	Platform string `json:"platform"`
	// Measured is the number of shapes the device has a measured
	// configuration of.
	Measured int         `json:"measured_shapes"`
	Shapes   []NextShape `json:"shapes"`
	// New says the data holds no row of the device: its shapes were
	// chosen from the pool alone.
	New bool `json:"new_device,omitempty"`
	// Unfit are the shapes of the pool the device cannot run the
	// kernel's reference configuration of, as far as its recorded limits
	// tell (local memory, work-group size...): collect skips such a shape,
	// so they are never suggested. Empty for imported data, whose kernel
	// augur cannot launch.
	Unfit []UnfitShape `json:"unfit,omitempty"`
}

// UnfitShape is a shape a device cannot run the reference of, and why.
type UnfitShape struct {
	Shape  string `json:"shape"`
	Reason string `json:"reason"`
}

// NextShape is one suggested shape: Nearest is the shape nearest it among
// those measured and those suggested before it, Doublings their distance
// in doublings (the Euclidean distance of their values' base-2 logs: a
// width twice as large is 1; a shape twice as wide and twice as high
// 1.41). Nearest is "" and Doublings 0 for the first shape of a device
// that measured none.
type NextShape struct {
	Shape     string  `json:"shape"`
	Nearest   string  `json:"nearest"`
	Doublings float64 `json:"doublings"`
}

// NextShapesFor suggests, for each device of the kernel's data under dir
// (or only device, by slug or name, when it is not ""), the n shapes of
// pool ("name=value,..." each, as features.ParseTask reads them with the
// data's task names, problem_size_I too; checked against the kernel, when
// it is augur's or Options.Spec) to measure next: each the farthest from
// every shape the device measured and every shape suggested before it
// (features.LogShapes.FarthestFirst, in the log space where the runtime
// finds nearest shapes). Held-out picks fall with the distance to the
// nearest training shape (on the shipped data, 95.6% of the best under
// 0.75 doublings, 92.9% at 1.25 to 2). The rule beat random shapes there,
// modestly: models trained on 3 to 10 shapes chosen so (from a random
// first) picked for the other shapes 1.2 points better than models trained
// on as many shapes drawn at random, on average over 41 (kernel, device,
// count) cases, better in 24 (bench/RESULTS.md, session 33). Pool shapes
// the device measured are never suggested, nor those the device cannot run
// the kernel's reference configuration of (NextShapes.Unfit). A device the
// data lacks gets a first set: the medoid of pool, then farthest first
// from it, with its limits unknown. Options.Kernel, Spec, Derived,
// GroupParams and Tasks apply.
func NextShapesFor(dir string, opt Options, device string, pool []string, n int) ([]NextShapes, error) {
	if n < 1 {
		return nil, fmt.Errorf("eval: NextShapesFor: n must be at least 1, got %d", n)
	}
	if len(pool) == 0 {
		return nil, fmt.Errorf("eval: NextShapesFor: no shapes to choose from")
	}
	if err := opt.defaults(); err != nil {
		return nil, err
	}
	d, err := train.LoadWith(dir, opt.Kernel, opt.loadOptions(true))
	if err != nil {
		return nil, err // train and record name themselves
	}
	k := opt.Spec
	if k == nil {
		k, _ = datasets.Lookup(opt.Kernel) // nil for imported data
	}
	tasks := make([]features.Task, len(pool))
	var logs features.LogShapes
	for i, text := range pool {
		if tasks[i], err = features.ParseTask(d.TaskNames, features.AliasProblemSizes(d.TaskNames, text)); err == nil && k != nil {
			err = k.CheckTask(tasks[i]) // no shape collect would refuse
		}
		if err != nil {
			return nil, fmt.Errorf("eval: a shape to choose from: %w", err)
		}
		logs = append(logs, features.TaskLogs(nil, tasks[i]))
	}
	var out []NextShapes
	for pi, p := range d.Platforms {
		if device != "" && !strings.EqualFold(p.Slug(), device) && !strings.EqualFold(p.Name, device) {
			continue
		}
		var measured []features.Task
		seen := map[features.TaskKey]bool{}
		for _, s := range d.Samples() {
			if s.Platform == pi && s.Measured() && !seen[s.Task.Key()] {
				seen[s.Task.Key()] = true
				measured = append(measured, s.Task)
			}
		}
		ns := NextShapes{Platform: p.Slug(), Measured: len(measured)}
		var fit []int // indices into pool
		for i, t := range tasks {
			if err := referenceRuns(k, t, p); err != nil && !seen[t.Key()] {
				ns.Unfit = append(ns.Unfit, UnfitShape{Shape: features.FormatTask(d.TaskNames, t), Reason: err.Error()})
				continue
			}
			fit = append(fit, i)
		}
		ns.Shapes = farthestFirst(d.TaskNames, measured, tasks, logs, fit, n)
		out = append(out, ns)
	}
	if len(out) == 0 {
		// A device with no data: the shapes alone decide, and its limits
		// are not known.
		fit := make([]int, len(tasks))
		for i := range fit {
			fit[i] = i
		}
		out = append(out, NextShapes{Platform: device, New: true, Shapes: farthestFirst(d.TaskNames, nil, tasks, logs, fit, n)})
	}
	return out, nil
}

// farthestFirst suggests n of the pool shapes fit (indices into tasks,
// whose logs are logs), farthest first from measured and each other.
func farthestFirst(names []string, measured, tasks []features.Task, logs features.LogShapes, fit []int, n int) []NextShape {
	var have, fitLogs features.LogShapes
	for _, t := range measured {
		have = append(have, features.TaskLogs(nil, t))
	}
	for _, i := range fit {
		fitLogs = append(fitLogs, logs[i])
	}
	chosen, _ := have.FarthestFirst(fitLogs, n)
	near := append([]features.Task(nil), measured...)
	var out []NextShape
	for _, c := range chosen {
		i := fit[c]
		s := NextShape{Shape: features.FormatTask(names, tasks[i])}
		if j := have.NearestOne(logs[i]); j >= 0 {
			s.Nearest = features.FormatTask(names, near[j])
			s.Doublings = features.LogDistance(logs[i], have[j]) / math.Ln2
		}
		out = append(out, s)
		have, near = append(have, logs[i]), append(near, tasks[i])
	}
	return out
}

// referenceRuns returns why device p cannot run k's reference
// configuration at shape t, as far as its recorded limits tell; nil when
// it can, or when k is nil.
func referenceRuns(k *datasets.Kernel, t features.Task, p features.Platform) error {
	if k == nil {
		return nil
	}
	l, err := k.Geometry(t, k.Reference)
	if err == nil {
		err = l.CheckLimits(p)
	}
	if err == nil {
		err = k.CheckDevice(k.Reference, p)
	}
	if err != nil {
		return fmt.Errorf("the reference configuration: %w", err)
	}
	return nil
}
