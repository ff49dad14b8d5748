package main

import (
	"bytes"
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/augur-tuning/augur/collect"
	"github.com/augur-tuning/augur/collect/opencl"
	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/train"
)

// TestEndToEnd is "your own kernel" on the first OpenCL device (PoCL on a
// machine without a GPU): collect a few dozen configurations of the spec
// kernel on small shapes, train, then choose for a shape never measured
// and launch the pick from its plan alone, checking the output.
func TestEndToEnd(t *testing.T) {
	if devs, err := opencl.Devices(); err != nil || len(devs) == 0 {
		t.Skipf("no OpenCL device: %v", err)
	}
	ctx := context.Background()
	k, err := datasets.ReadSpec("partialsum.json")
	if err != nil {
		t.Fatal(err)
	}
	shapes, err := features.ParseTasks(k.TaskNames, "n=1000;n=30000;n=100000;n=250000")
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
	model := filepath.Join(dir, "partialsum.augur")
	if err := features.WriteBundleFile(model, b); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := run(ctx, []string{"--model", model, "--n", "77777"}, &out); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "verified") {
		t.Errorf("output:\n%s", out.String())
	}
}
