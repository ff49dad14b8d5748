package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const bundle = "../../testdata/conv2d-pocl.augur"

func TestErrors(t *testing.T) {
	dir := t.TempDir()
	existing := filepath.Join(dir, "model.augur")
	if err := os.WriteFile(existing, []byte("keep me"), 0o644); err != nil {
		t.Fatal(err)
	}
	spec := "../../examples/transpose/transpose.json"
	cuda := filepath.Join(dir, "cuda.json")
	raw, err := os.ReadFile(spec)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cuda, bytes.Replace(raw, []byte(`"Language": "OpenCL"`), []byte(`"Language": "CUDA"`), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args []string
		want string
	}{
		{nil, "no command"},
		{[]string{"frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"choose", "--shape", "width=1"}, "--model is required"},
		{[]string{"choose", "--model", "nope.augur", "--shape", "width=1"}, "nope.augur"},
		{[]string{"choose", "--model", bundle, "--shape", "width=64,height=64"}, "lacks filter_w"},
		{[]string{"choose", "--model", bundle, "--shape", "width=64,height=64,filter_w=3,filter_h=3,depth=3"}, `"depth"`},
		{[]string{"choose", "--model", bundle, "--shape", "width=64,height=64,filter_w=3,filter_h=3", "extra"}, `unexpected argument "extra"`},
		{[]string{"collect", "--kernel", "nosuch", "--out", dir}, `unknown kernel "nosuch"`},
		{[]string{"collect", "--kernel", "conv2d", "--out", dir, "--sample", "some"}, "sample \"some\""},
		{[]string{"collect", "--kernel", "conv2d", "--out", dir, "--sample", "none"}, "--sample none measures nothing"},
		{[]string{"collect", "--kernel", "conv2d", "--out", dir, "--shapes", "width=7,height=64,filter_w=3,filter_h=3"}, "width"},
		{[]string{"collect", "--kernel", "conv2d", "--out", dir, "--shard", "3/3"}, `shard "3/3": want I/N with N >= 1 and 0 <= I < N`},
		{[]string{"collect", "--kernel", "conv2d", "--out", dir, "--shard", "0/2", "--confirm", "3"}, "--confirm with --shard"},
		{[]string{"train", "--data", dir, "--kernel", "conv2d", "--out", existing}, "exists"},
		{[]string{"train", "--data", dir, "--kernel", "conv2d", "--out", filepath.Join(dir, "new.augur")}, "conv2d"},
		{[]string{"kernels", "--bogus"}, "flag provided but not defined"},
		{[]string{"eval", "--data", dir}, "--kernel NAME or --spec FILE is required"},
		{[]string{"eval", "--data", dir, "--kernel", "conv2d", "--spec", spec}, "not both"},
		{[]string{"collect", "--spec", filepath.Join(dir, "nope.json"), "--out", dir}, "nope.json"},
		{[]string{"collect", "--spec", cuda, "--out", dir}, `KernelSpecification.Language is "CUDA"`},
		{[]string{"collect", "--spec", spec, "--out", dir, "--shapes", "width=64"}, "lacks height"},
		{[]string{"collect", "--spec", spec, "--out", dir, "--shapes", "width=64,height=64,depth=2"}, `"depth"`},
		{[]string{"kernels", "--spec", cuda}, cuda},
		{[]string{"train", "--spec", spec, "--data", dir, "--out", filepath.Join(dir, "t.augur")}, "transpose"},
		{[]string{"eval", "--data", "../../testdata/h200", "--kernel", "conv2d", "--holdout", "devices"}, `--holdout must be "shapes"`},
		{[]string{"eval", "--data", dir, "--kernel", "conv2d"}, "conv2d"},
		{[]string{"eval", "--data", "../../testdata/h200", "--kernel", "conv2d", "--holdout", "device="}, `--holdout must be "shapes" or "device=NAME"`},
		{[]string{"eval", "--data", "../../testdata/h200", "--kernel", "conv2d", "--holdout", "device=rtx-9090"}, `no device "rtx-9090" in the data (have nvidia-h200)`},
		{[]string{"eval", "--data", "../../testdata/h200", "--kernel", "conv2d", "--holdout", "device=nvidia-h200"}, "another device to train on"},
		{[]string{"eval", "--data", "../../testdata/h200", "--kernel", "conv2d", "--two-stage-max", "1,0"}, `--two-stage-max: "0" is not a share of the space in % (in (0, 100])`},
		{[]string{"tune", "--kernel", "conv2d", "--shape", "width=64,height=64,filter_w=3,filter_h=3", "--max", "1"}, "--max must be 0 (no cap) or at least 2, got 1"},
		{[]string{"tune", "--kernel", "conv2d", "--shape", "width=64,height=64,filter_w=3,filter_h=3", "--threshold", "2"}, "--threshold must be in (0, 1)"},
		{[]string{"tune", "--kernel", "conv2d", "--shape", "width=64,height=64"}, "lacks filter_w"},
		{[]string{"tune", "--kernel", "conv2d", "--shape", "width=64,height=64,filter_w=3,filter_h=3", "--prior", "nope.augur"}, "nope.augur"},
		{[]string{"tune", "--kernel", "conv2d", "--shape", "width=64,height=64,filter_w=3,filter_h=3", "--prior", "main.go"}, "main.go"},
		{[]string{"eval", "--data", "../../testdata/h200", "--kernel", "conv2d", "--fleet-prior"}, "two devices or more"},
		{[]string{"quickstart", "--test-shapes", "width=1"}, "--test-shapes"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var out, errOut bytes.Buffer
			err := run(context.Background(), tt.args, &out, &errOut)
			if err == nil {
				t.Fatalf("no error; stdout %q", out.String())
			}
			if msg := oneLine(err); !strings.Contains(msg, tt.want) {
				t.Errorf("error %q does not mention %q", msg, tt.want)
			}
		})
	}
	if got, _ := os.ReadFile(existing); string(got) != "keep me" {
		t.Errorf("train overwrote an existing file: %q", got)
	}
}

func TestHelp(t *testing.T) {
	for _, c := range append(commands(), command{name: "--help"}) {
		var out, errOut bytes.Buffer
		args := []string{c.name, "--help"}
		if c.name == "--help" {
			args = args[:1]
		}
		if err := run(context.Background(), args, &out, &errOut); !errors.Is(err, flag.ErrHelp) {
			t.Errorf("%v: error = %v, want flag.ErrHelp", args, err)
		}
		if !strings.Contains(out.String(), "usage: augur") || errOut.Len() != 0 {
			t.Errorf("%v: stdout %q, stderr %q; want the usage on stdout only", args, out.String(), errOut.String())
		}
		// The flag package prints a flag's default by calling String on a
		// zero value of its type, and reports a panic there in the usage.
		if strings.Contains(out.String(), "panic") {
			t.Errorf("%v: the usage reports a panic:\n%s", args, out.String())
		}
	}
	// augur help CMD is CMD --help.
	var hOut, hErr bytes.Buffer
	if err := run(context.Background(), []string{"help", "train"}, &hOut, &hErr); !errors.Is(err, flag.ErrHelp) || !strings.HasPrefix(hOut.String(), "usage: augur train") {
		t.Errorf("augur help train: error %v, output %q; want train's usage", err, hOut.String())
	}
	// A mistake is one line that names it and where the flags are listed,
	// not the usage, which would bury it.
	var out, errOut bytes.Buffer
	err := run(context.Background(), []string{"train", "--no-such-flag"}, &out, &errOut)
	if err == nil {
		t.Fatal("unknown flag accepted")
	}
	if msg := err.Error(); out.Len() != 0 || errOut.Len() != 0 || strings.Contains(msg, "\n") ||
		!strings.Contains(msg, "no-such-flag") || !strings.Contains(msg, "augur train --help") || exitStatus(err) != exitUsage {
		t.Errorf("after a mistake: error %q (status %d), stdout %q, stderr %q; want one line naming the flag and --help, status 2, nothing printed",
			msg, exitStatus(err), out.String(), errOut.String())
	}
}

func TestChooseJSON(t *testing.T) {
	var out, errOut bytes.Buffer
	err := run(context.Background(), []string{"choose", "--model", bundle, "--shape", "width=1000,height=700,filter_w=5,filter_h=5", "--json"}, &out, &errOut)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Config           map[string]int `json:"config"`
		PredictedSpeedup float64        `json:"predicted_speedup"`
		ChooseNs         int64          `json:"choose_ns"`
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("output %q: %v", out.String(), err)
	}
	if len(got.Config) != 8 || got.PredictedSpeedup <= 0 || got.ChooseNs <= 0 {
		t.Errorf("choose --json = %+v", got)
	}
}

func TestKernels(t *testing.T) {
	var out, errOut bytes.Buffer
	if err := run(context.Background(), []string{"kernels"}, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "conv2d") || !strings.Contains(out.String(), "12288") || !strings.Contains(out.String(), "6400") {
		t.Errorf("kernels output lacks conv2d's space sizes:\n%s", out.String())
	}
}

// TestSpecWarning checks that a spec whose Defaults break a condition is
// read with one warning, by a command and by a collection's children alike.
func TestSpecWarning(t *testing.T) {
	dir := t.TempDir()
	raw, err := os.ReadFile("../../examples/transpose/transpose.json")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("../../examples/transpose/transpose.cl")
	if err != nil {
		t.Fatal(err)
	}
	spec := filepath.Join(dir, "t.json")
	broken := bytes.Replace(raw, []byte(`"Name": "PAD", "Type": "int", "Values": "[0, 1]", "Default": 0`), []byte(`"Name": "PAD", "Type": "int", "Values": "[0, 1]", "Default": 1`), 1)
	if bytes.Equal(broken, raw) {
		t.Fatal("the example's PAD parameter is not where the test expects it")
	}
	if err := os.WriteFile(spec, broken, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "transpose.cl"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"kernels", "--spec", spec},
		{"collect", "--spec", spec, "--out", filepath.Join(dir, "data"), "--sample", "random:2", "--shapes", "width=64,height=64", "--quiet"},
	} {
		var out, errOut bytes.Buffer
		if err := run(context.Background(), args, &out, &errOut); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		if n := strings.Count(errOut.String(), "warning:"); n != 1 || !strings.Contains(errOut.String(), "PAD 1 -> 0") {
			t.Errorf("%v: stderr %q; want one warning naming PAD 1 -> 0", args, errOut.String())
		}
	}
}
