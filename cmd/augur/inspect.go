package main

import (
	"context"
	"fmt"
	"io"

	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/train"
)

func runInspect(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var model string
	fs := flags("inspect", "--model FILE", stderr)
	fs.StringVar(&model, "model", "", "model bundle written by 'augur train'")
	if err := parse(fs, args, stdout); err != nil {
		return err
	}
	if err := required(fs, "model"); err != nil {
		return err
	}
	b, err := features.ReadBundleFile(model)
	if err != nil {
		return fmt.Errorf("inspect: %w", err)
	}
	return train.WriteSummary(stdout, b)
}
