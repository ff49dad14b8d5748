package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/augur-tuning/augur/collect"
	"github.com/augur-tuning/augur/collect/record"
	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/features"
)

func runCollect(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var (
		kernel, out, shapes, sample, compression string
		opt                                      collect.Options
	)
	fs := flags("collect", "--kernel NAME --out DIR [--device N] [--shapes 'k=v,...;...'] [--sample all|random:N] [--repeats R] [--seed S] [--timeout D] [--compression zstd|none] [--shard I/N]", stderr)
	fs.StringVar(&kernel, "kernel", "", "kernel family (see 'augur kernels')")
	fs.StringVar(&out, "out", "", "dataset directory; files go to DIR/<kernel>/<device>/")
	fs.IntVar(&opt.Device, "device", 0, "device index (see 'augur devices')")
	fs.StringVar(&shapes, "shapes", "", "shapes separated by ';' (default: the kernel's own list); repeats are measured once")
	fs.StringVar(&sample, "sample", "random:100", "configurations per shape: all, or random:N")
	fs.IntVar(&opt.Repeats, "repeats", collect.DefaultRepeats, "timed runs per configuration, after one warm-up (>= 1)")
	var co collect.ConfirmOptions
	fs.IntVar(&co.Top, "confirm", 0, "then time each shape's N fastest configurations again with --confirm-repeats (0: no second pass)")
	fs.IntVar(&co.Repeats, "confirm-repeats", 0, "timed runs of the second pass (0: three times --repeats)")
	fs.Float64Var(&co.MaxCV, "confirm-cv", 0, "with --confirm: also time again every row whose coefficient of variation exceeds this (0: none)")
	fs.Uint64Var(&opt.Seed, "seed", 1, "seed of the random sample and the input data")
	fs.DurationVar(&opt.Timeout, "timeout", collect.DefaultTimeout, "longest one kernel run may take; a run still going is abandoned and recorded as a timeout")
	fs.StringVar(&compression, "compression", string(record.CompressionZstd), "codec of the files' record batches: zstd, or none for readers without codecs (Arrow JS)")
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
	ctx, stop := stopOnSignals(ctx)
	defer stop()
	sum, err := collect.Run(ctx, k, out, opt)
	if sum != nil {
		fmt.Fprintln(stdout, sum)
	}
	if err != nil || co.Top == 0 {
		return err
	}
	csum, err := collect.Confirm(ctx, k, out, opt, co)
	if csum != nil && csum.Path != "" {
		fmt.Fprintf(stdout, "confirmed: %s\n", csum)
	}
	return err
}

// stopOnSignals returns a context cancelled by SIGINT, SIGTERM or SIGHUP,
// with the signal as its cause: a pre-empted or hung-up job then stops
// between two configurations and keeps what it measured, as Ctrl-C does.
func stopOnSignals(parent context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(parent)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	done := make(chan struct{})
	go func() {
		defer close(done)
		select {
		case s := <-sigs:
			cancel(fmt.Errorf("received %v", s))
		case <-ctx.Done():
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		cancel(errors.New("collect finished"))
		<-done
	}
}
