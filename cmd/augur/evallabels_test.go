package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/augur-tuning/augur/collect"
)

// TestEvalSpecLabels: augur eval's report names a spec's string parameter
// by its text, in each held-out shape's pick and candidates, and collect
// --confirm-picks reads the report back.
func TestEvalSpecLabels(t *testing.T) {
	if _, err := collect.ListDevices(); err != nil {
		t.Skipf("no OpenCL device: %v", err)
	}
	const spec = "../../collect/testdata/specmode/mode.json" // WG, MODE of 'mul', 'add', 'sub'
	dir := t.TempDir()
	var out, errb bytes.Buffer
	first := []string{"collect", "--spec", spec, "--out", dir, "--sample", "all", "--repeats", "1",
		"--shapes", "problem_size_0=512;problem_size_0=1024;problem_size_0=2048;problem_size_0=4096;problem_size_0=8192;problem_size_0=16384;problem_size_0=32768;problem_size_0=65536"}
	if err := run(context.Background(), first, &out, &errb); err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	out.Reset()
	if err := run(context.Background(), []string{"eval", "--data", dir, "--spec", spec, "--holdout", "shapes", "--holdout-only",
		"--seeds", "1", "--two-stage-seeds", "1", "--json", "--quiet"}, &out, &errb); err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	var rep struct {
		Holdout struct {
			Shapes []struct {
				Chosen     string
				Candidates []string
			}
		}
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	named := regexp.MustCompile(`^WG=(8|16),MODE=(mul|add|sub)$`)
	if len(rep.Holdout.Shapes) != 8 {
		t.Fatalf("%d held-out shapes, want 8", len(rep.Holdout.Shapes))
	}
	for _, s := range rep.Holdout.Shapes {
		for _, c := range append([]string{s.Chosen}, s.Candidates...) {
			if !named.MatchString(c) {
				t.Errorf("configuration %q, want MODE by its text", c)
			}
		}
	}
	report := filepath.Join(t.TempDir(), "eval.json")
	if err := os.WriteFile(report, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	again := []string{"collect", "--spec", spec, "--out", dir, "--sample", "none", "--confirm", "1", "--confirm-repeats", "3",
		"--confirm-anchors", "0", "--confirm-picks", report, "--programs-per-process", "0"}
	if err := run(context.Background(), again, &out, &errb); err != nil {
		t.Fatalf("collect --confirm-picks of a report naming MODE by text: %v\n%s", err, errb.String())
	}
}
