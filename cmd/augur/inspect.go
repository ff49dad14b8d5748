package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/train"
)

func runInspect(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var model string
	var trust trustOptions
	fs := flags("inspect", "--model FILE [--trusted-keys FILE,...]", stderr)
	fs.StringVar(&model, "model", "", "model bundle written by 'augur train'")
	asJSON := fs.Bool("json", false, "print one JSON object: the bundle's fields and each model's kind, trees, rows and stats, without the trees themselves")
	trust.register(fs)
	if err := parse(fs, args, stdout); err != nil {
		return err
	}
	if err := required(fs, "model"); err != nil {
		return err
	}
	keys, sig, err := trust.load(model)
	if err != nil {
		return fmt.Errorf("inspect: %w", err)
	}
	data, err := os.ReadFile(model)
	if err != nil {
		return fmt.Errorf("inspect: %w", err)
	}
	// The signature is checked first, as runtime.New does: a bundle no
	// trusted key signed is not parsed at all.
	// With --json the line goes to stderr, so that stdout stays one JSON
	// object.
	// The line comes once the bundle parsed: a file that is no bundle
	// gets its one-line error alone.
	state, err := signatureState(data, sig, keys)
	say := func() {
		if *asJSON {
			fmt.Fprintln(stderr, state)
		} else {
			fmt.Fprintln(stdout, state)
		}
	}
	if err != nil {
		say()
		return fmt.Errorf("inspect: %s: %w", model, err)
	}
	b, err := features.ReadBundle(data)
	if err != nil {
		return fmt.Errorf("inspect: %s: %w", model, err)
	}
	say()
	if *asJSON {
		return writeInspectJSON(stdout, b)
	}
	return train.WriteSummary(stdout, b, train.SummaryOptions{Labels: datasets.BundleParamLabels(b), Constraints: datasets.BundleConditions(b)})
}
