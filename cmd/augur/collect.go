package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"syscall"

	"github.com/augur-tuning/augur/collect"
	"github.com/augur-tuning/augur/collect/record"
	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/features"
)

func runCollect(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var (
		kernel, out, shapes, sample, compression string
		perProcess, growthMiB, maxGrowthMiB      int
		opt                                      collect.Options
	)
	fs := flags("collect", "--kernel NAME --out DIR [--device N] [--shapes 'k=v,...;...'] [--sample all|random:N|random-each:N|grid] [--repeats R] [--seed S] [--timeout D] [--compression zstd|none] [--shard I/N] [--where EXPR]", stderr)
	fs.StringVar(&kernel, "kernel", "", "kernel family (see 'augur kernels')")
	fs.StringVar(&out, "out", "", "dataset directory; files go to DIR/<kernel>/<device>/")
	fs.IntVar(&opt.Device, "device", 0, "device index (see 'augur devices')")
	fs.StringVar(&shapes, "shapes", "", "shapes separated by ';' (default: the kernel's own list); repeats are measured once")
	fs.StringVar(&sample, "sample", "random:100", "configurations per shape: all (in a seeded order), random:N (the same N for every shape), random-each:N (N drawn anew for each shape: together they cover more of the space, at the cost of more builds), or grid (the kernel's hand-chosen points, e.g. fbcorr's 73)")
	fs.IntVar(&opt.Repeats, "repeats", collect.DefaultRepeats, "timed runs per configuration, after one warm-up (>= 1)")
	var co collect.ConfirmOptions
	fs.IntVar(&co.Top, "confirm", 0, "then time each shape's N fastest configurations again with --confirm-repeats (0: no second pass)")
	fs.IntVar(&co.Repeats, "confirm-repeats", 0, "timed runs of the second pass (0: three times --repeats)")
	fs.Float64Var(&co.MaxCV, "confirm-cv", 0, "with --confirm: also time again every row whose coefficient of variation exceeds this (0: none)")
	fs.Uint64Var(&opt.Seed, "seed", 1, "seed of the random sample and the input data")
	fs.DurationVar(&opt.Timeout, "timeout", collect.DefaultTimeout, "longest one kernel run may take; a run still going is abandoned and recorded as a timeout")
	fs.StringVar(&compression, "compression", string(record.CompressionZstd), "codec of the files' record batches: zstd, or none for readers without codecs (Arrow JS)")
	fs.IntVar(&perProcess, "programs-per-process", defaultProgramsPerProcess, "measure in child processes that each stop after this many programs or --memory-per-process of growth, so that memory stays flat (OpenCL drivers keep every program's state until the process ends); 0: all in this process")
	fs.IntVar(&growthMiB, "memory-per-process", defaultGrowthMiB, "MiB of resident memory a child may grow by before it stops (Linux)")
	fs.IntVar(&opt.MaxPrograms, "max-programs", 0, "stop after building this many programs, with exit status 3 (what --programs-per-process gives each child)")
	fs.IntVar(&maxGrowthMiB, "max-growth", 0, "stop once resident memory has grown by this many MiB, with exit status 3 (what --memory-per-process gives each child)")
	fs.StringVar(&opt.Where, "where", "", "measure only configurations for which this expression over the parameters is true (e.g. 'WX * WY * WZ <= 256'); the space and kernel version stay the same")
	shard := fs.String("shard", "", "I/N: measure only shard I (0 <= I < N) of the shapes x configurations, for N processes sharing the work; their files merge under one --out")
	if err := parse(fs, args, stdout); err != nil {
		return err
	}
	if err := required(fs, "kernel", "out"); err != nil {
		return err
	}
	if *shard != "" {
		s, err := collect.ParseShard(*shard)
		if err != nil {
			return err
		}
		if co.Top > 0 {
			// Every shard would re-time the same fastest configurations.
			return fmt.Errorf("collect: --confirm with --shard: confirm once, without --shard, after every shard has finished")
		}
		opt.Shard = s
	}
	// The zero value of collect.Options.Repeats means the default, so the
	// flag rejects 0 itself rather than have it silently mean 5.
	if opt.Repeats < 1 {
		return fmt.Errorf("collect: --repeats must be >= 1, got %d", opt.Repeats)
	}
	for name, v := range map[string]int{"programs-per-process": perProcess, "memory-per-process": growthMiB, "max-programs": opt.MaxPrograms, "max-growth": maxGrowthMiB} {
		if v < 0 {
			return fmt.Errorf("collect: --%s must be >= 0, got %d", name, v)
		}
	}
	opt.MaxGrowthBytes = int64(maxGrowthMiB) << 20
	if opt.Timeout <= 0 {
		return fmt.Errorf("collect: --timeout must be > 0, got %v", opt.Timeout)
	}
	var err error
	if opt.Compression, err = record.ParseCompression(compression); err != nil {
		return fmt.Errorf("collect: --compression must be zstd or none, got %q", compression)
	}
	k, err := datasets.Lookup(kernel)
	if err != nil {
		return fmt.Errorf("collect: %w", err)
	}
	if shapes != "" {
		if opt.Tasks, err = features.ParseTasks(k.TaskNames, shapes); err != nil {
			return fmt.Errorf("collect: --shapes: %w", err)
		}
	}
	opt.Sample = sample
	opt.Progress = stderr
	opt.Log = stderr
	ctx, stop := stopOnSignals(ctx, stderr)
	defer stop()
	if perProcess > 0 && opt.MaxPrograms == 0 && opt.MaxGrowthBytes == 0 {
		if err := collect.Check(k, opt); err != nil {
			return err
		}
		return collectInChildren(ctx, args, perProcess, growthMiB, stdout, stderr)
	}
	sum, err := collect.Run(ctx, k, out, opt)
	if sum != nil {
		fmt.Fprintln(stdout, sum)
	}
	if err != nil || co.Top == 0 {
		return err
	}
	opt.MaxPrograms, opt.MaxGrowthBytes = 0, 0 // the second pass builds few programs
	csum, err := collect.Confirm(ctx, k, out, opt, co)
	if csum != nil && csum.Path != "" {
		fmt.Fprintf(stdout, "confirmed: %s\n", csum)
	}
	return err
}

// defaultProgramsPerProcess and defaultGrowthMiB bound a collecting
// process's memory. PoCL 3.1 keeps what it built until the process ends
// (releasing the context gives none of it back): on the 2-core EPYC a new
// process grows by about 250 MB over its first hundred or so programs,
// then by about 0.5 MB a program it compiles (60 KB one it loads from its
// cache). A child stops at whichever limit comes first; the growth limit
// must leave room for that start-up, or every child would stop during
// it. A new child costs a few seconds of driver start-up.
const (
	defaultProgramsPerProcess = 500
	defaultGrowthMiB          = 512
)

// exitMore is the exit status of a collecting child stopped by
// --max-programs: more remains to measure.
const exitMore = 3

// exitStatus is an error that has already been reported (by a child
// process, on the shared stderr): main exits with its code and prints
// nothing more.
type exitStatus int

func (e exitStatus) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// collectInChildren runs this collect command again in child processes,
// each stopping after perProcess programs (--max-programs), until one
// finishes: the collection resumes from the rows on disk each time, so
// no process lives long enough for the driver's per-program memory to
// add up. Each child measures the device's platform features itself
// (collect.Options.NoBench unset) rather than being handed this process's:
// see collect's engine.bench for why. A signal that stops this process is passed on to the child,
// which stops between two configurations and keeps what it measured; on
// Linux the child is killed if this process dies without one (SIGKILL).
func collectInChildren(ctx context.Context, args []string, perProcess, growthMiB int, stdout, stderr io.Writer) error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("collect: cannot start a measuring process: %w", err)
	}
	child := append([]string{"collect"}, args...)
	child = append(child, "--max-programs", strconv.Itoa(perProcess), "--max-growth", strconv.Itoa(growthMiB))
	for {
		cmd := exec.Command(exe, child...)
		cmd.Stdout, cmd.Stderr = stdout, stderr
		dieWithParent(cmd)
		if err := cmd.Start(); err != nil {
			return fmt.Errorf("collect: cannot start a measuring process: %w", err)
		}
		waited := make(chan error, 1)
		go func() { waited <- cmd.Wait() }()
		select {
		case err = <-waited:
		case <-ctx.Done():
			sig := os.Signal(os.Interrupt)
			var s signalCause
			if errors.As(context.Cause(ctx), &s) {
				sig = s.sig
			}
			cmd.Process.Signal(sig)
			err = <-waited
		}
		var exit *exec.ExitError
		switch {
		case err == nil:
			return nil
		case errors.As(err, &exit) && exit.ExitCode() == exitMore && ctx.Err() == nil:
			continue
		case errors.As(err, &exit) && exit.ExitCode() > 0:
			return exitStatus(exit.ExitCode())
		default:
			return fmt.Errorf("collect: measuring process: %w", err)
		}
	}
}

// signalCause is the cause of a context cancelled by stopOnSignals.
type signalCause struct{ sig os.Signal }

func (s signalCause) Error() string { return fmt.Sprintf("received %v", s.sig) }

// stopOnSignals returns a context cancelled by SIGINT, SIGTERM or SIGHUP,
// with the signal as its cause: a pre-empted or hung-up job then stops
// between two configurations and keeps what it measured. That waits for
// the builds in flight, which a GPU driver may take minutes over (NVIDIA
// built some stencil programs for over 4 minutes), so it says so on
// stderr, and a second signal ends the process at once with status 128 +
// the signal's number: every row measured is on disk already (a partial
// file the next run recovers), and on Linux the measuring child dies with
// its parent.
func stopOnSignals(parent context.Context, stderr io.Writer) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(parent)
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		select {
		case s := <-sigs:
			cancel(signalCause{s})
			fmt.Fprintf(stderr, "collect: %v: stopping once the configurations in flight are measured; a second signal stops at once\n", s)
		case <-finished:
			return
		}
		select {
		case s := <-sigs:
			fmt.Fprintf(stderr, "collect: %v again: stopping now; the rows measured are on disk\n", s)
			code := 1
			if n, ok := s.(syscall.Signal); ok {
				code = 128 + int(n)
			}
			os.Exit(code)
		case <-finished:
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		cancel(errors.New("collect finished"))
		close(finished)
		<-done
	}
}
