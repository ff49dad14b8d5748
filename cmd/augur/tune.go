package main

import (
	"context"
	"fmt"
	"io"

	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/eval"
	"github.com/augur-tuning/augur/features"
)

func runTune(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var (
		kernel, shape string
		opt           eval.TuneOptions
	)
	var prior string
	fs := flags("tune", "--kernel NAME --shape 'k=v,...' [--prior BUNDLE] [--budget N] [--threshold T] [--out DIR] [--device N]", stderr)
	fs.StringVar(&kernel, "kernel", "", "kernel family")
	fs.StringVar(&shape, "shape", "", "the shape to tune for")
	fs.StringVar(&prior, "prior", "", "model bundle whose ranking for this device the fleet-prior tuner starts from (its fleet model for a device it has no model of); empty: the two-stage tuner")
	fs.IntVar(&opt.Budget, "budget", 0, "two-stage: configurations measured at random first; with --prior: all measurements (0: 2% of the space)")
	fs.Float64Var(&opt.Threshold, "threshold", 0, "two-stage: stop when the chance that the next configuration beats the best falls below this (0: 0.1); with --prior: the chance that any beats it by 1% (0: 0.05)")
	fs.IntVar(&opt.Batch, "batch", 0, "configurations measured per device session, and with --prior between refits (0: 8)")
	fs.StringVar(&opt.Out, "out", "", "dataset directory for every measurement (empty: keep nothing)")
	fs.IntVar(&opt.Device, "device", 0, "device index (see 'augur devices')")
	fs.IntVar(&opt.Repeats, "repeats", 5, "timed runs per configuration")
	fs.Uint64Var(&opt.Seed, "seed", 1, "seed")
	if err := parse(fs, args, stdout); err != nil {
		return err
	}
	if err := required(fs, "kernel", "shape"); err != nil {
		return err
	}
	if !(opt.Threshold >= 0 && opt.Threshold < 1) {
		return fmt.Errorf("tune: --threshold must be in (0, 1), or 0 for the default; got %g", opt.Threshold)
	}
	k, err := datasets.Lookup(kernel)
	if err != nil {
		return fmt.Errorf("tune: %w", err)
	}
	t, err := features.ParseTask(k.TaskNames, shape)
	if err != nil {
		return fmt.Errorf("tune: --shape: %w", err)
	}
	if prior != "" {
		if opt.Prior, err = features.ReadBundleFile(prior); err != nil {
			return fmt.Errorf("tune: %w", err)
		}
	}
	res, err := eval.Tune(ctx, k, t, opt)
	if err != nil {
		return fmt.Errorf("tune: %w", err)
	}
	fmt.Fprintln(stdout, res)
	return nil
}
