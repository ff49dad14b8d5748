package main

import (
	"context"
	"fmt"
	"io"

	"github.com/augur-tuning/augur/eval"
)

func runQuickstart(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var opt eval.QuickstartOptions
	fs := flags("quickstart", "[--out DIR] [--device N]", stderr)
	fs.StringVar(&opt.Out, "out", "augur-quickstart", "directory for the collected data and the model")
	fs.IntVar(&opt.Device, "device", 0, "device index (see 'augur devices')")
	fs.IntVar(&opt.TrainSample, "train-sample", 0, "random configurations per training shape (0: 150)")
	fs.IntVar(&opt.HoldoutSample, "holdout-sample", 0, "random configurations compared per held-out shape (0: 500)")
	if err := parse(fs, args); err != nil {
		return err
	}
	opt.Progress = stderr
	res, err := eval.Quickstart(ctx, opt)
	if err != nil {
		return fmt.Errorf("quickstart: %w", err)
	}
	return res.WriteTable(stdout)
}
