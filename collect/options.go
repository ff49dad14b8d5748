package collect

import (
	"fmt"
	"hash/fnv"
	"io"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/augur-tuning/augur/collect/record"
	"github.com/augur-tuning/augur/features"
)

// Defaults used for the zero values of Options.
const (
	DefaultSample    = "random:100"
	DefaultRepeats   = 5
	DefaultTimeout   = 10 * time.Second
	DefaultBatchRows = 1024
	// DefaultWarmUp is Options.WarmUp's default.
	DefaultWarmUp = time.Millisecond
	// MaxWarmUpRuns bounds the untimed runs of Options.WarmUp.
	MaxWarmUpRuns = 4096
	// MaxRepeats bounds Options.Repeats.
	MaxRepeats = 1000
)

// Options configure Run and Measure. The zero value of every field means
// the documented default.
type Options struct {
	// Device is an index into opencl.Devices() (the order ListDevices
	// prints). The default, 0, is the first device.
	Device int
	// Tasks are the shapes to measure; nil means the kernel's Tasks.
	// Measure ignores it.
	Tasks []features.Task
	// Sample chooses the configurations: "all" for the whole space (in an
	// order shuffled with Seed, so that a run stopped part way holds a
	// uniform sample), or "random:N" for N distinct configurations drawn
	// with Seed, or "grid" for the kernel's Grid. "" means
	// "random:100". Every task is measured on the same configurations, so
	// that the data forms a grid and programs compiled for one shape are
	// reused by another with the same build options; except with
	// "random-each:N", which draws N configurations for each task, seeded
	// by Seed and the task (so that adding a task leaves the others'
	// samples alone): the tasks together cover more of the space, which
	// the runtime's picks stay within, at the cost of more programs to
	// build. "refine:K" measures, for each task, the neighbours of its K
	// fastest configurations recorded in the output directory (those
	// that differ in one parameter's value; see RefineSet): run it after
	// a sampled collection, and again for another round. Measure ignores
	// it.
	Sample string
	// Configs, when not nil, are the configurations to measure on every
	// task, in place of Sample. Run ignores those outside the space.
	Configs []features.Config
	// Repeats is the number of timed runs after the warm-up; 0 means
	// 5 (a caller that wants to reject 0, as the CLI does, checks before).
	// At most MaxRepeats.
	Repeats int
	// WarmUp is the device time a configuration runs untimed before its
	// timed runs, its verified first run included: the rest run back to
	// back (at most MaxWarmUpRuns). A GPU's first runs after the host has
	// read back an output vary: on an NVIDIA H100 (2026-11-27), 400
	// configurations of 10-60 us kernels varied by 11-35% (median
	// coefficient of variation of a row's runs) with the first run only,
	// and by 1.4-4.5% after 0.2-3 ms of warm-up. 0 means
	// DefaultWarmUp; a negative value runs the first run only.
	WarmUp time.Duration
	// Seed seeds the sample and the kernels' input data.
	Seed uint64
	// Workers is the number of compile workers; 0 means GOMAXPROCS.
	Workers int
	// Timeout is the longest one kernel run may take, the first included; 0
	// means 10 s. A run that has not finished by then is recorded as a
	// timeout without further repeats. OpenCL cannot stop a running
	// kernel, and what runs beside it is timed wrong (on a CPU device it
	// shares the cores: on PoCL every configuration after a timeout timed
	// out too), so Run then waits for the kernel to end, ten times
	// Timeout and between 10 s and 2 minutes (a supervised Run one
	// Timeout at most: see Supervisor). A kernel that outlasts the wait
	// leaves the process no way on, and Run stops with ErrKernelStuck,
	// the configuration recorded. After 5 timeouts in a row Run stops
	// with an error: the device looks hung.
	Timeout time.Duration
	// Progress receives a progress bar with ETA when it is a terminal; nil
	// or anything else keeps Run quiet.
	Progress io.Writer
	// MaxPrograms and MaxGrowthBytes, when not 0, stop Run between two
	// batches once it has built that many programs, or once the process's
	// resident memory has grown by that many bytes since Run began (read
	// from /proc on Linux; ignored elsewhere), with an error wrapping
	// ErrProgramLimit; everything measured is on disk and a later Run
	// resumes. They bound a process's memory: OpenCL drivers keep state
	// for every program built in a process and never give it back, not
	// even when the context is released (PoCL 3.1 on the 2-core EPYC: from
	// about 60 KB a program loaded from its cache to 1-3 MB a program
	// compiled), so `augur collect` measures in child processes
	// that stop at either limit. 0 means no limit.
	MaxPrograms    int
	MaxGrowthBytes int64
	// BatchRows is the number of rows of one Arrow record batch of the
	// finished file; 0 means 1024. Every row reaches the disk as soon as
	// it is measured whatever BatchRows is (see record.WriterOptions).
	// Measure ignores it.
	BatchRows int
	// Compression is the codec of the file's record batches; "" means
	// zstd. Measure ignores it.
	Compression record.Compression
	// Log receives one line per warning as it happens (see Summary.Notes);
	// nil discards them.
	Log io.Writer
	// Shard makes Run measure one deterministic share of the work, so that
	// several processes (a job array, one GPU each) split it; the zero
	// value measures all of it. Measure ignores it.
	Shard Shard
	// Where, when not "", is a boolean expression over the parameter
	// names, in the syntax of the kernel's constraints (e.g. "WX * WY *
	// WZ <= 256"): Run measures only configurations for which it is true,
	// and Sample draws among those. It narrows a collection to what a
	// device can run or to a question being asked; the kernel's space,
	// and so its version, are unchanged. Measure ignores it.
	Where string
	// Supervisor, when not nil, receives Run's report to the process that
	// supervises it (Supervise, which passes it on file descriptor
	// SupervisorFD): a line of JSON naming each configuration before it
	// is measured, and one when its row is recorded. A process that dies
	// measuring one, or wedges, has thus said which, and Supervise records
	// it (a crash, a timeout) and starts another process, which goes on
	// past it. A supervised Run also waits for a kernel that outlasted
	// its Timeout one Timeout more at most, not the long wait of a
	// process on its own, before it stops with ErrKernelStuck: a new
	// process, which ends the kernel, costs less. Lines that cannot be
	// written are dropped. Measure ignores it.
	Supervisor io.Writer

	// residentBytes reads the process's resident memory for
	// MaxGrowthBytes; nil means the operating system's figure. Tests set
	// it: whether a few tiny programs grow the real figure is up to the
	// allocator.
	residentBytes func() int64
	// NoBench makes Run skip the micro-benchmarks (see Benchmark) it
	// otherwise runs once at its start, before anything is compiled, so
	// that the file's platform records the device's measured features;
	// with NoBench they are 0 (not measured). The default measures: a
	// few seconds a run. Measure ignores it.
	NoBench bool
}

// Shard is share Index of Count of Run's (shape, configuration) pairs: a
// pair belongs to the shard its hash names, whatever the other shapes and
// configurations, so the shards' files placed under one directory hold
// exactly the rows of one unsharded run (each shape's reference row once,
// written by the shard that owns it; the other shards time the reference
// too, for their rows' log-speedups, but do not record it).
type Shard struct {
	// Index is the shard, in [0, Count); Count is the number of shards,
	// 0 (or 1) for no sharding.
	Index, Count int
}

// Owns reports whether pair (t, c) belongs to shard s.
func (s Shard) Owns(t features.Task, c features.Config) bool {
	if s.Count <= 1 {
		return true
	}
	h := fnv.New64a()
	h.Write([]byte(pairKey(t, c)))
	return h.Sum64()%uint64(s.Count) == uint64(s.Index)
}

// String writes s as "Index/Count".
func (s Shard) String() string { return strconv.Itoa(s.Index) + "/" + strconv.Itoa(s.Count) }

// ParseShard reads "I/N" (0 <= I < N), the form of the CLI's --shard.
func ParseShard(text string) (Shard, error) {
	i, n, ok := strings.Cut(text, "/")
	s := Shard{}
	var err1, err2 error
	s.Index, err1 = strconv.Atoi(strings.TrimSpace(i))
	s.Count, err2 = strconv.Atoi(strings.TrimSpace(n))
	if !ok || err1 != nil || err2 != nil {
		return Shard{}, fmt.Errorf("collect: shard %q, want I/N such as 0/4", text)
	}
	if s.check() != nil || s.Count == 0 {
		return Shard{}, fmt.Errorf("collect: shard %q: want I/N with N >= 1 and 0 <= I < N", text)
	}
	return s, nil
}

func (s Shard) check() error {
	if s.Count < 0 || (s.Count == 0 && s.Index != 0) || (s.Count > 0 && (s.Index < 0 || s.Index >= s.Count)) {
		return fmt.Errorf("collect: Shard.Index must be in [0, Count) and Count >= 0, got %d/%d", s.Index, s.Count)
	}
	return nil
}

// sampling is a parsed Options.Sample: all, or n random configurations.
type sampling struct {
	all, grid bool
	n         int
	// each draws the n configurations anew for every shape
	// ("random-each:N").
	each bool
	// refine measures the neighbours of each shape's n fastest recorded
	// configurations ("refine:K").
	refine bool
}

// resolve checks o and fills in the defaults.
func (o Options) resolve() (Options, sampling, error) {
	var s sampling
	switch {
	case o.Device < 0:
		return o, s, fmt.Errorf("collect: Device must be >= 0, got %d", o.Device)
	case o.Repeats < 0 || o.Repeats > MaxRepeats:
		return o, s, fmt.Errorf("collect: Repeats must be in [0, %d], got %d", MaxRepeats, o.Repeats)
	case o.Workers < 0:
		return o, s, fmt.Errorf("collect: Workers must be >= 0, got %d", o.Workers)
	case o.Timeout < 0:
		return o, s, fmt.Errorf("collect: Timeout must be >= 0, got %v", o.Timeout)
	case o.MaxPrograms < 0 || o.MaxGrowthBytes < 0:
		return o, s, fmt.Errorf("collect: MaxPrograms and MaxGrowthBytes must be >= 0, got %d and %d", o.MaxPrograms, o.MaxGrowthBytes)
	case o.BatchRows < 0:
		return o, s, fmt.Errorf("collect: BatchRows must be >= 0, got %d", o.BatchRows)
	}
	if err := o.Shard.check(); err != nil {
		return o, s, err
	}
	if o.Sample == "" {
		o.Sample = DefaultSample
	}
	if o.Repeats == 0 {
		o.Repeats = DefaultRepeats
	}
	if o.Workers == 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	if o.Timeout == 0 {
		o.Timeout = DefaultTimeout
	}
	if o.WarmUp == 0 {
		o.WarmUp = DefaultWarmUp
	}
	if o.BatchRows == 0 {
		o.BatchRows = DefaultBatchRows
	}

	c, err := record.ParseCompression(string(o.Compression))
	if err != nil {
		return o, s, fmt.Errorf("collect: Compression must be zstd or none, got %q", o.Compression)
	}
	o.Compression = c
	s, err = parseSample(o.Sample)
	return o, s, err
}

// plan describes how o chooses the rows (record.Meta.Plan): its sample,
// seed and number of shards; not the shard's index, which differs between
// the shards of one collection.
func (o Options) plan() string {
	return fmt.Sprintf("sample=%s seed=%d shards=%d", o.Sample, o.Seed, max(o.Shard.Count, 1))
}

// CheckSample reports whether text is a sampling plan Options.Sample
// accepts, before any device or data is touched.
func CheckSample(text string) error {
	_, err := parseSample(text)
	return err
}

func parseSample(text string) (sampling, error) {
	switch text {
	case "all":
		return sampling{all: true}, nil
	case "grid":
		return sampling{grid: true}, nil
	}
	for _, prefix := range []string{"random:", "random-each:", "refine:"} {
		if rest, ok := strings.CutPrefix(text, prefix); ok {
			n, err := strconv.Atoi(rest)
			if err == nil && n >= 1 {
				return sampling{n: n, each: prefix == "random-each:", refine: prefix == "refine:"}, nil
			}
		}
	}
	return sampling{}, fmt.Errorf("collect: sample %q: want all, grid, random:N, random-each:N or refine:K, with N, K >= 1", text)
}
