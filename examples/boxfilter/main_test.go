package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/augur-tuning/augur/collect"
	"github.com/augur-tuning/augur/collect/opencl"
	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/features"
	augur "github.com/augur-tuning/augur/runtime"
	"github.com/augur-tuning/augur/train"
)

// TestEndToEnd is "your own kernel" on the first OpenCL device (PoCL on a
// machine without a GPU): collect a few dozen configurations of the spec
// kernel on small shapes, train, then choose for a shape never measured
// and launch the pick from its plan alone, checking the output; then launch
// each way of loading the pixels from its plan.
func TestEndToEnd(t *testing.T) {
	devs, err := opencl.Devices()
	if err != nil || len(devs) == 0 {
		t.Skipf("no OpenCL device: %v", err)
	}
	ctx := context.Background()
	k, err := datasets.ReadSpec("boxfilter.json")
	if err != nil {
		t.Fatal(err)
	}
	shapes, err := features.ParseTasks(k.TaskNames, "width=64,height=48,radius=1;width=200,height=100,radius=3;width=128,height=300,radius=2;width=90,height=90,radius=5")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	sum, err := collect.Run(ctx, k, filepath.Join(dir, "data"), collect.Options{Tasks: shapes, Sample: "random:16", Repeats: 2, Progress: io.Discard, Log: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	if ok := sum.Counts["ok"]; ok < len(shapes)*10 {
		t.Fatalf("collect: %d ok rows of %d, want most: %s", ok, sum.Rows(), sum)
	}
	b, _, err := train.Train(filepath.Join(dir, "data"), train.Options{Kernel: k.Name, Model: "gbrt", Folds: 1, Load: train.LoadOptions{Derived: k.Derived}})
	if err != nil {
		t.Fatal(err)
	}
	if err := k.Attach(b); err != nil {
		t.Fatal(err)
	}
	model := filepath.Join(dir, "boxfilter.augur")
	if err := features.WriteBundleFile(model, b); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := run(ctx, []string{"--model", model, "--width", "150", "--height", "111", "--radius", "4"}, &out); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "verified") {
		t.Errorf("output:\n%s", out.String())
	}

	// Whatever the pick, each way of loading launches from its plan and
	// computes the filter: a buffer, a 2D image, a local tile.
	blob, err := os.ReadFile(model)
	if err != nil {
		t.Fatal(err)
	}
	ch, err := augur.New(blob, augur.Options{})
	if err != nil {
		t.Fatal(err)
	}
	dev := devs[0]
	w, h, r := 70, 33, 3
	in := make([]float32, w*h)
	for i := range in {
		in[i] = float32(i%17) / 17
	}
	for _, cfg := range []string{"WG_X=8,WG_Y=4,PPT=2,LOAD=0", "WG_X=16,WG_Y=2,PPT=1,LOAD=1", "WG_X=32,WG_Y=8,PPT=4,LOAD=2"} {
		c, err := ch.Space().Parse(cfg)
		if err != nil {
			t.Fatal(err)
		}
		plan, err := ch.Plan(features.Task{w, h, r}, c)
		if err != nil {
			t.Fatal(err)
		}
		got, err := launch(ctx, dev, plan, in, w, h, r)
		if err != nil {
			t.Fatalf("%s: %v", cfg, err)
		}
		if err := check(in, got, w, h, r); err != nil {
			t.Errorf("%s: %v", cfg, err)
		}
	}
}
