package collect

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/augur-tuning/augur/collect/opencl"
	"github.com/augur-tuning/augur/collect/record"
	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/features"
)

// sampleStream is the PCG stream of the configuration sample; the tasks'
// input data use other streams of the same seed.
const sampleStream = 0x5a3d1e

// Summary reports one Run.
type Summary struct {
	// Path is the file written, or "" when there was nothing new to
	// measure.
	Path     string
	Platform features.Platform
	// Counts holds the number of rows written, by status.
	Counts map[record.Status]int
	// Skipped is the number of (task, config) pairs found already
	// recorded by earlier runs.
	Skipped int
	// TaskErrors describes each task skipped because its arguments could
	// not be set up or its reference configuration failed.
	TaskErrors []string
	// Programs is the number of programs compiled successfully.
	Programs int
	// Wall is the run's elapsed time; DeviceBusy the device time spent in
	// kernels and transfers, from profiling events.
	Wall       time.Duration
	DeviceBusy time.Duration
	// Notes are the one-line warnings of the run, also written to
	// Options.Log as they happen: files recovered from a killed run,
	// unreadable files skipped, shapes given twice, noisy timings.
	Notes []string
	// Spread counts the ok rows written by the coefficient of variation
	// of their timed runs; its Median is what String prints and NoisyCV
	// warns of.
	Spread CVHistogram
	// Shift holds, for Confirm's random rows (ConfirmOptions.Anchors),
	// each new time over its first, in the order timed; nil for Run.
	Shift []float64
	// Second is set on Confirm's summary: a second pass counts neither
	// its programs nor the device's busy time, which String leaves out.
	Second bool
}

// ShiftMedian is the median of Shift, or 0 when it is empty.
func (s *Summary) ShiftMedian() float64 {
	if len(s.Shift) == 0 {
		return 0
	}
	xs := slices.Sorted(slices.Values(s.Shift))
	if n := len(xs); n%2 == 0 {
		return (xs[n/2-1] + xs[n/2]) / 2
	}
	return xs[len(xs)/2]
}

// NoisyCV is the median coefficient of variation of a run's timings
// above which Run warns. Timings on an otherwise idle GPU vary by 1-2.5%
// (the median row of the H200's and H100's conv2d data); the H100's
// conv2d collected in later sessions varied by 15%, which made its fastest
// configurations a matter of chance, and nothing said so at the time.
const NoisyCV = 0.10

// CVHistogram counts rows by coefficient of variation in steps of 1%
// (the last bin holds 100% and over): constant memory however long the
// run.
type CVHistogram [101]int

// Add counts one row's coefficient of variation.
func (h *CVHistogram) Add(cv float64) {
	if !(cv >= 0) {
		return
	}
	h[min(int(cv*100), len(h)-1)]++
}

// Median is the median coefficient of variation of the rows counted, to
// the bin's 1%: the middle of its bin; 0 when none were counted.
func (h *CVHistogram) Median() float64 {
	n := 0
	for _, c := range h {
		n += c
	}
	if n == 0 {
		return 0
	}
	seen := 0
	for i, c := range h {
		seen += c
		if 2*seen >= n {
			return (float64(i) + 0.5) / 100
		}
	}
	return 1
}

// note records a warning in s and writes it to log.
func (s *Summary) note(log io.Writer, format string, args ...any) {
	line := fmt.Sprintf(format, args...)
	s.Notes = append(s.Notes, line)
	if log != nil {
		fmt.Fprintln(log, "collect: "+line)
	}
}

// Rows is the number of rows written.
func (s *Summary) Rows() int {
	n := 0
	for _, c := range s.Counts {
		n += c
	}
	return n
}

// BusyPercent is the device's busy time as a percentage of the wall time:
// how much of the run measured, rather than compiled or waited.
func (s *Summary) BusyPercent() float64 {
	if s.Wall <= 0 {
		return 0
	}
	return 100 * float64(s.DeviceBusy) / float64(s.Wall)
}

// ListDevices describes every OpenCL device, in the order Options.Device
// indexes.
func ListDevices() ([]features.Platform, error) {
	devs, err := opencl.Devices()
	if err != nil {
		return nil, fmt.Errorf("collect: %w", err)
	}
	out := make([]features.Platform, len(devs))
	for i, d := range devs {
		out[i] = d.Platform()
	}
	return out, nil
}

// Run measures kernel k on the device opt.Device and writes the rows to
// <outDir>/<k.Name>/<platform slug>/run-<UTC time>.arrow (see the package
// documentation for the steps). Pairs recorded in that directory by
// earlier runs of the same kernel version are skipped. Failed measurements
// are rows; Run returns an error only for invalid options and
// infrastructure faults: no device, an unwritable directory, a cancelled
// ctx. The file is closed properly in every case, so what was measured is
// kept, and the Summary is returned along with any such error.
func Run(ctx context.Context, k *datasets.Kernel, outDir string, opt Options) (*Summary, error) {
	began := time.Now()
	if err := Check(k, opt); err != nil {
		return nil, err
	}
	opt, smp, _ := opt.resolve()
	shapes := opt.Tasks
	if shapes == nil {
		shapes = k.Tasks
	}
	sum := &Summary{}
	shapes, dups := dedupeTasks(shapes)
	for _, d := range dups {
		sum.note(opt.Log, "shape %s given %d times; measured once", features.FormatTask(k.TaskNames, d.task), d.times)
	}
	e, err := openEngine(k, opt)
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(outDir, k.Name, e.plat.Slug())
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, errors.Join(fmt.Errorf("collect: %w", err), e.close())
	}
	// One writer per directory (or per shard of one run): a second run
	// would measure every pair again (record.DirLock).
	lock, err := record.LockDir(dir, record.LockOptions{Shard: opt.Shard.Index, Shards: opt.Shard.Count})
	if err != nil {
		return nil, errors.Join(err, e.close())
	}
	defer lock.Unlock()
	if lock.Stale != "" {
		hint := ""
		if strings.Contains(lock.Stale, "; "+measuringPrefix) {
			hint = "; if that configuration killed it, it kills this run too where this run measures in its own process (--programs-per-process 0): child processes, collect's default, record it as a crash and go on"
		}
		sum.note(opt.Log, "took over the lock of a run that is gone (%s)%s", lock.Stale, hint)
	}
	e.report = &reporter{w: opt.Supervisor, lock: lock}
	if !opt.NoBench {
		if err := e.bench(ctx, sum, opt.Log); err != nil {
			return nil, errors.Join(err, e.close())
		}
	}
	sum.Platform, sum.Counts = e.plat, e.counts
	wopt := record.WriterOptions{BatchRows: opt.BatchRows, Compression: opt.Compression, FlushRows: 1}
	// What a killed run left is made readable first, so that resuming
	// skips its rows.
	recovered, err := record.Recover(dir, wopt)
	for _, r := range recovered {
		sum.note(opt.Log, "%s", r)
	}
	if err != nil {
		sum.note(opt.Log, "could not recover every file of an earlier run: %v", err)
	}
	h, err := recorded(dir, k.Version())
	if err != nil {
		return nil, errors.Join(err, e.close())
	}
	plan := opt.plan()
	if opt.Shard.Count > 1 {
		if other := slices.IndexFunc(h.plans, func(p string) bool { return p != plan }); other >= 0 {
			sum.note(opt.Log, "files in %s were collected with %q, this shard with %q: shards of one collection need the same sample, seed and number of shards, or their rows cover the space unevenly", dir, h.plans[other], plan)
		}
	}
	if h.others > 0 {
		sum.note(opt.Log, "%d earlier files in %s hold another version of %s (collected before the kernel or its spec changed): they are kept, nothing of them is resumed, and train and eval with this kernel read only this version's files", h.others, dir, k.Name)
	}
	for _, b := range h.bad {
		sum.note(opt.Log, "skipping an unreadable dataset file; its pairs are measured again: %v", b)
	}

	configs, wants, err := chooseConfigs(k, opt, smp, shapes, dir)
	if err != nil {
		return nil, errors.Join(err, e.close())
	}

	meta := Meta(k, e.plat)
	meta.Plan = plan
	out := &runFile{dir: dir, meta: meta, wopt: wopt, sum: sum, shard: opt.Shard}
	e.sink = out.write
	e.report.file(reportFile{Dir: dir, Meta: meta, Shard: opt.Shard, Compression: wopt.Compression})

	runErr := e.run(ctx, shapes, configs, wants, h, opt.Shard, &sum.Skipped)
	runErr = errors.Join(runErr, out.close())
	runErr = errors.Join(runErr, e.close())
	sum.TaskErrors = e.taskErrors
	if runErr == nil && len(e.tasks) > 0 && sum.Rows() == 0 && !slices.ContainsFunc(e.tasks, func(t *task) bool { return !t.failed }) {
		runErr = fmt.Errorf("collect: %w: %s", ErrNoShape, e.taskErrors[0])
	}
	sum.Programs = e.builds
	sum.DeviceBusy = time.Duration(e.busyNs)
	sum.Wall = time.Since(began)
	for _, t := range e.tasks {
		if t.declared {
			sum.note(opt.Log, "the reference configuration leaves part of an output unwritten or adds to it (on %s and maybe more): outputs start from the spec's fill, not NaN, so an element a configuration leaves unwritten is caught only where the reference's is not that fill", features.FormatTask(k.TaskNames, t.shape))
			break
		}
	}
	if cv := sum.Spread.Median(); cv > NoisyCV {
		sum.note(opt.Log, "timings are noisy: the median row's runs vary by %.0f%% (coefficient of variation; an idle GPU gives 1-2.5%%): something else on the device or its host may be disturbing them; time the fastest again with --confirm, or collect again with the device to itself", 100*cv)
	}
	return sum, runErr
}

// chooseConfigs returns the configurations a run measures, as its
// Options.Sample (already resolved into smp) says, and, when not nil,
// which of them each shape measures.
func chooseConfigs(k *datasets.Kernel, opt Options, smp sampling, shapes []features.Task, dir string) ([]features.Config, func(features.Task, features.Config) bool, error) {
	space, _ := where(k, opt.Where) // checked by Check
	rng := rand.New(rand.NewPCG(opt.Seed, sampleStream))
	switch {
	case opt.Configs != nil || smp.grid:
		list := opt.Configs
		if list == nil {
			list = k.Grid
		}
		var configs []features.Config
		for _, c := range list {
			if space.Valid(c) {
				configs = append(configs, c)
			}
		}
		return configs, nil, nil
	case smp.all:
		// In a seeded random order, so that a run stopped part way has
		// measured a uniform sample of the space rather than its first
		// corner.
		configs := space.All()
		rng.Shuffle(len(configs), func(i, j int) { configs[i], configs[j] = configs[j], configs[i] })
		return configs, nil, nil
	case smp.each:
		configs, wants := sampleEach(space, opt.Seed, shapes, smp.n)
		return configs, wants, nil
	case smp.refine:
		files, _, err := record.ReadDirSkip(dir)
		if err != nil {
			return nil, nil, fmt.Errorf("collect: refine from %s: %w", dir, err)
		}
		var rows []record.Row
		for _, f := range files {
			if f.Meta.KernelVersion == k.Version() {
				rows = append(rows, f.Rows...)
			}
		}
		configs, wants := RefineSet(space, rows, shapes, smp.n)
		return configs, wants, nil
	default:
		return space.Sample(rng, smp.n), nil, nil
	}
}

// runFile is the dataset file one run writes: created with the first row
// it owns, so that a run with nothing new leaves no empty file behind.
type runFile struct {
	dir   string
	meta  record.Meta
	wopt  record.WriterOptions
	sum   *Summary
	shard Shard
	w     *record.Writer
}

// write is the engine's sink: it records the rows this run's shard owns.
func (f *runFile) write(_ int, r record.Row) error {
	if !f.shard.Owns(r.Task, r.Config) {
		// A reference another shard records: timed here only for this
		// shard's log-speedups.
		f.sum.Counts[r.Status]--
		return nil
	}
	if f.w == nil {
		name := "run-" + time.Now().UTC().Format("20060102T150405.000Z")
		if f.shard.Count > 1 {
			// Shards started in the same millisecond write to one
			// directory.
			name += fmt.Sprintf("-shard%dof%d", f.shard.Index, f.shard.Count)
		}
		path := filepath.Join(f.dir, name+".arrow")
		w, err := record.Create(path, f.meta, f.wopt)
		if err != nil {
			return fmt.Errorf("collect: %w", err)
		}
		f.w, f.sum.Path = w, path
	}
	if err := f.w.Write(r); err != nil {
		return fmt.Errorf("collect: %w", err)
	}
	if r.Status == record.StatusOK {
		f.sum.Spread.Add(r.TimeCV)
	}
	return nil
}

// close closes the file, if the run wrote one.
func (f *runFile) close() error {
	if f.w == nil {
		return nil
	}
	if err := f.w.Close(); err != nil {
		return fmt.Errorf("collect: %w", err)
	}
	return nil
}

// Measure times configs on one task on the device opt.Device and returns
// their rows in the order of configs, writing nothing. The kernel's
// reference is measured first, so that the rows carry RefTimeNs and
// LogSpeedup; when it fails, Measure returns an error. Options.Tasks,
// Sample and BatchRows are ignored.
func Measure(ctx context.Context, k *datasets.Kernel, shape features.Task, configs []features.Config, opt Options) ([]record.Row, error) {
	opt, _, err := opt.resolve()
	if err != nil {
		return nil, err
	}
	if err := checkTasks(k, []features.Task{shape}); err != nil {
		return nil, err
	}
	for i, c := range configs {
		if err := k.Space.Check(c); err != nil {
			return nil, fmt.Errorf("collect: configuration %d: %w", i, err)
		}
	}
	e, err := openEngine(k, opt)
	if err != nil {
		return nil, err
	}
	rows := make([]record.Row, len(configs))
	e.sink = func(slot int, r record.Row) error {
		if slot >= 0 {
			rows[slot] = r
		}
		return nil
	}
	e.bar = newProgress(opt.Progress, len(configs)+1, k.Name)
	err = e.measureTask(ctx, shape, configs)
	e.bar.finish()
	if len(e.taskErrors) > 0 && err == nil {
		err = fmt.Errorf("collect: %s", e.taskErrors[0])
	}
	if err := errors.Join(err, e.close()); err != nil {
		return nil, err
	}
	return rows, nil
}

// measureTask is Measure's work: the reference, then configs.
func (e *engine) measureTask(ctx context.Context, shape features.Task, configs []features.Config) error {
	t, err := e.addTask(shape)
	if err != nil {
		return fmt.Errorf("collect: set up task: %w", err)
	}
	refSlot := -1
	for i, c := range configs {
		if c.Equal(e.k.Reference) {
			refSlot = i
			break
		}
	}
	ref, pruned := e.plan(t, e.k.Reference, refSlot)
	if pruned != nil {
		return fmt.Errorf("collect: reference %s: %s", e.k.FormatConfig(e.k.Reference), pruned.Error)
	}
	if err := e.execute(ctx, e.groupPairs([]pair{ref})); err != nil || t.failed {
		return err
	}
	var pairs []pair
	for i, c := range configs {
		if i == refSlot {
			continue
		}
		p, pruned := e.plan(t, c, i)
		if pruned != nil {
			if err := e.emit(i, *pruned); err != nil {
				return err
			}
			continue
		}
		pairs = append(pairs, p)
	}
	return e.execute(ctx, e.groupPairs(pairs))
}

// run is Run's work: references first, then every (task, config) pair
// that wants (nil: every pair) and the shard keep, not recorded in h.
func (e *engine) run(ctx context.Context, shapes []features.Task, configs []features.Config, wants func(features.Task, features.Config) bool,
	h history, shard Shard, skipped *int) error {
	done := h.done
	skip := func(s features.Task, c features.Config) bool {
		return c.Equal(e.k.Reference) || !shard.Owns(s, c) || (wants != nil && !wants(s, c))
	}
	work, total := e.pending(shapes, configs, skip, done, h.refs, shard, skipped)
	e.bar = newProgress(e.opt.Progress, total, e.k.Name)
	defer e.bar.finish()

	// Phase 1: set up the tasks and time the references not yet known.
	if err := e.timeReferences(ctx, work, h.crashed); err != nil {
		return err
	}
	// Memory growth (Options.MaxGrowthBytes) counts from here: the tasks'
	// buffers and expected outputs are the run's fixed cost, not growth.
	if rss := e.rss(); rss > 0 {
		e.startRSS = rss
	}

	// Phase 2: every other pair, configuration-major so that tasks sharing
	// build options sit next to each other before grouping.
	var pairs []pair
	for i, td := range work {
		t := e.tasks[i]
		if t.failed {
			e.bar.add(len(td.configs))
		}
	}
	for _, c := range configs {
		for i, td := range work {
			t := e.tasks[i]
			if t.failed || skip(td.shape, c) || done[pairKey(td.shape, c)] {
				continue
			}
			p, pruned := e.plan(t, c, -1)
			if pruned != nil {
				if err := e.emit(-1, *pruned); err != nil {
					return err
				}
				continue
			}
			pairs = append(pairs, p)
		}
	}
	return e.execute(ctx, e.groupPairs(pairs))
}

// todo is one shape's pending work in a run: the configurations still to
// measure and the reference time, 0 while unknown.
type todo struct {
	shape   features.Task
	configs []features.Config
	refNs   float64
}

// pending counts the work first, so that tasks with nothing left are not
// even set up (their expected outputs can take a while to compute). It
// returns the shapes with work and the number of rows to measure, and adds
// the pairs already recorded to *skipped.
func (e *engine) pending(shapes []features.Task, configs []features.Config, skip func(features.Task, features.Config) bool,
	done map[string]bool, refs map[features.TaskKey]float64, shard Shard, skipped *int) ([]todo, int) {
	var work []todo
	total := 0
	for _, s := range shapes {
		td := todo{shape: s, refNs: refs[s.Key()]}
		for _, c := range configs {
			if skip(s, c) {
				continue
			}
			if done[pairKey(s, c)] {
				*skipped++
				continue
			}
			td.configs = append(td.configs, c)
		}
		ownsRef := shard.Owns(s, e.k.Reference)
		if ownsRef && !done[pairKey(s, e.k.Reference)] {
			// Other shards' rows give the reference's time, but its row
			// is this shard's to record.
			td.refNs = 0
		}
		if td.refNs > 0 && ownsRef {
			*skipped++ // the reference row itself
		}
		if len(td.configs) == 0 && (td.refNs > 0 || !ownsRef) {
			continue
		}
		total += len(td.configs)
		if td.refNs == 0 {
			total++
		}
		work = append(work, td)
	}
	return work, total
}

// timeReferences sets up a task for each shape of work (in order, so that
// e.tasks[i] is work[i]'s) and times the references not yet known. A
// reference recorded as a crash (in crashed, by shape) is not run again:
// it would crash this process too; its shape is skipped, and for a
// kernel whose configurations are verified against the reference's
// outputs the run stops.
func (e *engine) timeReferences(ctx context.Context, work []todo, crashed map[features.TaskKey]string) error {
	var refPairs []pair
	for _, td := range work {
		t, err := e.addTask(td.shape)
		if err != nil {
			if ctx.Err() != nil {
				return interrupted(ctx)
			}
			t.failed = true
			e.taskErrors = append(e.taskErrors, fmt.Sprintf("%s: set up: %v", features.FormatTask(e.k.TaskNames, td.shape), err))
			continue
		}
		if why, ok := crashed[td.shape.Key()]; ok && td.refNs == 0 {
			t.failed = true
			shape, ref := features.FormatTask(e.k.TaskNames, td.shape), e.k.FormatConfig(e.k.Reference)
			e.taskErrors = append(e.taskErrors, fmt.Sprintf("%s: reference %s is recorded as a crash: %s", shape, ref, why))
			e.bar.add(1 + len(td.configs))
			if e.k.FromSpec() {
				return fmt.Errorf("collect: %w: %s on %s is recorded as a crash (%s): fix the kernel or its spec, whose new version is measured afresh",
					ErrReferenceFailed, ref, shape, why)
			}
			continue
		}
		t.refNs = td.refNs
		if t.refNs > 0 && !e.k.FromSpec() {
			continue
		}
		p, pruned := e.plan(t, e.k.Reference, -1)
		// A spec kernel's configurations are verified against the
		// reference's outputs, which a resumed run has not kept: run it
		// again for them, without a row.
		p.outputsOnly = t.refNs > 0
		if pruned != nil {
			t.failed = true
			e.taskErrors = append(e.taskErrors, fmt.Sprintf("%s: reference %s: %s",
				features.FormatTask(e.k.TaskNames, td.shape), e.k.FormatConfig(e.k.Reference), pruned.Error))
			if err := e.emit(-1, *pruned); err != nil {
				return err
			}
			continue
		}
		refPairs = append(refPairs, p)
	}
	return e.execute(ctx, e.groupPairs(refPairs))
}

// MaxSampleAll is the most valid configurations Sample "all" measures: it
// lists them first (about 100 bytes each), and at NVIDIA's 7 builds a
// second, 4M of them take a week.
const MaxSampleAll = 1 << 22

// Check returns the error Run would return for opt and k before it opens a
// device: an option out of range or a shape the kernel refuses. It lets a
// caller refuse bad input before it starts anything.
func Check(k *datasets.Kernel, opt Options) error {
	opt, smp, err := opt.resolve()
	if err != nil {
		return err
	}
	if smp.grid && k.Grid == nil {
		return fmt.Errorf("collect: Sample is \"grid\", but kernel %s defines no grid", k.Name)
	}
	space, err := where(k, opt.Where)
	if err != nil {
		return err
	}
	if n := space.Len(); smp.all && n > MaxSampleAll {
		return fmt.Errorf("collect: Sample \"all\" would list and measure each of kernel %s's %d valid configurations (at most %d): sample them (random:N) or narrow the space (Where)", k.Name, n, MaxSampleAll)
	}
	shapes := opt.Tasks
	if shapes == nil {
		shapes = k.Tasks
	}
	return checkTasks(k, shapes)
}

// where returns the kernel's space narrowed by Options.Where, or the
// space itself when where is "".
func where(k *datasets.Kernel, where string) (*features.Space, error) {
	if where == "" {
		return k.Space, nil
	}
	s, err := features.NewSpace(k.Space.Params, append(slices.Clip(k.Space.Constraints), where))
	if err != nil {
		return nil, fmt.Errorf("collect: Where: %w", err)
	}
	if s.Len() == 0 {
		return nil, fmt.Errorf("collect: Where %q leaves no valid configuration of kernel %s", where, k.Name)
	}
	return s, nil
}

// checkTasks checks every shape with the kernel's CheckTask.
func checkTasks(k *datasets.Kernel, shapes []features.Task) error {
	if len(shapes) == 0 {
		return fmt.Errorf("collect: no tasks to measure for kernel %s", k.Name)
	}
	for _, s := range shapes {
		if len(s) != len(k.TaskNames) {
			return fmt.Errorf("collect: task %v has %d values, kernel %s wants %d (%v)", s, len(s), k.Name, len(k.TaskNames), k.TaskNames)
		}
		if err := k.CheckTask(s); err != nil {
			return fmt.Errorf("collect: %w", err)
		}
	}
	return nil
}

// meta describes the file Run writes.
// Meta is the dataset metadata of kernel k measured on platform p.
func Meta(k *datasets.Kernel, p features.Platform) record.Meta {
	return record.Meta{
		Kernel:        k.Name,
		KernelVersion: k.Version(),
		Platform:      p,
		AugurVersion:  features.Version,
		Created:       time.Now().UTC(),
		TaskNames:     k.TaskNames,
		Params:        k.Space.Params,
		Constraints:   k.Space.Constraints,
		Reference:     k.Reference,
		Source:        "collect",
	}
}

// history is what the files of earlier runs in a directory hold for one
// kernel version (recorded).
type history struct {
	// done holds the pairs recorded, by pairKey.
	done map[string]bool
	// refs holds each task's reference time, where known; crashed the
	// error of each task's reference row recorded as a crash.
	refs    map[features.TaskKey]float64
	crashed map[features.TaskKey]string
	// others is how many files hold another version, bad the errors of
	// the files that could not be read, and plans the distinct
	// collection plans (record.Meta.Plan) of this version's files.
	others int
	bad    []error
	plans  []string
}

// recorded reads the files of earlier runs in dir and returns what they
// hold for kernel version version. A file that cannot be read is skipped,
// and its error returned in history.bad: its pairs are then measured
// again, which costs time but loses nothing, while refusing would stop
// every later run on one damaged file.
func recorded(dir, version string) (history, error) {
	files, bad, err := record.ReadDirSkip(dir)
	if err != nil {
		return history{}, fmt.Errorf("collect: resume from %s: %w", dir, err)
	}
	h := history{done: map[string]bool{}, refs: map[features.TaskKey]float64{}, crashed: map[features.TaskKey]string{}, bad: bad}
	for _, f := range files {
		if f.Meta.KernelVersion != version {
			h.others++
			continue
		}
		if f.Meta.Plan != "" && !slices.Contains(h.plans, f.Meta.Plan) {
			h.plans = append(h.plans, f.Meta.Plan)
		}
		for _, r := range f.Rows {
			h.done[pairKey(r.Task, r.Config)] = true
			isRef := r.Config.Equal(f.Meta.Reference)
			switch {
			case isRef && r.Status == record.StatusOK:
				h.refs[r.Task.Key()] = r.TimeNs
			case isRef && r.Status == record.StatusCrash:
				h.crashed[r.Task.Key()] = r.Error
			}
			if _, ok := h.refs[r.Task.Key()]; !ok && r.RefTimeNs > 0 {
				h.refs[r.Task.Key()] = r.RefTimeNs
			}
		}
	}
	return h, nil
}

// duplicate is a shape given more than once.
type duplicate struct {
	task  features.Task
	times int
}

// dedupeTasks drops repeated shapes, keeping the first of each, and
// reports the shapes that were repeated.
func dedupeTasks(shapes []features.Task) ([]features.Task, []duplicate) {
	count := map[features.TaskKey]int{}
	var out []features.Task
	var dups []duplicate
	for _, s := range shapes {
		if count[s.Key()]++; count[s.Key()] == 1 {
			out = append(out, s)
		}
	}
	for _, s := range out {
		if n := count[s.Key()]; n > 1 {
			dups = append(dups, duplicate{s, n})
		}
	}
	return out, dups
}

// sampleEach draws n configurations of space for each shape, from a
// generator seeded by seed and the shape, and returns their union (in the
// shapes' order) and which shape has which.
func sampleEach(space *features.Space, seed uint64, shapes []features.Task, n int) ([]features.Config, func(features.Task, features.Config) bool) {
	own := map[features.TaskKey]map[int]bool{}
	seen := map[int]bool{}
	var union []features.Config
	for _, s := range shapes {
		h := fnv.New64a()
		for _, v := range s {
			binary.Write(h, binary.LittleEndian, int64(v))
		}
		rng := rand.New(rand.NewPCG(seed, sampleStream^h.Sum64()))
		set := map[int]bool{}
		for _, c := range space.Sample(rng, n) {
			i := space.Index(c)
			set[i] = true
			if !seen[i] {
				seen[i] = true
				union = append(union, c)
			}
		}
		own[s.Key()] = set
	}
	return union, func(s features.Task, c features.Config) bool { return own[s.Key()][space.Index(c)] }
}

// DeviceIndex returns the index (as ListDevices orders them) of the device
// s names: its index itself, or its name or slug (case-insensitive). An
// unknown name is an error that lists the devices.
func DeviceIndex(s string) (int, error) {
	if i, err := strconv.Atoi(s); err == nil {
		return i, nil
	}
	devs, err := ListDevices()
	if err != nil {
		return 0, err
	}
	var names []string
	for i, d := range devs {
		if strings.EqualFold(s, d.Name) || strings.EqualFold(s, d.Slug()) {
			return i, nil
		}
		names = append(names, fmt.Sprintf("%d %s", i, d.Slug()))
	}
	return 0, fmt.Errorf("collect: no OpenCL device is named %q; the devices are: %s", s, strings.Join(names, ", "))
}
