package tune

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/augur-tuning/augur/collect"
	"github.com/augur-tuning/augur/collect/record"
	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/runtime"
	"github.com/augur-tuning/augur/train"
)

// QuickstartOptions configure Quickstart. The zero value runs conv2d on
// device 0 with the default shapes and sample sizes, writing under
// ./augur-quickstart.
type QuickstartOptions struct {
	// Out is the directory for the collected data and the model bundle;
	// "" means "augur-quickstart".
	Out string
	// Device is the OpenCL device index.
	Device int
	// Kernel is the kernel family; "" means "conv2d".
	Kernel string
	// Spec is the kernel itself, such as one read from a spec file
	// (datasets.ReadSpec); nil looks Kernel up among augur's families.
	Spec *datasets.Kernel
	// TrainShapes are collected and trained on; nil means a default set.
	TrainShapes []features.Task
	// HoldoutShapes are never trained on; nil means a default set.
	HoldoutShapes []features.Task
	// TrainSample is the number of random configurations measured per
	// training shape; 0 means 300.
	TrainSample int
	// HoldoutSample is the size of the random sample whose best the
	// choice is compared with, per held-out shape; 0 means 300. When the
	// space is no larger, the whole space is measured.
	HoldoutSample int
	// Repeats is the number of timed runs per configuration; 0 means 5.
	Repeats int
	// Seed drives every random choice; 0 means 1.
	Seed uint64
	// Progress receives progress bars and stage lines; nil means quiet.
	Progress io.Writer
}

// HoldoutResult is one row of the quickstart table: a shape the model
// never saw.
type HoldoutResult struct {
	Task features.Task
	// RefMs, ChosenMs and BestMs are median kernel times in milliseconds:
	// of the reference configuration, of the configuration Choose
	// returned, and of the fastest configuration measured (the chosen one
	// included).
	RefMs, ChosenMs, BestMs float64
	// Measured is the number of configurations behind BestMs, and
	// Exhaustive whether that was the whole space.
	Measured   int
	Exhaustive bool
	Chosen     features.Config
	// ChooseTime is how long Choose took on this shape, cold.
	ChooseTime time.Duration
	// FirstPassPct is the chosen configuration's % of the best in the
	// first, single pass over the sample, before confirmation.
	FirstPassPct float64
	// Confirmed is the number of configurations (the chosen one and the
	// fastest of the sample) timed again, twice, with three times the
	// repeats; ChosenMs and BestMs are the means of their two medians.
	Confirmed int
	// PassSpread is how far the two confirming passes' medians of one
	// configuration lie apart, as % of their mean: the median over the
	// confirmed configurations. PctOfBest is uncertain by about as much
	// (7-11% on the 2-core development VM's CPU device, idle or loaded:
	// bench/RESULTS.md, session 35).
	PassSpread float64
}

// confirmTop is how many of the sample's fastest configurations a
// held-out shape times again.
const confirmTop = 8

// PctOfBest is the chosen configuration's speed as a percentage of the best
// measured.
func (r HoldoutResult) PctOfBest() float64 { return 100 * r.BestMs / r.ChosenMs }

// QuickstartResult is everything Quickstart measured.
type QuickstartResult struct {
	Kernel    string
	Device    features.Platform
	DataDir   string
	Bundle    string
	Train     *train.Report
	Holdout   []HoldoutResult
	TaskNames []string
	Wall      time.Duration
}

// quickstartShapes are each family's default quickstart shapes, sized for
// a CPU device: on one, compiling dominates (PoCL builds one program at a
// time, about 0.7 s on the 2-core machine), so every shape of a family
// shares the compile-time task features (conv2d's filter, median's filter,
// fbcorr's depth, filters and filter size) and the training sample and the
// held-out sample share every program; and the runs stay in milliseconds.
var quickstartShapes = map[string]struct{ train, holdout []features.Task }{
	"conv2d": {
		train:   []features.Task{{1024, 1024, 5, 5}, {2048, 1024, 5, 5}, {512, 2048, 5, 5}, {768, 768, 5, 5}, {1024, 640, 5, 5}},
		holdout: []features.Task{{1536, 1024, 5, 5}, {1280, 1280, 5, 5}},
	},
	"gemm": {
		train:   []features.Task{{256, 256, 256}, {512, 256, 128}, {256, 512, 256}, {384, 384, 384}, {128, 512, 512}},
		holdout: []features.Task{{512, 384, 256}, {256, 256, 512}},
	},
	"median": {
		train:   []features.Task{{512, 512, 5}, {768, 512, 5}, {512, 768, 5}, {640, 640, 5}, {1024, 384, 5}},
		holdout: []features.Task{{896, 640, 5}, {700, 700, 5}},
	},
	"fbcorr": {
		train: []features.Task{
			{128, 128, 4, 16, 5, 5}, {192, 128, 4, 16, 5, 5}, {128, 256, 4, 16, 5, 5}, {256, 192, 4, 16, 5, 5}, {160, 160, 4, 16, 5, 5},
		},
		holdout: []features.Task{{224, 224, 4, 16, 5, 5}, {256, 128, 4, 16, 5, 5}},
	},
}

func (o *QuickstartOptions) defaults() {
	if o.Out == "" {
		o.Out = "augur-quickstart"
	}
	if o.Kernel == "" {
		o.Kernel = "conv2d"
	}
	if shapes, ok := quickstartShapes[o.Kernel]; ok {
		if o.TrainShapes == nil {
			o.TrainShapes = shapes.train
		}
		if o.HoldoutShapes == nil {
			o.HoldoutShapes = shapes.holdout
		}
	}
	if o.TrainSample == 0 {
		o.TrainSample = 300
	}
	if o.HoldoutSample == 0 {
		o.HoldoutSample = 300
	}
	if o.Repeats == 0 {
		o.Repeats = 5
	}
	if o.Seed == 0 {
		o.Seed = 1
	}
}

func (o *QuickstartOptions) say(format string, args ...any) {
	if o.Progress != nil {
		fmt.Fprintf(o.Progress, format+"\n", args...)
	}
}

// Quickstart runs the end-to-end demonstration on a real device: collect,
// train, choose for held-out shapes, and measure the choices.
func Quickstart(ctx context.Context, opt QuickstartOptions) (*QuickstartResult, error) {
	opt.defaults()
	start := time.Now()
	k, err := opt.kernel()
	if err != nil {
		return nil, err
	}
	if err := opt.shapes(k); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(opt.Out, 0o755); err != nil {
		return nil, fmt.Errorf("tune: %w", err)
	}
	res := &QuickstartResult{Kernel: k.Name, DataDir: filepath.Join(opt.Out, "data"), Bundle: filepath.Join(opt.Out, k.Name+".augur"), TaskNames: k.TaskNames}

	// The training sample is a prefix of the held-out comparison sample, so
	// that most programs the comparison needs are compiled (and cached by
	// the OpenCL driver) once.
	rng := rand.New(rand.NewPCG(opt.Seed, 0x9e3779b9))
	sample := k.Space.Sample(rng, max(opt.TrainSample, opt.HoldoutSample))
	sum, err := quickstartCollect(ctx, k, res.DataDir, sample[:min(opt.TrainSample, len(sample))], opt)
	if err != nil {
		return nil, err
	}
	res.Device = sum.Platform
	ch, err := quickstartTrain(k, res, opt)
	if err != nil {
		return nil, err
	}
	for i, t := range opt.HoldoutShapes {
		opt.say("3/3 held-out shape %d of %d, %s: choose, then measure the choice, the reference and %d others",
			i+1, len(opt.HoldoutShapes), features.FormatTask(k.TaskNames, t), min(opt.HoldoutSample, len(sample)))
		h, err := quickstartHoldout(ctx, k, ch, t, sample[:min(opt.HoldoutSample, len(sample))], res.Device, opt)
		if err != nil {
			return nil, err
		}
		res.Holdout = append(res.Holdout, h)
	}
	res.Wall = time.Since(start)
	return res, nil
}

// kernel is opt.Spec, or the family opt.Kernel names.
func (o *QuickstartOptions) kernel() (*datasets.Kernel, error) {
	if o.Spec != nil {
		return o.Spec, nil
	}
	k, err := datasets.Lookup(o.Kernel)
	if err != nil {
		return nil, fmt.Errorf("tune: %w", err)
	}
	return k, nil
}

// shapes fills the training and held-out shapes of a family without
// quickstart shapes (one defined elsewhere), its own but the last two and
// those two, and checks that both are valid and apart.
func (o *QuickstartOptions) shapes(k *datasets.Kernel) error {
	if n := len(k.Tasks); (o.TrainShapes == nil || o.HoldoutShapes == nil) && n >= 3 {
		if o.TrainShapes == nil {
			o.TrainShapes = k.Tasks[:n-2]
		}
		if o.HoldoutShapes == nil {
			o.HoldoutShapes = k.Tasks[n-2:]
		}
	}
	if len(o.TrainShapes) == 0 || len(o.HoldoutShapes) == 0 {
		return fmt.Errorf("tune: kernel %s has %d shapes of its own; give training and held-out shapes", k.Name, len(k.Tasks))
	}
	for _, t := range append(append([]features.Task{}, o.TrainShapes...), o.HoldoutShapes...) {
		if err := k.CheckTask(t); err != nil {
			return fmt.Errorf("tune: shape %s: %w", features.FormatTask(k.TaskNames, t), err)
		}
	}
	trained := map[features.TaskKey]bool{}
	for _, t := range o.TrainShapes {
		trained[t.Key()] = true
	}
	for _, t := range o.HoldoutShapes {
		if trained[t.Key()] {
			return fmt.Errorf("tune: held-out shape %s is also a training shape", features.FormatTask(k.TaskNames, t))
		}
	}
	return nil
}

// quickstartCollect measures configs on the training shapes into dir, then
// confirms each shape's fastest.
func quickstartCollect(ctx context.Context, k *datasets.Kernel, dir string, configs []features.Config, opt QuickstartOptions) (*collect.Summary, error) {
	opt.say("1/3 collect: %d shapes x %d random configurations of %s on device %d", len(opt.TrainShapes), opt.TrainSample, k.Name, opt.Device)
	sum, err := collect.Run(ctx, k, dir, collect.Options{
		Device: opt.Device, Tasks: opt.TrainShapes, Configs: configs,
		Repeats: opt.Repeats, Seed: opt.Seed, Progress: opt.Progress,
	})
	if err != nil {
		return nil, fmt.Errorf("tune: %w", err)
	}
	opt.say("   %s", sum)
	// Timings on a CPU device are noisy: the training shapes' fastest
	// configurations are timed again with more repeats, so that the model
	// learns the top of each shape from medians it can trust.
	csum, err := collect.Confirm(ctx, k, dir, collect.Options{Device: opt.Device, Repeats: opt.Repeats, Seed: opt.Seed},
		collect.ConfirmOptions{Top: confirmTop})
	if err != nil {
		return nil, fmt.Errorf("tune: %w", err)
	}
	opt.say("   confirmed: %s", csum)
	return sum, nil
}

// quickstartTrain trains on res.DataDir, writes the bundle to res.Bundle
// and returns the runtime for the device's own model.
func quickstartTrain(k *datasets.Kernel, res *QuickstartResult, opt QuickstartOptions) (*runtime.Chooser, error) {
	opt.say("2/3 train: learner chosen by its picks on held-out shapes, then 5-fold cross-validation")
	topt := train.Options{Kernel: k.Name, Seed: opt.Seed}
	if k.FromSpec() {
		topt.Load.Derived = k.Derived
	}
	b, rep, err := train.Train(res.DataDir, topt)
	if err != nil {
		return nil, fmt.Errorf("tune: %w", err)
	}
	if err := k.Attach(b); err != nil {
		return nil, fmt.Errorf("tune: %w", err)
	}
	res.Train = rep
	if err := features.WriteBundleFile(res.Bundle, b); err != nil {
		return nil, fmt.Errorf("tune: %w", err)
	}
	opt.say("   %s", strings.ReplaceAll(rep.String(), "\n", "\n   "))
	ch, err := runtime.FromBundle(b, runtime.Options{Model: res.Device.Slug()})
	if err != nil {
		return nil, fmt.Errorf("tune: %w", err)
	}
	return ch, nil
}

// quickstartHoldout chooses for held-out shape t and measures the choice
// against the sample, writing the held-out measurements beside the
// training data, not into it, so that a later train run does not see them
// by accident.
func quickstartHoldout(ctx context.Context, k *datasets.Kernel, ch *runtime.Chooser, t features.Task, sample []features.Config, dev features.Platform, opt QuickstartOptions) (HoldoutResult, error) {
	h, rows, err := measureHoldout(ctx, k, ch, t, sample, opt)
	if err != nil {
		return h, err
	}
	path := filepath.Join(opt.Out, "holdout", k.Name, dev.Slug(), fmt.Sprintf("holdout-%s-%s.arrow",
		strings.ReplaceAll(features.FormatTask(k.TaskNames, t), ",", "_"), time.Now().UTC().Format("20060102T150405Z")))
	if err := writeRows(path, collect.Meta(k, dev), rows); err != nil {
		return h, fmt.Errorf("tune: %w", err)
	}
	return h, nil
}

func measureHoldout(ctx context.Context, k *datasets.Kernel, ch *runtime.Chooser, t features.Task, sample []features.Config, opt QuickstartOptions) (HoldoutResult, []record.Row, error) {
	begin := time.Now()
	chosen, err := ch.Choose(t)
	h := HoldoutResult{Task: t, Chosen: chosen.Clone(), ChooseTime: time.Since(begin)}
	if err != nil {
		return h, nil, fmt.Errorf("tune: %w", err)
	}
	h.Exhaustive = len(sample) == k.Space.Len()
	// The chosen and the reference configuration go where a seeded shuffle
	// puts them among the sample: on a CPU device the first kernels of a
	// session run slow, and the first pass would otherwise always time the
	// chosen one first.
	list, chosenAt, refAt := holdoutOrder(chosen, k.Reference, sample, rand.New(rand.NewPCG(opt.Seed, taskSeed(t)^1)))
	rows, err := collect.Measure(ctx, k, t, list, collect.Options{Device: opt.Device, Repeats: opt.Repeats, Seed: opt.Seed, Progress: opt.Progress})
	if err != nil {
		return h, nil, fmt.Errorf("tune: %w", err)
	}
	ms := func(r record.Row) float64 {
		if r.Status != record.StatusOK {
			return math.Inf(1)
		}
		return r.TimeNs / 1e6
	}
	h.ChosenMs, h.RefMs, h.BestMs = ms(rows[chosenAt]), ms(rows[refAt]), math.Inf(1)
	for _, r := range rows {
		if r.Status == record.StatusOK {
			h.Measured++
		}
		h.BestMs = min(h.BestMs, ms(r))
	}
	h.FirstPassPct = 100 * h.BestMs / h.ChosenMs
	// The fastest of hundreds of noisy timings is partly luck: confirm the
	// chosen configuration and the confirmTop fastest with three times the
	// repeats, and compare those medians.
	order := make([]int, 0, len(rows))
	for i, r := range rows {
		if i != chosenAt && i != refAt && r.Status == record.StatusOK {
			order = append(order, i)
		}
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(rows[a].TimeNs, rows[b].TimeNs) })
	confirm := []features.Config{chosen}
	for _, i := range order[:min(confirmTop, len(order))] {
		if !rows[i].Config.Equal(chosen) {
			confirm = append(confirm, rows[i].Config)
		}
	}
	// On a CPU device the first kernels of a new session run slow (thread
	// pools, caches), so the list is timed twice, in opposite orders: no
	// configuration is always first.
	// Each configuration's time is the mean of its two medians: the
	// minimum would favour whichever of many configurations was luckiest.
	best := make([]float64, len(confirm))
	sum := make([]float64, len(confirm))
	var passes [2][]float64
	// A shuffled order, then its reverse: the chosen configuration sits
	// wherever chance puts it.
	perm := rand.New(rand.NewPCG(opt.Seed, taskSeed(t))).Perm(len(confirm))
	for pass := 0; pass < 2; pass++ {
		if pass == 1 {
			slices.Reverse(perm)
		}
		list := make([]features.Config, len(perm))
		for j, i := range perm {
			list[j] = confirm[i]
		}
		again, err := collect.Measure(ctx, k, t, list, collect.Options{Device: opt.Device, Repeats: 3 * opt.Repeats, Seed: opt.Seed})
		if err != nil {
			return h, nil, fmt.Errorf("tune: %w", err)
		}
		passes[pass] = make([]float64, len(confirm))
		for j, r := range again {
			sum[perm[j]] += ms(r) / 2
			passes[pass][perm[j]] = ms(r)
		}
	}
	h.PassSpread = passSpread(passes[0], passes[1])
	copy(best, sum)
	if best[0] < math.Inf(1) {
		h.ChosenMs = best[0]
		h.BestMs = slices.Min(best)
		h.Confirmed = len(confirm)
	}
	return h, rows, nil
}

// passSpread returns the median over configurations timed in both passes
// of |a - b| as % of their mean; 0 when none was.
func passSpread(a, b []float64) float64 {
	var d []float64
	for i := range a {
		if !math.IsInf(a[i], 0) && !math.IsInf(b[i], 0) && a[i]+b[i] > 0 {
			d = append(d, 200*math.Abs(a[i]-b[i])/(a[i]+b[i]))
		}
	}
	if len(d) == 0 {
		return 0
	}
	slices.Sort(d)
	if len(d)%2 == 1 {
		return d[len(d)/2]
	}
	return (d[len(d)/2-1] + d[len(d)/2]) / 2
}

// holdoutOrder returns chosen, ref and sample in the order rng shuffles
// them to, and where chosen and ref went.
func holdoutOrder(chosen, ref features.Config, sample []features.Config, rng *rand.Rand) (list []features.Config, chosenAt, refAt int) {
	configs := append([]features.Config{chosen, ref}, sample...)
	list = make([]features.Config, len(configs))
	for j, i := range rng.Perm(len(configs)) {
		list[j] = configs[i]
		switch i {
		case 0:
			chosenAt = j
		case 1:
			refAt = j
		}
	}
	return list, chosenAt, refAt
}

// writeRows writes rows to a new dataset file at path.
func writeRows(path string, meta record.Meta, rows []record.Row) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	w, err := record.NewWriter(path, meta, 0)
	if err != nil {
		return err
	}
	for _, r := range rows {
		if err := w.Write(r); err != nil {
			w.Close()
			return err
		}
	}
	return w.Close()
}

// WriteTable prints the quickstart table: one row per held-out shape.
func (r *QuickstartResult) WriteTable(w io.Writer) error {
	fmt.Fprintf(w, "device: %s (%s, %s)\n", r.Device.Slug(), r.Device.Name, r.Device.DriverVersion)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "shape\treference ms\tchosen ms\tbest ms\tchosen % of best\tfirst pass %\tbest of\tpasses differ\tchoose latency\t")
	for _, h := range r.Holdout {
		of := fmt.Sprintf("%d random", h.Measured)
		if h.Exhaustive {
			of = fmt.Sprintf("all %d", h.Measured)
		}
		fmt.Fprintf(tw, "%s\t%.3f\t%.3f\t%.3f\t%.1f%%\t%.1f%%\t%s\t%.1f%%\t%s\t\n", features.FormatTask(r.TaskNames, h.Task),
			h.RefMs, h.ChosenMs, h.BestMs, h.PctOfBest(), h.FirstPassPct, of, h.PassSpread, h.ChooseTime.Round(time.Microsecond))
	}
	if err := tw.Flush(); err != nil {
		return err
	}

	fmt.Fprintf(w, "data: %s  model: %s  wall: %s\n", r.DataDir, r.Bundle, r.Wall.Round(time.Second))
	return nil
}

// taskSeed hashes a shape (FNV-1a) into a PCG stream number.
func taskSeed(t features.Task) uint64 {
	h := uint64(14695981039346656037)
	for _, v := range t {
		h ^= uint64(v)
		h *= 1099511628211
	}
	return h
}
