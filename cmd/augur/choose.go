package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
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
		named := map[string]int{}
		for i, q := range ch.Space().Params {
			named[q.Name] = p.Config[i]
		}
		return json.NewEncoder(stdout).Encode(struct {
			Config           map[string]int `json:"config"`
			PredictedSpeedup float64        `json:"predicted_speedup"`
			Source           string         `json:"source"`
			OutsideOctaves   float64        `json:"outside_octaves"`
			ExpectedPct      float64        `json:"expected_pct,omitempty"`
			ChooseNs         int64          `json:"choose_ns"`
			Fixed            string         `json:"fixed,omitempty"`
		}{named, math.Exp(p.LogSpeedup), p.Source, p.OutsideOctaves, p.ExpectedPct, took.Nanoseconds(), p.Fixed})
	}
	fmt.Fprintf(stdout, "config:            %s\n", ch.Space().Format(p.Config))
	fmt.Fprintf(stdout, "predicted speedup: %.3fx over the reference (%s)\n", math.Exp(p.LogSpeedup), ch.Space().Format(ch.Reference()))
	fmt.Fprintf(stdout, "source:            %s\n", p.Source)
	if p.Fixed != "" {
		fmt.Fprintf(stdout, "classifier fixed:  %s\n", p.Fixed)
	}
	if p.ExpectedPct > 0 {
		fmt.Fprintf(stdout, "expected:          %.1f%% of the optimum (worst held-out shape %.1f%%)\n", p.ExpectedPct, p.WorstPct)
	}
	if p.OutsideOctaves > 0 {
		fmt.Fprintf(stdout, "warning:           the shape lies %.1f octaves outside the training shapes; the model extrapolates\n", p.OutsideOctaves)
	}
	if p.Plan.BuildOptions != "" {
		fmt.Fprintf(stdout, "build options:     %s\n", p.Plan.BuildOptions)
		fmt.Fprintf(stdout, "global, local:     %v, %v\n", p.Plan.Global[:p.Plan.Dims], p.Plan.Local[:p.Plan.Dims])
	}
	fmt.Fprintf(stdout, "choose took:       %s\n", took)
	return nil
}
