package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"time"

	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/runtime"
)

type chooseOptions struct {
	model, shape, name string
	json               bool
}

func runChoose(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var o chooseOptions
	fs := flags("choose", "--model FILE --shape 'k=v,...' [--json]", stderr)
	fs.StringVar(&o.model, "model", "", "model bundle written by 'augur train'")
	fs.StringVar(&o.shape, "shape", "", "input shape, e.g. 'width=1024,height=768,filter_w=5,filter_h=5'")
	fs.StringVar(&o.name, "device", "", "bundle model to use (a device slug or 'fleet'); empty: the only or fleet model")
	fs.BoolVar(&o.json, "json", false, "print one JSON object with config, predicted_speedup, choose_ns and, when the bundle's classifier fixed a parameter, fixed")
	if err := parse(fs, args, stdout); err != nil {
		return err
	}
	if err := required(fs, "model", "shape"); err != nil {
		return err
	}
	data, err := os.ReadFile(o.model)
	if err != nil {
		return fmt.Errorf("choose: %w", err)
	}
	ch, err := runtime.New(data, runtime.Options{Model: o.name})
	if err != nil {
		return fmt.Errorf("choose: %s: %w", o.model, err)
	}
	task, err := features.ParseTask(ch.TaskNames(), o.shape)
	if err != nil {
		return fmt.Errorf("choose: %w", err)
	}
	start := time.Now()
	pick, err := ch.ChoosePick(task)
	took := time.Since(start)
	if err != nil {
		return fmt.Errorf("choose: %w", err)
	}
	cfg := pick.Config
	logSpeedup, err := ch.Predict(task, cfg)
	if err != nil {
		return fmt.Errorf("choose: %w", err)
	}
	if o.json {
		named := map[string]int{}
		for i, p := range ch.Space().Params {
			named[p.Name] = cfg[i]
		}
		return json.NewEncoder(stdout).Encode(struct {
			Config           map[string]int `json:"config"`
			PredictedSpeedup float64        `json:"predicted_speedup"`
			ChooseNs         int64          `json:"choose_ns"`
			Fixed            string         `json:"fixed,omitempty"`
		}{named, math.Exp(logSpeedup), took.Nanoseconds(), pick.Fixed})
	}
	fmt.Fprintf(stdout, "config:            %s\n", ch.Space().Format(cfg))
	fmt.Fprintf(stdout, "predicted speedup: %.3fx over the reference (%s)\n", math.Exp(logSpeedup), ch.Space().Format(ch.Reference()))
	if pick.Fixed != "" {
		fmt.Fprintf(stdout, "classifier fixed:  %s\n", pick.Fixed)
	}
	fmt.Fprintf(stdout, "choose took:       %s\n", took)
	return nil
}
