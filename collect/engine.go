package collect

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/augur-tuning/augur/collect/opencl"
	"github.com/augur-tuning/augur/collect/record"
	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/features"
)

// batchFactor sets how many programs one compile batch holds: batchFactor
// per worker. At most two batches are alive at once, which bounds the
// memory held in compiled programs whatever the length of the run.
const batchFactor = 4

// maxTimeoutsInRow is how many configurations in a row may time out before
// Run stops: each costs a new session and Options.Timeout, and a device
// that finishes nothing any more is an infrastructure fault, not data.
const maxTimeoutsInRow = 5

// maxErrorBytes bounds the error text of one row; build logs can run to
// megabytes and the first lines name the fault.
const maxErrorBytes = 2000

// task is one shape with its arguments bound on the device and its
// expected output.
type task struct {
	shape features.Task
	// inputs are the arguments, kept to bind them again in a new session.
	inputs []datasets.Arg
	args   *opencl.Args
	want   []float32
	got    []float32
	// For a kernel verified against its reference configuration
	// (datasets.Kernel.FromSpec): gotBytes receives every output, refOut
	// holds the reference's once it passed, expected what the spec
	// expects of each output (nil where it says nothing).
	gotBytes [][]byte
	refOut   [][]byte
	expected [][]byte
	// refNs is the reference configuration's median time on this task, in
	// nanoseconds; 0 until known.
	refNs float64
	// failed is set when the task's setup or reference failed; its other
	// configurations are then not measured.
	failed bool
	// declared is set when the reference left NaN in an output that
	// ResetOutput fills with NaN: every run then starts from the output's
	// declared contents (opencl.Args.KeepDeclared), as Kernel Tuner runs
	// kernels that add to their output or write part of it.
	declared bool
}

// pair is one (task, config) to measure.
type pair struct {
	task   *task
	config features.Config
	launch datasets.Launch
	isRef  bool
	// outputsOnly marks a reference run whose time is known already (a
	// resumed run) but whose outputs the task needs: it is verified, not
	// timed, and records no row.
	outputsOnly bool
	// slot is where Measure returns the row; Run does not use it.
	slot int
}

// group is the pairs that share one program: the same build options.
type group struct {
	options   string
	pairs     []pair
	prog      *opencl.Program
	err       error
	compileMs float64
}

// engine measures pairs on one device. Only one goroutine drives the
// device; compile workers touch nothing but their groups.
type engine struct {
	k    *datasets.Kernel
	opt  Options
	dev  opencl.Device
	plat features.Platform
	sess *opencl.Session
	// timeoutsInRow counts the configurations that timed out since the
	// last one that did not.
	timeoutsInRow int
	tasks         []*task
	sink          func(slot int, r record.Row) error
	bar           *progress
	batch         []int64
	times         []float64
	busyNs        float64
	builds        int
	startRSS      int64 // resident bytes when the run began; 0 when unknown
	counts        map[record.Status]int
	// taskErrors lists the tasks skipped because their setup or reference
	// failed.
	taskErrors []string
	// report tells what is measured (see reporter); nil in Measure.
	report *reporter
}

// openEngine opens a session on the device opt.Device.
func openEngine(k *datasets.Kernel, opt Options) (*engine, error) {
	devs, err := opencl.Devices()
	if err != nil {
		return nil, fmt.Errorf("collect: %w", err)
	}
	if opt.Device >= len(devs) {
		return nil, fmt.Errorf("collect: no device %d: the OpenCL devices are 0 to %d (augur devices lists them)", opt.Device, len(devs)-1)
	}
	dev := devs[opt.Device]
	sess, err := dev.Open()
	if err != nil {
		return nil, fmt.Errorf("collect: %w", err)
	}
	e := &engine{k: k, opt: opt, dev: dev, plat: dev.Platform(), sess: sess, counts: map[record.Status]int{}}
	// Growth counts from here: the driver's own start-up is not the run's
	// doing.
	e.startRSS = e.rss()
	return e, nil
}

// close releases every task's buffers and the session.
func (e *engine) close() error {
	for _, t := range e.tasks {
		if t.args != nil {
			t.args.Release()
		}
	}
	if err := e.sess.Close(); err != nil {
		return fmt.Errorf("collect: %w", err)
	}
	return nil
}

// addTask binds a shape's arguments and computes its expected output. Its
// input data come from a stream of Seed chosen by the shape, so that a
// shape gets the same data in every run.
func (e *engine) addTask(shape features.Task) (*task, error) {
	t := &task{shape: shape}
	e.tasks = append(e.tasks, t)
	rng := rand.New(rand.NewPCG(e.opt.Seed, taskStream(shape)))
	args := e.k.Args(shape, rng)
	t.want = e.k.Want(shape, args)
	t.inputs = args
	a, err := e.sess.Bind(args)
	if err != nil {
		return t, err
	}
	t.args = a
	if e.k.FromSpec() {
		for _, n := range a.OutputBytes() {
			t.gotBytes = append(t.gotBytes, make([]byte, n))
		}
		for i, b := range e.k.SpecExpected(shape) {
			if args[i].Output {
				t.expected = append(t.expected, b)
			}
		}
	} else {
		t.got = make([]float32, a.OutputLen())
	}
	e.busyNs += float64(a.UploadNs)
	return t, nil
}

// reopen replaces the session, one whose queue is stuck behind a
// benchmark kernel that did not finish: a new session, every task bound
// again. The old session is closed, which abandons it if the kernel is
// still running (see opencl.Session.Close). It is for the benchmarks,
// which run before anything is built: a configuration's kernel that does
// not finish ends the process instead (see measure).
func (e *engine) reopen() error {
	for _, t := range e.tasks {
		if t.args != nil {
			t.args.Release()
			t.args = nil
		}
	}
	old := e.sess
	if err := old.Close(); err != nil {
		return fmt.Errorf("collect: %w", err)
	}
	sess, err := e.dev.Open()
	if err != nil {
		return fmt.Errorf("collect: open a new session: %w", err)
	}
	e.sess = sess
	for _, t := range e.tasks {
		if t.failed || t.inputs == nil {
			continue
		}
		a, err := sess.Bind(t.inputs)
		if err != nil {
			return fmt.Errorf("collect: bind %s in a new session: %w", features.FormatTask(e.k.TaskNames, t.shape), err)
		}
		if t.declared {
			a.KeepDeclared()
		}
		t.args = a
	}
	return nil
}

// taskStream hashes a shape (FNV-1a) into a PCG stream number.
func taskStream(shape features.Task) uint64 {
	h := uint64(14695981039346656037)
	for _, v := range shape {
		h ^= uint64(v)
		h *= 1099511628211
	}
	return h
}

// plan returns the pair for (t, c), or the row that records why it will not
// be compiled: the kernel's geometry rejects the shape, the launch breaks
// a limit of the device, or the configuration needs a feature the device
// lacks (Kernel.CheckDevice).
func (e *engine) plan(t *task, c features.Config, slot int) (pair, *record.Row) {
	p := pair{task: t, config: c, slot: slot, isRef: c.Equal(e.k.Reference)}
	l, err := e.k.Geometry(t.shape, c)
	if err == nil {
		err = pruneReason(l, e.plat)
	}
	if err == nil {
		// The family's own device constraints: image memory, vendor
		// build options.
		err = e.k.CheckDevice(c, e.plat)
	}
	if err != nil {
		r := e.row(p)
		r.Status = record.StatusPruned
		r.Error = err.Error()
		return p, &r
	}
	p.launch = l
	return p, nil
}

// row starts the row of p.
func (e *engine) row(p pair) record.Row {
	return record.Row{Task: p.task.shape, Config: p.config, RefTimeNs: p.task.refNs, LogSpeedup: math.NaN()}
}

// emit counts r and hands it to the sink.
func (e *engine) emit(slot int, r record.Row) error {
	e.counts[r.Status]++
	e.bar.add(1)
	return e.sink(slot, r)
}

// groupPairs gathers pairs by build options, in order of first appearance.
func (e *engine) groupPairs(pairs []pair) []*group {
	var groups []*group
	index := map[string]*group{}
	for _, p := range pairs {
		opts := e.k.Options(p.task.shape, p.config)
		g := index[opts]
		if g == nil {
			g = &group{options: opts}
			index[opts] = g
			groups = append(groups, g)
		}
		g.pairs = append(g.pairs, p)
	}
	return groups
}

// execute compiles and times groups in batches. On a GPU the next batch
// compiles while the device times this one; on a CPU device compiling and
// timing alternate, so that the compiler does not steal the cores the
// kernel runs on. Every compile started is joined, and every program
// released, before execute returns.
func (e *engine) execute(ctx context.Context, groups []*group) error {
	size := batchFactor * e.opt.Workers
	var batches [][]*group
	for i := 0; i < len(groups); i += size {
		batches = append(batches, groups[i:min(i+size, len(groups))])
	}
	overlap := e.plat.Type != "cpu"
	start := func(b []*group) <-chan struct{} {
		done := make(chan struct{})
		sess := e.sess
		go func() {
			e.compile(ctx, sess, b)
			close(done)
		}()
		return done
	}
	var next <-chan struct{}
	if len(batches) > 0 {
		next = start(batches[0])
	}
	for i, b := range batches {
		<-next
		next = nil
		for _, g := range b {
			if g.prog != nil {
				e.builds++
			}
		}
		if overlap && i+1 < len(batches) && ctx.Err() == nil {
			next = start(batches[i+1])
		}
		err := e.timeBatch(ctx, b)
		if err == nil && ctx.Err() != nil {
			err = interrupted(ctx)
		}
		if err != nil {
			if next != nil {
				<-next
				release(batches[i+1])
			}
			return err
		}
		if why := e.limitReached(); why != "" && i+1 < len(batches) {
			if next != nil {
				<-next
				release(batches[i+1])
			}
			return fmt.Errorf("collect: %w: %s", ErrProgramLimit, why)
		}
		if !overlap && i+1 < len(batches) {
			next = start(batches[i+1])
		}
	}
	return nil
}

// rss returns the process's resident bytes, 0 when unknown.
func (e *engine) rss() int64 {
	if e.opt.residentBytes != nil {
		return e.opt.residentBytes()
	}
	return residentBytes()
}

// limitReached says which of Options.MaxPrograms and MaxGrowthBytes the
// run has reached, or "".
func (e *engine) limitReached() string {
	if n := e.opt.MaxPrograms; n > 0 && e.builds >= n {
		return fmt.Sprintf("stopped after %d programs", e.builds)
	}
	if n := e.opt.MaxGrowthBytes; n > 0 && e.startRSS > 0 {
		if rss := e.rss(); rss-e.startRSS >= n {
			return fmt.Sprintf("stopped after %d programs, resident memory grown by %d MiB", e.builds, (rss-e.startRSS)>>20)
		}
	}
	return ""
}

// compile builds every group of a batch with at most Workers builds at a
// time, and returns when all are done.
func (e *engine) compile(ctx context.Context, sess *opencl.Session, batch []*group) {
	jobs := make(chan *group)
	var wg sync.WaitGroup
	for range min(e.opt.Workers, len(batch)) {
		wg.Go(func() {
			for g := range jobs {
				if err := ctx.Err(); err != nil {
					// timeBatch sees the same cancellation and
					// records nothing for this group.
					g.err = err
					continue
				}
				e.build(sess, g)
			}
		})
	}
	for _, g := range batch {
		jobs <- g
	}
	close(jobs)
	wg.Wait()
}

// build compiles g in sess.
func (e *engine) build(sess *opencl.Session, g *group) {
	t0 := time.Now()
	g.prog, g.err = sess.Build(e.k.Source, g.options, e.k.Entry)
	g.compileMs = float64(time.Since(t0).Microseconds()) / 1000
}

// release frees the programs of a batch.
func release(batch []*group) {
	for _, g := range batch {
		if g.prog != nil {
			g.prog.Release()
			g.prog = nil
		}
	}
}

// timeBatch measures every pair of a compiled batch and releases its
// programs.
func (e *engine) timeBatch(ctx context.Context, batch []*group) error {
	defer release(batch)
	for _, g := range batch {
		for _, p := range g.pairs {
			if ctx.Err() != nil {
				return interrupted(ctx)
			}
			if p.task.failed {
				continue
			}
			e.report.measure(e, g, p)
			r, err := e.measure(ctx, g, p)
			// A row comes back with some errors too: a timeout whose
			// kernel is still running ends the run, but is recorded.
			if r.Status != "" {
				if err := e.record(p, r); err != nil {
					return err
				}
			}
			e.report.ended(r.Status)
			if p.isRef && r.Status != "" && r.Status != record.StatusOK && e.k.FromSpec() {
				// Every other configuration is verified against this
				// one's outputs: without them nothing can be.
				refErr := fmt.Errorf("collect: %w: %s on %s: %s: %s", ErrReferenceFailed, e.k.FormatConfig(p.config),
					features.FormatTask(e.k.TaskNames, p.task.shape), r.Status, excerpt(firstLines(r.Error, 3)))
				if errors.Is(err, ErrKernelStuck) {
					refErr = fmt.Errorf("%w (%w)", refErr, ErrKernelStuck)
				}
				return refErr
			}
			if err != nil {
				return err
			}
		}
		if g.prog != nil {
			g.prog.Release()
			g.prog = nil
		}
	}
	return nil
}

// record notes a failed reference and hands r, p's row, to the sink.
func (e *engine) record(p pair, r record.Row) error {
	if p.isRef && r.Status != record.StatusOK {
		p.task.failed = true
		e.taskErrors = append(e.taskErrors, fmt.Sprintf("%s: reference %s failed: %s: %s",
			features.FormatTask(e.k.TaskNames, p.task.shape), e.k.FormatConfig(p.config), r.Status, excerpt(firstLines(r.Error, 3))))
	}
	if p.outputsOnly {
		return nil
	}
	return e.emit(p.slot, r)
}

// interrupted is the error of a run stopped by ctx.
func interrupted(ctx context.Context) error {
	return fmt.Errorf("collect: interrupted: %w", context.Cause(ctx))
}

// measure runs one pair: a verified run, the warm-up and Repeats timed
// runs, then verifies the output of the last. Each run may take
// Options.Timeout; a run that has not finished by then is recorded as a
// timeout, and the engine waits for its kernel (drainWait). The error is
// for a cancelled ctx, infrastructure faults and a kernel that outlasts
// the wait (ErrKernelStuck); the row has a Status whenever it is to be
// recorded, with such an error or without.
func (e *engine) measure(ctx context.Context, g *group, p pair) (record.Row, error) {
	r, err := e.measureRuns(ctx, g, p, e.opt.Repeats)
	if err != nil {
		return r, err
	}
	if r.Status != record.StatusTimeout {
		e.timeoutsInRow = 0
		return r, nil
	}
	e.timeoutsInRow++
	// What is timed while the abandoned kernel still occupies the device
	// is timed wrong (on PoCL every configuration after it timed out
	// too), so the engine waits for it. A kernel that outlasts the wait
	// leaves this process no way on: OpenCL cannot stop it, and on PoCL a
	// new session's first upload waits behind it for ever.
	if wait := e.drainWait(); e.sess.Stuck() && !e.sess.Drain(ctx, wait) {
		if ctx.Err() != nil {
			return r, interrupted(ctx)
		}
		r.Error += fmt.Sprintf("; still running %v later", wait)
		return r, fmt.Errorf("collect: %w: %s on %s still ran %v after its %v timeout (recorded as a timeout)", ErrKernelStuck,
			e.k.FormatConfig(p.config), features.FormatTask(e.k.TaskNames, p.task.shape), wait, e.opt.Timeout)
	}
	if e.timeoutsInRow >= maxTimeoutsInRow {
		return r, fmt.Errorf("collect: %d configurations in a row did not finish within %v; the device looks hung (last: %s)",
			e.timeoutsInRow, e.opt.Timeout, e.k.FormatConfig(p.config))
	}
	return r, nil
}

// drainWait is how long measure waits for a kernel that timed out to
// finish: ten times the timeout, at least 10 s and at most 2 minutes. A
// supervised process (Options.Supervisor) waits one timeout more at most:
// the new process that replaces it, ending the kernel, costs a few
// seconds of driver start-up (DefaultProgramsPerProcess), less than the
// long wait.
func (e *engine) drainWait() time.Duration {
	d := min(max(10*e.opt.Timeout, 10*time.Second), 2*time.Minute)
	if e.opt.Supervisor != nil {
		d = min(d, e.opt.Timeout)
	}
	return d
}

// measureRuns is measure's work, for repeats timed runs.
func (e *engine) measureRuns(ctx context.Context, g *group, p pair, repeats int) (record.Row, error) {
	r := e.row(p)
	r.CompileMs = g.compileMs
	fail := func(err error) (record.Row, error) {
		r.Status = statusOf(err)
		r.Error = excerpt(err.Error())
		return r, nil
	}
	if g.err != nil {
		return fail(g.err)
	}
	t := p.task
	for i, arg := range e.k.ConfigArgs(t.shape, p.config) {
		if err := t.args.Set(i, arg); err != nil {
			return fail(err)
		}
	}
	if err := e.sess.ResetOutput(t.args); err != nil {
		return fail(err)
	}
	timeoutNs := float64(e.opt.Timeout.Nanoseconds())
	e.times = e.times[:0]
	// Run 0 is the run verified, and the first of the warm-up: a kernel
	// that updates its output in place gives the reference's answer on the
	// first run only.
	for run := 0; run <= repeats; run++ {
		rctx, cancel := context.WithTimeout(ctx, e.opt.Timeout)
		ns, err := e.sess.Run(rctx, g.prog, t.args, p.launch)
		cancel()
		if ctx.Err() != nil {
			return r, interrupted(ctx)
		}
		if opencl.KindOf(err) == opencl.TimedOut {
			r.Status = record.StatusTimeout
			r.Error = fmt.Sprintf("run %d did not finish within the %v timeout", run, e.opt.Timeout)
			return r, nil
		}
		if err != nil {
			return fail(err)
		}
		e.busyNs += float64(ns)
		if float64(ns) > timeoutNs {
			r.Status = record.StatusTimeout
			r.Error = fmt.Sprintf("run %d took %v, over the %v timeout", run, time.Duration(ns), e.opt.Timeout)
			return r, nil
		}
		if run > 0 {
			e.times = append(e.times, float64(ns))
			continue
		}
		if err := e.check(t, p); err != nil {
			if errors.Is(err, errDeclared) {
				return e.measureRuns(ctx, g, p, repeats) // once: t.declared is set
			}
			if errors.Is(err, errInfra) {
				return fail(err)
			}
			r.Status = record.StatusVerifyError
			r.Error = err.Error()
			return r, nil
		}
		if p.outputsOnly {
			r.Status = record.StatusOK
			return r, nil
		}
		err = e.warmUp(ctx, g, t, p, ns)
		switch {
		case ctx.Err() != nil:
			return r, interrupted(ctx)
		case opencl.KindOf(err) == opencl.TimedOut:
			r.Status = record.StatusTimeout
			r.Error = fmt.Sprintf("the warm-up's runs did not finish within %v", e.opt.Timeout+e.opt.WarmUp)
			return r, nil
		case err != nil:
			return fail(err)
		}
	}
	r.Status = record.StatusOK
	r.Repeats = len(e.times)
	// The row keeps its runs in the order they ran; Summarize sorts
	// e.times, which the next measurement reuses.
	r.Runs = make([]int64, len(e.times))
	for i, ns := range e.times {
		r.Runs[i] = int64(ns)
	}
	r.TimeNs, r.TimeMinNs, r.TimeCV = record.Summarize(e.times)
	if p.isRef && t.refNs == 0 {
		t.refNs = r.TimeNs
	}
	r.RefTimeNs = t.refNs
	if t.refNs > 0 {
		r.LogSpeedup = math.Log(t.refNs / r.TimeNs)
	}
	return r, nil
}

// warmUp runs p untimed, back to back, until the configuration's untimed
// device time, its first run's firstNs included, reaches Options.WarmUp or
// MaxWarmUpRuns have run. A batch is sized by the runs before it: a
// first run is often slower than the rest.
func (e *engine) warmUp(ctx context.Context, g *group, t *task, p pair, firstNs int64) error {
	left := float64(e.opt.WarmUp.Nanoseconds()) - float64(firstNs)
	per := float64(max(firstNs, 1))
	rctx, cancel := context.WithTimeout(ctx, e.opt.Timeout+e.opt.WarmUp)
	defer cancel()
	for runs := 0; left > 0 && runs < MaxWarmUpRuns; {
		n := min(int(math.Ceil(left/per)), MaxWarmUpRuns-runs)
		var err error
		e.batch, err = e.sess.RunBatch(rctx, g.prog, t.args, p.launch, e.batch[:0], n)
		if err != nil {
			return err
		}
		sum := 0.0
		for _, ns := range e.batch {
			sum += float64(ns)
		}
		e.busyNs += sum
		left -= sum
		runs += n
		per = max(sum/float64(n), 1)
	}
	return nil
}

// errDeclared asks for the reference's run again, its outputs now starting
// from their declared contents (see task.declared).
var errDeclared = errors.New("collect: the reference leaves NaN outputs unwritten")

// errInfra marks a check that failed for want of the device (a read-back),
// not because of the configuration's answer.
var errInfra = errors.New("collect: read back outputs")

// check reads back the outputs of t's run of p and verifies them: against
// the kernel's Go implementation (Want), or, for a kernel from a spec,
// against the reference configuration's outputs. The reference itself is
// checked against what the spec expects, when it says, and for values
// left unwritten (NaN); its outputs are then kept for the others.
func (e *engine) check(t *task, p pair) error {
	if t.gotBytes == nil {
		ns, err := e.sess.ReadOutput(t.args, t.got)
		if err != nil {
			return fmt.Errorf("%w: %w", errInfra, err)
		}
		e.busyNs += float64(ns)
		return verify(t.got, t.want, e.k.Tolerance)
	}
	ns, err := e.sess.ReadOutputs(t.args, t.gotBytes)
	if err != nil {
		return fmt.Errorf("%w: %w", errInfra, err)
	}
	e.busyNs += float64(ns)
	atol, rtol := e.k.VerifyTolerance()
	elems := e.outputElems(t)
	rule := e.k.VerifyRule()
	same := datasets.Elem.Close
	if rule == datasets.VerifySum {
		same = datasets.Elem.CloseSum
	}
	if t.refOut != nil {
		if rule == datasets.VerifyNone {
			return nil
		}
		for i, got := range t.gotBytes {
			if err := same(elems[i], got, t.refOut[i], atol, rtol); err != nil {
				return fmt.Errorf("output %d against the reference configuration's: %w", i, err)
			}
		}
		return nil
	}
	if !p.isRef {
		return fmt.Errorf("no reference outputs to verify against")
	}
	for i, got := range t.gotBytes {
		if i < len(t.expected) && t.expected[i] != nil {
			if err := same(elems[i], got, t.expected[i], atol, rtol); err != nil {
				return fmt.Errorf("output %d against the spec's ReferenceArguments: %w", i, err)
			}
		}
		if rule == datasets.VerifyNone {
			continue
		}
		if err := elems[i].Finite(got); err != nil {
			if !t.declared && t.args.KeepDeclared() {
				t.declared = true
				return errDeclared
			}
			return fmt.Errorf("output %d: %w (left unwritten?)", i, err)
		}
	}
	for _, got := range t.gotBytes {
		t.refOut = append(t.refOut, append([]byte(nil), got...))
	}
	return nil
}

// outputElems returns the element type of each of t's outputs.
func (e *engine) outputElems(t *task) []datasets.Elem {
	var out []datasets.Elem
	for _, a := range t.inputs {
		if a.Output && (a.Kind == datasets.Buffer || a.Kind.Image()) {
			out = append(out, a.Elem)
		}
	}
	return out
}

// statusOf maps an OpenCL failure to the row status that records it.
func statusOf(err error) record.Status {
	switch opencl.KindOf(err) {
	case opencl.BuildFailed:
		return record.StatusCompileError
	case opencl.ResourceLimit:
		return record.StatusResourceLimit
	default:
		return record.StatusLaunchError
	}
}

// firstLines keeps the first n lines of s, joined by " | ": a build log's
// first lines name the fault.
func firstLines(s string, n int) string {
	var lines []string
	for line := range strings.Lines(s) {
		if line = strings.TrimSpace(line); line != "" && len(lines) < n {
			lines = append(lines, line)
		}
	}
	return strings.Join(lines, " | ")
}

// excerpt cuts s to maxErrorBytes.
func excerpt(s string) string {
	if len(s) <= maxErrorBytes {
		return s
	}
	return s[:maxErrorBytes] + "..."
}

// pairKey is a (task, config) as a map key.
func pairKey(t features.Task, c features.Config) string {
	b := make([]byte, 0, 8*(len(t)+len(c)))
	for _, v := range t {
		b = strconv.AppendInt(b, int64(v), 10)
		b = append(b, ',')
	}
	b = append(b, '|')
	for _, v := range c {
		b = strconv.AppendInt(b, int64(v), 10)
		b = append(b, ',')
	}
	return string(b)
}
