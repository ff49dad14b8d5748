package collect

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/augur-tuning/augur/collect/record"
	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/features"
)

// ConfirmOptions configures Confirm. The zero value re-times each shape's
// 10 fastest configurations with 3 times the repeats of opt.
type ConfirmOptions struct {
	// Top is how many of each shape's fastest configurations are timed
	// again; 0 means 10.
	Top int
	// Repeats is the timed runs of the second pass; 0 means three times
	// the first pass's (Options.Repeats, or its default).
	Repeats int
	// MaxCV also re-times every ok row, fast or not, whose timings'
	// coefficient of variation exceeds it; 0 re-times by rank only.
	MaxCV float64
	// Anchors is how many more of each shape's ok rows, drawn at random
	// (seeded by Options.Seed) from those not re-timed for their rank,
	// are timed again the same way. The fastest rows come back slower
	// partly because their first timings were lucky; random rows do not,
	// so their new times over their first (Summary.Shift) tell a device
	// that now runs slower or faster as a whole, whose re-timed rows would
	// sit on another scale than the rest. 0 times none.
	Anchors int
	// Also are configurations to time again on the shapes they are keyed
	// by, beside the Top fastest: the picks and candidates an evaluation
	// judged (augur eval's JSON lists them), which outside the fastest
	// would be judged by their first, noisier timing. Those not recorded
	// ok on the shape, or already timed Repeats times, are passed over.
	Also map[features.TaskKey][]features.Config
}

// DriftWarn is how far the median of Summary.Shift may stray from 1
// before Confirm warns: three times the run-to-run variation of the
// median row on an idle GPU (1-2.5%, the coefficient of variation of
// the H200's and H100's conv2d rows).
const DriftWarn = 0.03

// Confirm is the second pass of a collection: the fastest of hundreds of
// noisy timings is partly luck, so every shape recorded under
// outDir/<kernel>/<device>/ gets its Top fastest ok configurations timed
// again with more repeats, written to a new file of the same directory.
// The trainer uses a later row with at least as many repeats instead of
// the earlier one (train.LoadWith), so targets and scores rest on the
// confirmed medians. Rows already timed with Repeats or more are not
// timed again, so Confirm resumes like Run.
//
// Confirm checks co first (Check), before any measurement.
func Confirm(ctx context.Context, k *datasets.Kernel, outDir string, opt Options, co ConfirmOptions) (*Summary, error) {
	began := time.Now()
	ropt, _, err := opt.resolve()
	if err != nil {
		return nil, err
	}
	if err := co.Check(); err != nil {
		return nil, err
	}
	if co.Top == 0 {
		co.Top = 10
	}
	if co.Repeats == 0 {
		co.Repeats = min(3*ropt.Repeats, MaxRepeats)
	}
	devs, err := ListDevices()
	if err != nil {
		return nil, err
	}
	if opt.Device >= len(devs) {
		return nil, fmt.Errorf("collect: no device %d: the OpenCL devices are 0 to %d (augur devices lists them)", opt.Device, len(devs)-1)
	}
	plat := devs[opt.Device]
	dir := filepath.Join(outDir, k.Name, plat.Slug())
	files, _, err := record.ReadDirSkip(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("collect: confirm: nothing recorded for %s on %s under %s: the second pass times again what a collection recorded", k.Name, plat.Slug(), outDir)
	}
	if err != nil {
		return nil, fmt.Errorf("collect: confirm: %w", err)
	}
	// The second pass's file records the device's measured features as
	// the first pass measured them: measuring again would cost seconds
	// for nothing the confirmation needs.
	for _, f := range files {
		plat = plat.FillMeasured(f.Meta.Platform)
	}
	order, byShape := latestRows(files, k.Version())
	sum := &Summary{Platform: plat, Counts: map[record.Status]int{}, Second: true}
	// An interrupted pass reports its time too.
	defer func() { sum.Wall = time.Since(began) }()
	var w *record.Writer
	defer func() {
		if w != nil {
			w.Close()
		}
	}()
	for si, key := range order {
		sr := byShape[key]
		configs, refNs, anchors := toConfirm(sr.rows, co, co.Also[key], rand.New(rand.NewPCG(opt.Seed, uint64(si))))
		if len(configs) == 0 {
			continue
		}
		mopt := opt
		mopt.Repeats = co.Repeats
		rows, err := measureBothWays(ctx, k, sr.task, configs, mopt)
		if err != nil {
			return sum, err
		}
		for i, r := range rows {
			// The shape keeps the reference time its other rows were
			// scored against.
			if r.Status == record.StatusOK && refNs[i] > 0 {
				r.RefTimeNs = refNs[i]
				r.LogSpeedup = math.Log(r.RefTimeNs / r.TimeNs)
			}
			if first := sr.rows[fmt.Sprint(r.Config)]; i >= len(configs)-anchors && r.Status == record.StatusOK {
				sum.Shift = append(sum.Shift, r.TimeNs/first.TimeNs)
			}
			if w == nil {
				path := filepath.Join(dir, "confirm-"+time.Now().UTC().Format("20060102T150405.000Z")+".arrow")
				if err := os.MkdirAll(dir, 0o755); err != nil {
					return sum, fmt.Errorf("collect: %w", err)
				}
				if w, err = record.Create(path, Meta(k, plat), record.WriterOptions{Compression: opt.Compression, FlushRows: 1}); err != nil {
					return sum, fmt.Errorf("collect: %w", err)
				}
				sum.Path = path
			}
			if err := w.Write(r); err != nil {
				return sum, fmt.Errorf("collect: %w", err)
			}
			sum.Counts[r.Status]++
			if r.Status == record.StatusOK {
				sum.Spread.Add(r.TimeCV)
			}
		}
	}
	if w != nil {
		err := w.Close()
		w = nil
		if err != nil {
			return sum, fmt.Errorf("collect: %w", err)
		}
	}
	if note := driftNote(len(sum.Shift), sum.ShiftMedian(), plat.Type != "gpu"); note != "" {
		sum.Notes = append(sum.Notes, note)
		if opt.Log != nil {
			fmt.Fprintln(opt.Log, note)
		}
	}
	return sum, nil
}

// driftNote warns when n random rows re-timed at a median shift (new time
// over first) beyond DriftWarn: the device runs faster or slower than at the
// first pass. It is empty when no row was re-timed or the shift is within
// DriftWarn. On a CPU device (cpu) the likelier cause is other work on the
// host, which the note names; from fewer than 3 rows it says the shift is
// one or two rows' say.
func driftNote(n int, shift float64, cpu bool) string {
	if n == 0 || shift <= 0 || math.Abs(shift-1) <= DriftWarn {
		return ""
	}
	pace := "slower"
	if shift < 1 {
		pace = "faster"
	}
	note := fmt.Sprintf("collect: confirm: %s ran %.2fx their first timings (median): the device runs %s than when first measured, so the re-timed rows sit on another scale than the rest of their shapes; confirm on the same machine soon after collecting", count(n, "random row"), shift, pace)
	if cpu {
		note = fmt.Sprintf("collect: confirm: %s ran %.2fx their first timings (median): on a CPU device that is most often other work on the host, then or now; confirm while the host is idle, soon after collecting", count(n, "random row"), shift)
	}
	if n < 3 {
		note += fmt.Sprintf(" (from %s only: more --confirm-anchors tell more)", count(n, "row"))
	}
	return note
}

// shapeRows are one shape's rows, each configuration's latest.
type shapeRows struct {
	task features.Task
	rows map[string]record.Row
}

// latestRows groups the rows of files of kernel version version by shape
// (in the order first seen), keeping each configuration's row with the
// most repeats (the latest of equals).
func latestRows(files []record.File, version string) ([]features.TaskKey, map[features.TaskKey]*shapeRows) {
	var order []features.TaskKey
	byShape := map[features.TaskKey]*shapeRows{}
	for _, f := range files {
		if f.Meta.KernelVersion != version {
			continue
		}
		for _, r := range f.Rows {
			sr, ok := byShape[r.Task.Key()]
			if !ok {
				sr = &shapeRows{task: r.Task, rows: map[string]record.Row{}}
				byShape[r.Task.Key()] = sr
				order = append(order, r.Task.Key())
			}
			key := fmt.Sprint(r.Config)
			if old, ok := sr.rows[key]; !ok || r.Repeats >= old.Repeats {
				sr.rows[key] = r
			}
		}
	}
	return order, byShape
}

// toConfirm returns the configurations of a shape's rows that a
// confirmation times again (the co.Top fastest, the noisy and those of
// also, unless already timed co.Repeats times, then co.Anchors others
// drawn with rng, the last anchors of configs) and the reference times
// they were scored against.
func toConfirm(rows map[string]record.Row, co ConfirmOptions, also []features.Config, rng *rand.Rand) (configs []features.Config, refNs []float64, anchors int) {
	asked := map[string]bool{}
	for _, c := range also {
		asked[fmt.Sprint(c)] = true
	}
	var ok []record.Row
	for _, r := range rows {
		if r.Status == record.StatusOK && r.TimeNs > 0 {
			ok = append(ok, r)
		}
	}
	// Ties in time keep the configurations' order, so that the anchors
	// drawn do not depend on the map's.
	slices.SortFunc(ok, func(a, b record.Row) int {
		return cmp.Or(cmp.Compare(a.TimeNs, b.TimeNs), slices.Compare(a.Config, b.Config))
	})
	var rest []record.Row
	for i, r := range ok {
		noisy := co.MaxCV > 0 && r.TimeCV > co.MaxCV
		switch {
		case r.Repeats >= co.Repeats:
		case i < co.Top || noisy || asked[fmt.Sprint(r.Config)]:
			configs = append(configs, r.Config)
			refNs = append(refNs, r.RefTimeNs)
		default:
			rest = append(rest, r)
		}
	}
	if len(configs) == 0 {
		return nil, nil, 0
	}
	for _, j := range rng.Perm(len(rest))[:min(co.Anchors, len(rest))] {
		configs = append(configs, rest[j].Config)
		refNs = append(refNs, rest[j].RefTimeNs)
		anchors++
	}
	return configs, refNs, anchors
}

// measureBothWays times configs twice, in opposite orders, and keeps each
// configuration's faster row: on a CPU device the first kernels of a
// session run slow, and the fastest configuration would always be first.
func measureBothWays(ctx context.Context, k *datasets.Kernel, task features.Task, configs []features.Config, opt Options) ([]record.Row, error) {
	rows, err := Measure(ctx, k, task, configs, opt)
	if err != nil {
		return nil, err
	}
	rev := slices.Clone(configs)
	slices.Reverse(rev)
	back, err := Measure(ctx, k, task, rev, opt)
	if err != nil {
		return nil, err
	}
	for j, r := range back {
		i := len(rows) - 1 - j
		if r.Status == record.StatusOK && (rows[i].Status != record.StatusOK || r.TimeNs < rows[i].TimeNs) {
			rows[i] = r
		}
	}
	return rows, nil
}

// Check reports what is wrong with co, so that a caller can refuse it
// before a first pass that may take hours.
func (co ConfirmOptions) Check() error {
	if co.Top < 0 || co.Repeats < 0 || co.Repeats > MaxRepeats || !(co.MaxCV >= 0) || co.Anchors < 0 {
		return fmt.Errorf("collect: the second pass's count (ConfirmOptions.Top) must be >= 0, its repeats in [0, %d], its CV limit and anchors >= 0, got %d, %d, %g and %d",
			MaxRepeats, co.Top, co.Repeats, co.MaxCV, co.Anchors)
	}
	return nil
}
