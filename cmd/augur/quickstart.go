package main

import (
	"context"
	"fmt"
	"io"

	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/eval"
	"github.com/augur-tuning/augur/features"
)

func runQuickstart(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var opt eval.QuickstartOptions
	fs := flags("quickstart", "[--out DIR] [--device N]", stderr)
	fs.StringVar(&opt.Out, "out", "augur-quickstart", "directory for the collected data and the model")
	fs.IntVar(&opt.Device, "device", 0, "device index (see 'augur devices')")
	fs.IntVar(&opt.TrainSample, "train-sample", 0, "random configurations per training shape (0: 300)")
	fs.IntVar(&opt.HoldoutSample, "holdout-sample", 0, "random configurations compared per held-out shape (0: 300)")
	shapes := fs.String("shapes", "", "training shapes separated by ';' (default: five shapes of the family sized for a CPU device)")
	holdout := fs.String("holdout", "", "held-out shapes separated by ';' (default: two shapes of the family sized for a CPU device)")
	fs.StringVar(&opt.Kernel, "kernel", "conv2d", "kernel family")
	if err := parse(fs, args, stdout); err != nil {
		return err
	}
	k, err := datasets.Lookup(opt.Kernel)
	if err != nil {
		return fmt.Errorf("quickstart: %w", err)
	}
	if *shapes != "" {
		if opt.TrainShapes, err = features.ParseTasks(k.TaskNames, *shapes); err != nil {
			return fmt.Errorf("quickstart: --shapes: %w", err)
		}
	}
	if *holdout != "" {
		if opt.HoldoutShapes, err = features.ParseTasks(k.TaskNames, *holdout); err != nil {
			return fmt.Errorf("quickstart: --holdout: %w", err)
		}
	}
	opt.Progress = stderr
	res, err := eval.Quickstart(ctx, opt)
	if err != nil {
		return fmt.Errorf("quickstart: %w", err)
	}
	return res.WriteTable(stdout)
}
