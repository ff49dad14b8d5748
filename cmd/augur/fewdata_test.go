package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fewDataSpace writes a T1 spec of 4 x 4 x 4 x 4 x 3 = 768 configurations
// and a Kernel Tuner cache of device measured on a random 2% sample of
// them (plus the default) for a width x height problem. It returns the
// spec, the cache and the sample's fastest configuration as
// "name=value,...".
func fewDataSpace(t *testing.T, dir, device string, width, height int) (spec, cache, best string) {
	t.Helper()
	spec = filepath.Join(dir, "spec.json")
	os.WriteFile(spec, []byte(`{"ConfigurationSpace": {"TuningParameters": [
		{"Name": "bx", "Values": "[16, 32, 64, 128]", "Default": 16},
		{"Name": "by", "Values": "[1, 2, 4, 8]", "Default": 1},
		{"Name": "tx", "Values": "[1, 2, 3, 4]", "Default": 1},
		{"Name": "ty", "Values": "[1, 2, 3, 4]", "Default": 1},
		{"Name": "u", "Values": "[0, 1, 2]", "Default": 0}]}}`), 0o644)
	// A smooth landscape with one basin, so that a model has something to
	// learn, and noise, so that the sample's best is not the model's.
	rng := rand.New(rand.NewPCG(uint64(width), 7))
	timeMs := func(bx, by, tx, ty, u int) float64 {
		return 1 + 0.3*math.Abs(math.Log2(float64(bx*by)/128)) + 0.2*math.Abs(float64(tx*ty-6)) + 0.1*float64(u) + 0.2*rng.Float64()
	}
	entries := []string{}
	bestMs := math.Inf(1)
	add := func(bx, by, tx, ty, u int) {
		ms := timeMs(bx, by, tx, ty, u)
		entries = append(entries, fmt.Sprintf(`"%d,%d,%d,%d,%d": {"bx": %d, "by": %d, "tx": %d, "ty": %d, "u": %d, "time": %g, "times": [%g]}`,
			bx, by, tx, ty, u, bx, by, tx, ty, u, ms, ms))
		if ms < bestMs {
			bestMs, best = ms, fmt.Sprintf("bx=%d,by=%d,tx=%d,ty=%d,u=%d", bx, by, tx, ty, u)
		}
	}
	add(16, 1, 1, 1, 0)
	for _, i := range rng.Perm(768)[:16] { // 2% of 768
		bx, by, tx, ty, u := 16<<(i%4), 1<<(i/4%4), 1+i/16%4, 1+i/64%4, i/256
		if bx == 16 && by == 1 && tx == 1 && ty == 1 && u == 0 {
			continue // the default, added above
		}
		add(bx, by, tx, ty, u)
	}
	cache = filepath.Join(dir, "cache.json")
	os.WriteFile(cache, []byte(fmt.Sprintf(`{"device_name": %q, "problem_size": [%d, %d], "tune_params_keys": ["bx", "by", "tx", "ty", "u"],
		"tune_params": {"bx": [16, 32, 64, 128], "by": [1, 2, 4, 8], "tx": [1, 2, 3, 4], "ty": [1, 2, 3, 4], "u": [0, 1, 2]},
		"cache": {%s}}`, device, width, height, strings.Join(entries, ",\n"))), 0o644)
	return spec, cache, best
}

// TestFewDataUnknownDevice imports a 2% sample measured on a device the
// device table lacks, trains on it and chooses (issue 25 item 6): the
// import warns in one line on stderr and goes on with unknown platform
// features; train and the runtime take them; and on the measured shape the
// pick is the best of the sample, never the model's guess, as it is on
// another shape, the model having seen one.
func TestFewDataUnknownDevice(t *testing.T) {
	dir := t.TempDir()
	spec, cache, best := fewDataSpace(t, dir, "GeForce GTX 680", 2048, 1024)
	data, model := filepath.Join(dir, "data"), filepath.Join(dir, "k.augur")
	ctx := context.Background()
	var stdout, stderr bytes.Buffer
	if err := run(ctx, []string{"import", "--from", "kerneltuner", "--kernel", "k", "--out", data, "--spec", spec, "--quiet", cache}, &stdout, &stderr); err != nil {
		t.Fatalf("import: %v\nstderr: %s", err, stderr.String())
	}
	warning := strings.TrimSpace(stderr.String())
	if strings.Count(warning, "\n") != 0 || !strings.Contains(warning, `"GeForce GTX 680"`) || !strings.Contains(warning, "unknown platform features") {
		t.Errorf("stderr %q, want one line naming the device and its unknown platform features", warning)
	}
	if strings.Contains(stdout.String(), "warning") {
		t.Errorf("stdout %q repeats the warning", stdout.String())
	}
	stdout.Reset()
	stderr.Reset()
	if err := run(ctx, []string{"train", "--data", data, "--kernel", "k", "--out", model, "--quiet"}, &stdout, &stderr); err != nil {
		t.Fatalf("train: %v\nstderr: %s", err, stderr.String())
	}
	type pick struct {
		Config map[string]int `json:"config"`
		Source string         `json:"source"`
	}
	choose := func(shape string, extra ...string) pick {
		t.Helper()
		var out, errOut bytes.Buffer
		args := append([]string{"choose", "--model", model, "--shape", shape, "--json"}, extra...)
		if err := run(ctx, args, &out, &errOut); err != nil {
			t.Fatalf("choose %s: %v\nstderr: %s", shape, err, errOut.String())
		}
		var p pick
		if err := json.Unmarshal(out.Bytes(), &p); err != nil {
			t.Fatalf("choose %s: %v in %q", shape, err, out.String())
		}
		return p
	}
	format := func(c map[string]int) string {
		return fmt.Sprintf("bx=%d,by=%d,tx=%d,ty=%d,u=%d", c["bx"], c["by"], c["tx"], c["ty"], c["u"])
	}
	for _, extra := range [][]string{nil, {"--device", "GeForce GTX 680"}, {"--device", "geforce-gtx-680"}} {
		t.Run(strings.Join(append([]string{"measured"}, extra...), " "), func(t *testing.T) {
			p := choose("width=2048,height=1024", extra...)
			if got := format(p.Config); got != best || p.Source != "table" {
				t.Errorf("pick %s from %q, want the sample's best %s from the measured table", got, p.Source, best)
			}
		})
	}
	// Another shape: a model of one shape answers with that shape's best
	// (runtime: Model.Shapes 1), not a search of its predictions there.
	p := choose("width=4096,height=4096")
	if got := format(p.Config); got != best || p.Source != "near" {
		t.Errorf("unmeasured shape: pick %s from %q, want the sample's best %s from its only shape (near)", got, p.Source, best)
	}
}

// TestTrainTinyImport: a Kernel Tuner cache of three configurations
// imports and trains with the default folds (without cross-validation:
// fewer configurations than the 5 folds), and the pick on its shape is
// its fastest; --folds 5, asked for, is a one-line error.
func TestTrainTinyImport(t *testing.T) {
	dir := t.TempDir()
	cache := filepath.Join(dir, "cache.json")
	os.WriteFile(cache, []byte(`{"device_name": "Testing", "problem_size": [4096, 4096], "tune_params_keys": ["bx", "by"],
		"tune_params": {"bx": [16, 32], "by": [1, 2]},
		"cache": {"16,1": {"bx": 16, "by": 1, "time": 3.9, "times": [3.9]},
		          "16,2": {"bx": 16, "by": 2, "time": 4.6, "times": [4.6]},
		          "32,1": {"bx": 32, "by": 1, "time": 3.1, "times": [3.1]}}}`), 0o644)
	data, model := filepath.Join(dir, "data"), filepath.Join(dir, "k.augur")
	ctx := context.Background()
	var stdout, stderr bytes.Buffer
	if err := run(ctx, []string{"import", "--from", "kerneltuner", "--kernel", "k", "--out", data, "--quiet", cache}, &stdout, &stderr); err != nil {
		t.Fatalf("import: %v\nstderr: %s", err, stderr.String())
	}
	err := run(ctx, []string{"train", "--data", data, "--kernel", "k", "--out", model, "--folds", "5", "--quiet"}, &stdout, &stderr)
	if err == nil || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "5 folds but only 3") {
		t.Errorf("train --folds 5 on 3 configurations: err = %v, want one line naming both counts", err)
	}
	if _, err := os.Stat(model); err == nil {
		t.Errorf("a failed train wrote %s", model)
	}
	stdout.Reset()
	if err := run(ctx, []string{"train", "--data", data, "--kernel", "k", "--out", model, "--quiet", "--json"}, &stdout, &stderr); err != nil {
		t.Fatalf("train: %v\nstderr: %s", err, stderr.String())
	}
	var rep struct {
		Models []map[string]json.RawMessage `json:"models"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil || len(rep.Models) != 1 || rep.Models[0]["cv"] != nil {
		t.Errorf("train --json: %v, %s; want one model without cross-validation figures (no \"cv\")", err, stdout.String())
	}
	stdout.Reset()
	if err := run(ctx, []string{"choose", "--model", model, "--shape", "width=4096,height=4096", "--json"}, &stdout, &stderr); err != nil {
		t.Fatalf("choose: %v", err)
	}
	if !strings.Contains(stdout.String(), `"config":{"bx":32,"by":1}`) {
		t.Errorf("choose: %s, want the fastest measured, bx=32,by=1", stdout.String())
	}
}
