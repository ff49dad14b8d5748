package main

import (
	"context"
	"fmt"
	"io"

	"github.com/augur-tuning/augur/train"
)

func runTrain(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var (
		data, out string
		opt       train.Options
	)
	fs := flags("train", "--data DIR --kernel NAME --out FILE [--model gbrt] [--folds K] [--seed S]", stderr)
	fs.StringVar(&data, "data", "", "dataset directory written by 'augur collect'")
	fs.StringVar(&opt.Kernel, "kernel", "", "kernel family whose data to train on")
	fs.StringVar(&out, "out", "", "model bundle to write (refuses to overwrite unless --force)")
	fs.StringVar(&opt.Model, "model", "gbrt", "learner: gbrt")
	fs.IntVar(&opt.Folds, "folds", 5, "cross-validation folds; 1 skips cross-validation")
	fs.Uint64Var(&opt.Seed, "seed", 1, "seed of folds and learner")
	force := fs.Bool("force", false, "overwrite --out if it exists")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := required(fs, "data", "kernel", "out"); err != nil {
		return err
	}
	if err := checkWritable(out, *force); err != nil {
		return fmt.Errorf("train: %w", err)
	}
	b, rep, err := train.Train(data, opt)
	if err != nil {
		return fmt.Errorf("train: %w", err)
	}
	if err := writeBundle(out, b); err != nil {
		return fmt.Errorf("train: %w", err)
	}
	fmt.Fprintln(stdout, rep)
	fmt.Fprintf(stdout, "wrote %s\n", out)
	return nil
}
