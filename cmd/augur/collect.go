package main

import (
	"context"
	"fmt"
	"io"

	"github.com/augur-tuning/augur/collect"
	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/features"
)

func runCollect(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var (
		kernel, out, shapes, sample string
		opt                         collect.Options
	)
	fs := flags("collect", "--kernel NAME --out DIR [--device N] [--shapes 'k=v,...;...'] [--sample all|random:N] [--repeats R] [--seed S]", stderr)
	fs.StringVar(&kernel, "kernel", "", "kernel family (see 'augur kernels')")
	fs.StringVar(&out, "out", "", "dataset directory; files go to DIR/<kernel>/<device>/")
	fs.IntVar(&opt.Device, "device", 0, "device index (see 'augur devices')")
	fs.StringVar(&shapes, "shapes", "", "shapes separated by ';' (default: the kernel's own list)")
	fs.StringVar(&sample, "sample", "random:100", "configurations per shape: all, or random:N")
	fs.IntVar(&opt.Repeats, "repeats", 5, "timed runs per configuration, after one warm-up")
	fs.Uint64Var(&opt.Seed, "seed", 1, "seed of the random sample and the input data")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := required(fs, "kernel", "out"); err != nil {
		return err
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
	sum, err := collect.Run(ctx, k, out, opt)
	if sum != nil {
		fmt.Fprintln(stdout, sum)
	}
	if err != nil {
		return fmt.Errorf("collect: %w", err)
	}
	return nil
}
