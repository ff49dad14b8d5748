package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/train"
)

// TestTrainInvalidFlags trains on the recorded PoCL data, which holds 20
// pruned configurations, with each way of handling invalid rows.
func TestTrainInvalidFlags(t *testing.T) {
	dir := t.TempDir()
	base := []string{"train", "--data", "../../testdata/data", "--kernel", "conv2d", "--folds", "1", "--trees", "10"}
	tests := []struct {
		name     string
		args     []string
		kind     string
		wantZeta float64 // 0: the model must record no zeta
	}{
		{"default", nil, "gbrt", 0},
		{"ignore", []string{"--invalid", "ignore"}, "gbrt", 0},
		{"zeta", []string{"--invalid", "zeta"}, "gbrt", -2.302585092994046},
		{"zeta value", []string{"--invalid", "zeta", "--zeta", "-4.6"}, "gbrt", -4.6},
		{"forest zeta", []string{"--learner", "rf", "--invalid", "zeta", "--zeta", "-0.01"}, "rf", -0.01},
		{"smaller groups", []string{"--smaller-groups"}, "gbrt", 0},
	}
	rows := map[string]int{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "-")+".augur")
			var stdout, stderr bytes.Buffer
			if err := run(context.Background(), append(append(base, "--out", out), tt.args...), &stdout, &stderr); err != nil {
				t.Fatalf("%v\n%s", err, stderr.String())
			}
			data, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			b, err := features.ReadBundle(data)
			if err != nil {
				t.Fatal(err)
			}
			m := b.Models[0]
			if m.Kind != tt.kind || m.Options["zeta"] != tt.wantZeta || m.Options["trees"] != 10 {
				t.Errorf("kind %q options %v; want kind %s, zeta %v, trees 10", m.Kind, m.Options, tt.kind, tt.wantZeta)
			}
			if smaller := m.Options[features.OptionSmallerGroups] == 1; smaller != (tt.name == "smaller groups") {
				t.Errorf("options %v: smaller groups %v, want it with --smaller-groups only", m.Options, smaller)
			}
			rows[tt.name] = m.TrainRows
		})
	}
	// The recording has 735 ok and 20 pruned rows.
	if rows["default"] != 735 || rows["ignore"] != 735 || rows["zeta"] != 755 || rows["forest zeta"] != 755 {
		t.Errorf("training rows %v, want 735 when ignoring (the default) and 755 with zeta", rows)
	}
}

func TestTrainFlagErrors(t *testing.T) {
	out := filepath.Join(t.TempDir(), "m.augur")
	base := []string{"train", "--data", "../../testdata/data", "--kernel", "conv2d", "--out", out}
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--invalid", "drop"}, "--invalid must be ignore or zeta"},
		{[]string{"--zeta", "-1"}, "--zeta needs --invalid zeta"},
		{[]string{"--invalid", "zeta", "--zeta", "0.5"}, "LoadOptions.Zeta"},
		{[]string{"--learner", "rf", "--lr", "0.3"}, "--lr applies to --learner gbrt only"},
		{[]string{"--learner", "svm"}, `--learner must be auto, gbrt or rf, got "svm"`},
		{[]string{"--lr", "2"}, "GBRTOptions.LearningRate"},
		{[]string{"--kernel", "convolution", "--smaller-groups"}, "no data of kernel \"convolution\" under ../../testdata/data (augur's kernels: conv2d,"},
		{[]string{"--learner", "rf", "--depth", "40"}, "ForestOptions.MaxDepth"},
		{[]string{"--select-repeats", "0"}, "--select-repeats must be >= 1, got 0"},
		{[]string{"--folds", "0"}, "--folds must be >= 1 (1 skips cross-validation), got 0"},
		{[]string{"--learner", "gbrt", "--select-repeats", "3"}, "--select-repeats needs --learner auto"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := run(context.Background(), append(base, tt.args...), &stdout, &stderr)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want one mentioning %q", err, tt.want)
			}
		})
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a failed train wrote its --out file")
	}
}

// TestTrainTarget trains a classifier beside the surrogate and checks what
// the bundle records and the report prints.
func TestTrainTarget(t *testing.T) {
	dir := t.TempDir()
	base := []string{"train", "--data", "../../testdata/h200-train", "--kernel", "conv2d", "--folds", "1",
		"--regressor", "gbrt", "--trees", "10", "--target", "VW"}
	for _, tt := range []struct {
		name     string
		args     []string
		wantKind string
		wantRows []string // learners in the report
	}{
		{"default", nil, "", []string{"forest", "golearn"}}, // auto
		{"forest", []string{"--learner", "forest"}, "forest", []string{"forest"}},
		{"golearn", []string{"--learner", "golearn"}, "golearn", []string{"golearn"}},
		{"auto", []string{"--learner", "auto", "--fold-by", "filter_w,filter_h"}, "", []string{"forest", "golearn"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(dir, tt.name+".augur")
			var stdout, stderr bytes.Buffer
			if err := run(context.Background(), append(append(base, "--out", out), tt.args...), &stdout, &stderr); err != nil {
				t.Fatalf("%v\n%s", err, stderr.String())
			}
			data, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			b, err := features.ReadBundle(data)
			if err != nil {
				t.Fatal(err)
			}
			if len(b.Classifiers) != 1 || len(b.Models) != 1 || b.Models[0].Kind != "gbrt" {
				t.Fatalf("bundle has %d classifiers and %d models, want 1 and 1 gbrt", len(b.Classifiers), len(b.Models))
			}
			c := b.Classifiers[0]
			if c.Param != "VW" || (tt.wantKind != "" && c.Kind != tt.wantKind) || c.Stats["cv_accuracy"] <= 0 {
				t.Errorf("classifier of %s kind %s stats %v, want VW, %s, an accuracy", c.Param, c.Kind, c.Stats, tt.wantKind)
			}
			for _, l := range tt.wantRows {
				if !strings.Contains(stdout.String(), "\n"+strings.Repeat(" ", 9-len(l))+l) {
					t.Errorf("report lacks a row of %s:\n%s", l, stdout.String())
				}
			}
			var insp bytes.Buffer
			if err := run(context.Background(), []string{"inspect", "--model", out}, &insp, &stderr); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(insp.String(), "classifier of VW: "+c.Kind) {
				t.Errorf("inspect does not show the classifier:\n%s", insp.String())
			}
		})
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--learner", "rf"}, "--learner names the classifier's learner"},
		{[]string{"--target", "NOPE"}, "--target \"NOPE\" is no parameter"},
		{[]string{"--fold-by", "depth"}, "fold key \"depth\""},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := run(context.Background(), append(append(base, "--out", filepath.Join(dir, "bad.augur")), tt.args...), &stdout, &stderr)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want one mentioning %q", err, tt.want)
			}
		})
	}
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), []string{"train", "--data", "../../testdata/data", "--kernel", "conv2d",
		"--out", filepath.Join(dir, "x.augur"), "--regressor", "gbrt"}, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "--regressor needs --target") {
		t.Errorf("--regressor without --target: err = %v", err)
	}
}

// TestTrainSelectRepeats: with --select-repeats the selection deals the
// shapes that many times and the report prints each learner's spread over
// the deals; without it, one deal and no spread column.
func TestTrainSelectRepeats(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		name  string
		args  []string
		deals int
	}{
		{"default", nil, 1},
		{"three", []string{"--select-repeats", "3"}, 3},
	} {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"train", "--data", "../../datasets/data", "--kernel", "gemm", "--folds", "1",
				"--max-cost", "500", "--no-rule", "--json", "--out", filepath.Join(dir, tt.name+".augur")}, tt.args...)
			var stdout, stderr bytes.Buffer
			if err := run(context.Background(), args, &stdout, &stderr); err != nil {
				t.Fatalf("%v\n%s", err, stderr.String())
			}
			var rep struct {
				Models []struct {
					Selection *train.Selection `json:"selection"`
				} `json:"models"`
			}
			if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
				t.Fatal(err)
			}
			sel := rep.Models[0].Selection
			if sel == nil || sel.Deals != tt.deals {
				t.Fatalf("selection %+v, want %d deals", sel, tt.deals)
			}
			spread := false
			for _, s := range sel.Scores {
				spread = spread || s.PctSpread > 0
			}
			if spread != (tt.deals > 1) {
				t.Errorf("a learner's spread recorded: %v with %d deals", spread, tt.deals)
			}
		})
	}
}

// TestTrainNoRule: the report scores the nearest-shape rule beside the
// chosen learner unless --no-rule, with which it neither scores nor carries
// it.
func TestTrainNoRule(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		name string
		args []string
		want bool
	}{
		{"default", nil, true},
		{"no-rule", []string{"--no-rule"}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(dir, tt.name+".augur")
			args := append([]string{"train", "--data", "../../testdata/h200", "--kernel", "conv2d", "--folds", "1",
				"--max-cost", "400", "--out", out}, tt.args...)
			var stdout, stderr bytes.Buffer
			if err := run(context.Background(), args, &stdout, &stderr); err != nil {
				t.Fatalf("%v\n%s", err, stderr.String())
			}
			if got := strings.Contains(stdout.String(), "nearest-shape rule on the chosen learner's first 3"); got != tt.want {
				t.Errorf("report scores the rule: %v, want %v:\n%s", got, tt.want, stdout.String())
			}
			b, err := features.ReadBundleFile(out)
			if err != nil {
				t.Fatal(err)
			}
			if !tt.want && b.Models[0].Consensus != nil {
				t.Error("the model carries the rule with --no-rule")
			}
		})
	}
}

// TestTrainSpecFleet: a kernel of the user's own (a spec file) measured on
// two devices trains as augur's own kernels do: the unseen-device policy
// is chosen by leaving each device out, with bundles that need the spec's
// derived features (it failed with "derived features differ" before the
// refitted bundles took the spec), and the bundle serves a device it has
// no model of.
func TestTrainSpecFleet(t *testing.T) {
	out := filepath.Join(t.TempDir(), "t.augur")
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), []string{"train", "--spec", "../../examples/transpose/transpose.json",
		"--data", "../../datasets/data", "--folds", "1", "--max-cost", "500", "--out", out}, &stdout, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	b, err := features.ReadBundleFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Models) != 3 || b.Unseen == nil {
		t.Fatalf("%d models, unseen policy %v: want two devices' and the fleet's, and a policy", len(b.Models), b.Unseen)
	}
	stdout.Reset()
	if err := run(context.Background(), []string{"choose", "--model", out, "--shape", "width=3000,height=2000",
		"--device", "NVIDIA A100-PCIE-40GB", "--json"}, &stdout, &stderr); err != nil {
		t.Fatalf("choose for a device the bundle has no model of: %v\n%s", err, stderr.String())
	}
}

// TestTrainFixed: on transpose's H100 shapes, where one configuration picks
// better than the model on held-out shapes, the report scores the fixed
// configuration and the model serves it; with --no-fixed it is neither
// scored nor carried.
func TestTrainFixed(t *testing.T) {
	data := t.TempDir()
	src := "../../datasets/data/transpose/nvidia-h100-80gb-hbm3"
	dst := filepath.Join(data, "transpose", "nvidia-h100-80gb-hbm3")
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		args []string
		want bool
	}{
		{"default", nil, true},
		{"no-fixed", []string{"--no-fixed"}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "t.augur")
			args := append([]string{"train", "--data", data, "--spec", "../../examples/transpose/transpose.json", "--folds", "1",
				"--max-cost", "500", "--out", out}, tt.args...)
			var stdout, stderr bytes.Buffer
			if err := run(context.Background(), args, &stdout, &stderr); err != nil {
				t.Fatalf("%v\n%s", err, stderr.String())
			}
			if got := strings.Contains(stdout.String(), "applied: the model serves it at new shapes"); got != tt.want {
				t.Errorf("report applies a fixed configuration: %v, want %v:\n%s", got, tt.want, stdout.String())
			}
			b, err := features.ReadBundleFile(out)
			if err != nil {
				t.Fatal(err)
			}
			if got := b.Models[0].Fixed != nil; got != tt.want {
				t.Errorf("the model carries a fixed configuration: %v, want %v", got, tt.want)
			}
		})
	}
}

// Data that collect measured from a spec is refused under --kernel NAME:
// the model would lose the spec's derived features and the bundle its
// launch plan.
func TestSpecDataNeedsSpec(t *testing.T) {
	out := filepath.Join(t.TempDir(), "m.augur")
	for _, args := range [][]string{
		{"train", "--data", "../../datasets/data", "--kernel", "rowsum", "--out", out},
		{"eval", "--data", "../../datasets/data", "--kernel", "rowsum"},
	} {
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), args, &stdout, &stderr)
		if err == nil || !strings.Contains(err.Error(), "pass --spec FILE") {
			t.Errorf("%s: err = %v, want one asking for --spec", args[0], err)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a refused train wrote its --out file")
	}
}
