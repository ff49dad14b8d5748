package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestInspect(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), []string{"inspect", "--model", bundle}, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	out := stdout.String()
	for _, want := range []string{"kernel conv2d", "model pocl-cpu-pthread-skylake-avx512-amd-epyc: gbrt+gbrt, 350 trees, 735 training rows",
		"cv_spearman=", "feature", "gain_share"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// Features come most important first: gains never rise down the table.
	prev := -1.0
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) != 4 || !strings.Contains(f[0], ".") {
			continue
		}
		var gain float64
		if _, err := fmt.Sscan(f[1], &gain); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		if prev >= 0 && gain > prev {
			t.Errorf("line %q: gain %v above the previous %v", line, gain, prev)
		}
		prev = gain
	}
	if prev < 0 {
		t.Errorf("no feature lines in:\n%s", out)
	}
	// A spec's string parameter and its conditions as the spec writes them.
	stdout.Reset()
	if err := run(context.Background(), []string{"inspect", "--model", "../../libaugur/testdata/specmode.augur", "--json"}, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	var j inspectJSON
	if err := json.Unmarshal(stdout.Bytes(), &j); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(j.ParamLabels["MODE"], []string{"mul", "add", "sub"}) || len(j.ParamLabels) != 1 || !slices.Equal(j.Conditions, []string{"MODE != 'add' or WG == 16"}) {
		t.Errorf("inspect --json: labels %q, conditions %q", j.ParamLabels, j.Conditions)
	}
	if err := run(context.Background(), []string{"inspect"}, &stdout, &stderr); err == nil || !strings.Contains(err.Error(), "--model is required") {
		t.Errorf("inspect without --model: err = %v", err)
	}
	// A file that is no bundle: its error alone, no signature line.
	stdout.Reset()
	stderr.Reset()
	if err := run(context.Background(), []string{"inspect", "--model", "inspect_test.go"}, &stdout, &stderr); err == nil || !strings.Contains(err.Error(), "bundle") {
		t.Errorf("inspect of a Go file: err = %v", err)
	}
	if stdout.Len() != 0 || stderr.Len() != 0 {
		t.Errorf("inspect of a Go file printed %q and %q besides its error", stdout.String(), stderr.String())
	}
}
