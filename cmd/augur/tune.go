package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/tune"
)

func runTune(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var (
		kr    kernelRef
		shape string
		opt   tune.TuneOptions
	)
	var prior, model, wisdom string
	var top int
	fs := flags("tune", "--kernel NAME|--spec FILE --shape 'k=v,...' [--prior BUNDLE] [--budget N] [--max N] [--threshold T] [--batch N] [--out DIR] [--device N|NAME] [--repeats R] [--seed S] [--json]\n       augur tune --kernel NAME|--spec FILE --shape 'k=v,...' --model BUNDLE --top K --wisdom FILE [--device N|NAME] [--repeats R] [--json]", stderr)
	addKernelFlags(fs, &kr, "kernel family")
	fs.StringVar(&shape, "shape", "", "the shape to tune for")
	fs.StringVar(&prior, "prior", "", "model bundle whose ranking for this device the fleet-prior tuner starts from (its fleet model for a device it has no model of); empty: the two-stage tuner")
	fs.IntVar(&opt.Budget, "budget", 0, "two-stage: the most configurations measured at random first (fewer where many are predicted to fail); with --prior: all measurements (0: 2% of the space)")
	fs.IntVar(&opt.Max, "max", 0, "the most configurations measured in all, both stages (a measurement budget; the first stage takes half, or --budget if smaller); with --prior, as --budget (the smaller wins); 0: no cap, the threshold decides")
	fs.Float64Var(&opt.Threshold, "threshold", 0, "two-stage: stop when the chance that the next configuration beats the best falls below this (0: 0.1); with --prior: the chance that any beats it by 1% (0: 0.05)")
	fs.IntVar(&opt.Batch, "batch", 0, "configurations measured per device session, and with --prior between refits (0: 8)")
	fs.StringVar(&opt.Out, "out", "", "dataset directory for every measurement (empty: keep nothing)")
	addDeviceFlag(fs, &opt.Device, "device to measure on")
	fs.IntVar(&opt.Repeats, "repeats", 5, "timed runs per configuration")
	fs.Uint64Var(&opt.Seed, "seed", 1, "seed")
	fs.IntVar(&top, "top", 0, "measure the K best candidates of --model's model for the device (runtime Candidates) once each and append them, with the reference, to --wisdom; no tuner runs")
	fs.StringVar(&model, "model", "", "with --top: the model bundle whose candidates are measured")
	fs.StringVar(&wisdom, "wisdom", "", "with --top: the wisdom file (JSON lines) the measurements are appended to")
	asJSON := fs.Bool("json", false, "print one JSON object: shape, device, config, best_ns, ref_ns, first_stage, second_stage, space_size, learner (the two-stage tuner's first-stage model), prior, path; with --top: shape, device, config, best_ns, ref_ns, recorded, candidates")
	if err := parse(fs, args, stdout); err != nil {
		return err
	}
	if err := kr.check("tune"); err != nil {
		return err
	}
	if err := required(fs, "shape"); err != nil {
		return err
	}
	if opt.Repeats < 1 {
		return usagef("tune: --repeats must be >= 1, got %d", opt.Repeats)
	}
	if opt.Max < 0 || opt.Max == 1 {
		return fmt.Errorf("tune: --max must be 0 (no cap) or at least 2, got %d", opt.Max)
	}
	if !(opt.Threshold >= 0 && opt.Threshold < 1) {
		return fmt.Errorf("tune: --threshold must be in (0, 1), or 0 for the default; got %g", opt.Threshold)
	}
	if opt.Out != "" {
		if err := checkOutDir(opt.Out); err != nil {
			return fmt.Errorf("tune: --out: %w", err)
		}
	}
	k, err := kr.kernel("tune")
	if err != nil {
		return err
	}
	t, err := parseShape(k, shape)
	if err != nil {
		return fmt.Errorf("tune: --shape: %w", err)
	}
	if top != 0 || model != "" || wisdom != "" {
		if model == "" || wisdom == "" || top == 0 {
			return usagef("tune: measuring a model's candidates needs --model BUNDLE, --top K and --wisdom FILE together")
		}
		var unused []string
		fs.Visit(func(f *flag.Flag) {
			switch f.Name {
			case "prior", "budget", "max", "threshold", "batch", "out", "seed":
				unused = append(unused, "--"+f.Name)
			}
		})
		if len(unused) > 0 {
			return usagef("tune: %s: not with --top, which measures a model's candidates and runs no tuner", strings.Join(unused, ", "))
		}
		return runTuneTop(ctx, k, t, model, wisdom, tune.TopOptions{Device: opt.Device, K: top, Repeats: opt.Repeats}, progressTo(fs, stderr), stdout, *asJSON)
	}
	if prior != "" {
		if opt.Prior, err = features.ReadBundleFile(prior); err != nil {
			return fmt.Errorf("tune: %w", err)
		}
	}
	progress := newReporter(progressTo(fs, stderr), "tune")
	defer progress.Close()
	opt.Progress = progress
	res, err := tune.Tune(ctx, k, t, opt)
	progress.Close()
	if res == nil {
		return err // it names its package
	}
	// An interrupted tuner's answer is the best so far: printed, then
	// the interruption as the error.
	if *asJSON {
		return errors.Join(writeTuneJSON(stdout, res), err)
	}
	fmt.Fprintln(stdout, res)
	return err
}
