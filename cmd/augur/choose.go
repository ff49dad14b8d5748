package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/augur-tuning/augur/collect"
	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/runtime"
)

type chooseOptions struct {
	model, shape, device, use string
	json                      bool
	shapes, platforms, wisdom string
	top                       int
	trust                     trustOptions
}

func runChoose(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var o chooseOptions
	fs := flags("choose", "--model FILE --shape 'k=v,...'|--shapes 'k=v,...;k=v,...'|--shapes - [--device N|NAME [--platforms FILE]] [--use MODEL] [--top K] [--wisdom FILE] [--json] [--trusted-keys FILE,...]", stderr)
	fs.StringVar(&o.model, "model", "", "model bundle written by 'augur train'")
	fs.StringVar(&o.shape, "shape", "", "input shape, e.g. 'width=1024,height=768,filter_w=5,filter_h=5'")
	fs.StringVar(&o.device, "device", "", "device to choose for: an index N (see 'augur devices'; its queried features pick the model) or a device name or slug; empty: the bundle's only model, or its fleet model")
	fs.StringVar(&o.use, "use", "", "bundle model to use, by name (a device slug or 'fleet'), whatever the device")
	fs.BoolVar(&o.json, "json", false, "print one JSON object with shape, config, predicted_speedup, source, choose_ns, plan (build_options, dims, global, local, local_mem_bytes), candidates with --top, clamped when the model's prediction lay outside its training range (and was clamped to it) and, when the bundle's classifier fixed a parameter, fixed")
	fs.StringVar(&o.shapes, "shapes", "", "several shapes separated by ';', or '-' for one a line on standard input: one JSON line each (as --json), in one process; a shape that fails answers {\"shape\", \"error\"} and the exit status is 1")
	fs.StringVar(&o.platforms, "platforms", "", "device table (CSV, as datasets/devices.csv) in which --device NAME is looked up when the bundle has no model of it; default: the table augur ships")
	fs.IntVar(&o.top, "top", 0, "also print K candidates for the shape to measure once each (runtime Candidates): the pick, then the nearest training shapes' measured bests and the model's ranking in turn")
	fs.StringVar(&o.wisdom, "wisdom", "", "wisdom file (JSON lines, as 'augur tune --top K --wisdom FILE' writes) consulted before the model: a shape measured on the device answers with its fastest record (source \"wisdom\")")
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
			return noDevice("choose", n, len(devs))
		}
		opt.Device, opt.Platform = devs[n].Slug(), &devs[n]
	}
	data, err := os.ReadFile(o.model)
	if err != nil {
		return fmt.Errorf("choose: %w", err)
	}
	if o.trust.sig != "" && o.trust.keys == "" {
		return fmt.Errorf("choose: --signature is checked against --trusted-keys only; give both, or neither")
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
	if o.wisdom != "" {
		w, err := openChooseWisdom(o.wisdom, ch, opt, stderr)
		if err != nil {
			return err
		}
		defer w.Close()
		opt.Wisdom = w
		if ch, err = runtime.New(data, opt); err != nil {
			return fmt.Errorf("choose: %s: %w", o.model, err)
		}
	}
	if ch.Source() == runtime.SourceReference {
		// Never a silent reference: the caller asked for a device the
		// bundle cannot serve.
		return fmt.Errorf("choose: %s has no model for device %q and no fleet model to serve it; use --use MODEL to choose with one of its models anyway", o.model, o.device)
	}
	warnOtherDevice(stderr, ch, o.device)
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

// openChooseWisdom opens an existing wisdom file for the device ch
// serves: the device's platform slug, or that of its own model. A fleet
// model with no device named has no device to read records of.
func openChooseWisdom(path string, ch *runtime.Chooser, opt runtime.Options, stderr io.Writer) (*runtime.Wisdom, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("choose: --wisdom: %w", err) // reading must not create it
	}
	var device string
	switch {
	case opt.Platform != nil:
		device = opt.Platform.Slug()
	case strings.HasPrefix(ch.Source(), "model:"):
		device = strings.TrimPrefix(ch.Source(), "model:")
	default:
		return nil, fmt.Errorf("choose: --wisdom: the records are per device; name one with --device (the bundle's model is %q)", ch.Source())
	}
	w, err := runtime.OpenWisdom(path, runtime.WisdomOptions{KernelVersion: ch.KernelVersion(), Device: device, Warn: stderr})
	if err != nil {
		return nil, fmt.Errorf("choose: %w", err)
	}
	return w, nil
}

// warnOtherDevice warns when the device asked for is answered by another
// device's own model (a bundle's only model serves any device): its picks
// were learnt on other hardware.
func warnOtherDevice(w io.Writer, ch *runtime.Chooser, device string) {
	if m := ch.OtherDevice(); m != "" {
		fmt.Fprintf(w, "augur: warning: the bundle has no model of %s; its model of %s answers, learnt on that device\n", device, m)
	}
}
