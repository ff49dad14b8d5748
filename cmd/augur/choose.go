package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/augur-tuning/augur/collect"
	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/runtime"
)

type chooseOptions struct {
	model, shape, device, use string
	json                      bool
	shapes, platforms         string
	top                       int
	trust                     trustOptions
}

func runChoose(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var o chooseOptions
	fs := flags("choose", "--model FILE --shape 'k=v,...'|--shapes 'k=v,...;k=v,...'|--shapes - [--device N|NAME [--platforms FILE]] [--use MODEL] [--top K] [--json] [--trusted-keys FILE,...]", stderr)
	fs.StringVar(&o.model, "model", "", "model bundle written by 'augur train'")
	fs.StringVar(&o.shape, "shape", "", "input shape, e.g. 'width=1024,height=768,filter_w=5,filter_h=5'")
	fs.StringVar(&o.device, "device", "", "device to choose for: an index N (see 'augur devices'; its queried features pick the model) or a device name or slug; empty: the bundle's only model, or its fleet model")
	fs.StringVar(&o.use, "use", "", "bundle model to use, by name (a device slug or 'fleet'), whatever the device")
	fs.BoolVar(&o.json, "json", false, "print one JSON object with shape, config, predicted_speedup, source, choose_ns, plan (build_options, dims, global, local, local_mem_bytes), candidates with --top and, when the bundle's classifier fixed a parameter, fixed")
	fs.StringVar(&o.shapes, "shapes", "", "several shapes separated by ';', or '-' for one a line on standard input: one JSON line each (as --json), in one process; a shape that fails answers {\"shape\", \"error\"} and the exit status is 1")
	fs.StringVar(&o.platforms, "platforms", "", "device table (CSV, as datasets/devices.csv) in which --device NAME is looked up when the bundle has no model of it; default: the table augur ships")
	fs.IntVar(&o.top, "top", 0, "also print the model's K best candidates for the shape (runtime Candidates), the pick first")
	o.trust.register(fs)
	if err := parse(fs, args, stdout); err != nil {
		return err
	}
	if err := required(fs, "model"); err != nil {
		return err
	}
	switch {
	case (o.shape == "") == (o.shapes == ""):
		return usagef("choose: give one of --shape and --shapes")
	case o.top < 0:
		return usagef("choose: --top must be >= 1, got %d", o.top)
	}
	opt := runtime.Options{Model: o.use, Device: o.device}
	if n, err := strconv.Atoi(o.device); err == nil {
		devs, err := collect.ListDevices()
		if err != nil {
			return fmt.Errorf("choose: --device %d: %w", n, err)
		}
		if n < 0 || n >= len(devs) {
			return fmt.Errorf("choose: --device must be in [0, %d], got %d", len(devs)-1, n)
		}
		opt.Device, opt.Platform = devs[n].Slug(), &devs[n]
	}
	data, err := os.ReadFile(o.model)
	if err != nil {
		return fmt.Errorf("choose: %w", err)
	}
	if opt.TrustedKeys, opt.Signature, err = o.trust.load(o.model); err != nil {
		return fmt.Errorf("choose: %w", err)
	}
	if _, err := strconv.Atoi(o.device); err != nil && o.device != "" && o.use == "" {
		b, err := features.ReadBundle(data)
		if err != nil {
			return fmt.Errorf("choose: %s: %w", o.model, err)
		}
		if err := chooseDevice(b, o.device, o.platforms, &opt); err != nil {
			return err
		}
	}
	ch, err := runtime.New(data, opt)
	if err != nil {
		return fmt.Errorf("choose: %s: %w", o.model, err)
	}
	if ch.Source() == runtime.SourceReference {
		// Never a silent reference: the caller asked for a device the
		// bundle cannot serve.
		return fmt.Errorf("choose: %s has no model for device %q and no fleet model to serve it; use --use MODEL to choose with one of its models anyway", o.model, o.device)
	}
	if o.shapes != "" {
		return chooseMany(stdout, os.Stdin, ch, o.shapes, o.top)
	}
	if err := chooseOne(stdout, ch, o.shape, o.top, o.json); err != nil || o.json {
		return err
	}
	if k := ch.SignedBy(); k != "" {
		fmt.Fprintf(stdout, "signature: verified, signed by trusted key %s\n", k)
	}
	return nil
}
