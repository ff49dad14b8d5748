package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/augur-tuning/augur/collect"
	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/runtime"
)

type chooseOptions struct {
	model, shape, device, use string
	json                      bool
}

func runChoose(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var o chooseOptions
	fs := flags("choose", "--model FILE --shape 'k=v,...' [--device N|NAME] [--use MODEL] [--json]", stderr)
	fs.StringVar(&o.model, "model", "", "model bundle written by 'augur train'")
	fs.StringVar(&o.shape, "shape", "", "input shape, e.g. 'width=1024,height=768,filter_w=5,filter_h=5'")
	fs.StringVar(&o.device, "device", "", "device to choose for: an index N (see 'augur devices'; its queried features pick the model) or a device name or slug; empty: the bundle's only model, or its fleet model")
	fs.StringVar(&o.use, "use", "", "bundle model to use, by name (a device slug or 'fleet'), whatever the device")
	fs.BoolVar(&o.json, "json", false, "print one JSON object with config, predicted_speedup, source, choose_ns and, when the bundle's classifier fixed a parameter, fixed")
	if err := parse(fs, args, stdout); err != nil {
		return err
	}
	if err := required(fs, "model", "shape"); err != nil {
		return err
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
	ch, err := runtime.New(data, opt)
	if err != nil {
		return fmt.Errorf("choose: %s: %w", o.model, err)
	}
	task, err := features.ParseTask(ch.TaskNames(), o.shape)
	if err != nil {
		return fmt.Errorf("choose: %w", err)
	}
	start := time.Now()
	p, err := ch.ChoosePick(task)
	took := time.Since(start)
	if err != nil {
		return fmt.Errorf("choose: %w", err)
	}
	if o.json {
		return json.NewEncoder(stdout).Encode(p.Report(took))
	}
	return ch.WritePick(stdout, p, took)
}
