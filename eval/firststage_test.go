package eval

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/train"
)

// TestFitFirstStage fits first stages of one recorded shape, as the
// two-stage tuner measures them, and checks that sigma is the learner's
// cross-validated error: above its error on its own rows (which a forest
// or deep trees all but fit, and which stopped the second stage before it
// measured anything), and never below 0.05.
func TestFitFirstStage(t *testing.T) {
	all, err := train.LoadWith("../testdata/h200", "conv2d", train.LoadOptions{Derived: datasets.Deriver("conv2d")})
	if err != nil {
		t.Fatal(err)
	}
	task := all.Sample(0).Task.Key()
	var shape []int
	for i, s := range all.Samples() {
		if s.Task.Key() == task && s.Measured() {
			shape = append(shape, i)
		}
	}
	tests := []struct {
		name    string
		rows    int
		learner string
	}{
		{"10 rows, selected", 10, "auto"},
		{"128 rows, selected", 128, ""},
		{"40 rows, gbrt", 40, "gbrt"},
		{"40 rows, rf", 40, "rf"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var rows []int
			for i := range tt.rows {
				rows = append(rows, shape[i*len(shape)/tt.rows])
			}
			d := all.Subset(rows)
			fs, err := FitFirstStage(d, Options{Learner: tt.learner, Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			if want := strings.TrimPrefix(tt.learner, "auto"); want != "" && fs.Learner != want || fs.Learner == "" {
				t.Errorf("learner %q, want %q (or a selected one)", fs.Learner, tt.learner)
			}
			var sq float64
			for j := range d.Y {
				e := fs.Model.Predict(d.Row(j)) - d.Y[j]
				sq += e * e
			}
			own := math.Sqrt(sq / float64(d.Len()))
			if !(fs.Sigma >= 0.05 && fs.Sigma > own) {
				t.Errorf("sigma %g, own-row error %g: want the held-out error, above it and >= 0.05", fs.Sigma, own)
			}
		})
	}
	if _, err := FitFirstStage(all.Subset(shape[:1]), Options{}); err == nil || !strings.HasPrefix(err.Error(), "eval: ") {
		t.Errorf("one row: err = %v, want an eval error", err)
	}
	if _, err := FitFirstStage(all.Subset(shape[:10]), Options{Learner: "xgb"}); err == nil || !strings.Contains(err.Error(), "Learner") {
		t.Errorf("unknown learner: err = %v, want one naming Learner", err)
	}
}

// TestSplitting checks which candidates the first stage's selection
// scores: only those whose trees can split a fold's training rows, all of
// them when none can.
func TestSplitting(t *testing.T) {
	cs := train.DefaultCandidates(1)
	names := func(cs []train.Candidate) []string {
		var out []string
		for _, c := range cs {
			out = append(out, c.Name)
		}
		return out
	}
	all := names(cs)
	tests := []struct {
		rows int
		want []string
	}{
		{2, all},                          // one fold: Select does not fold
		{3, all},                          // one fold
		{6, all},                          // 3 folds of 4 training rows: none splits, all kept
		{10, []string{"rf-d14-t50-min3"}}, // 5 folds of 8 training rows
		{12, []string{"rf-d14-t50-min3"}}, // 9 training rows
		{13, []string{"gbrt-d6-t200-lr0.1-min5", "gbrt-d10-t50-lr0.2-min5", "gbrt-d8-t150-lr0.1-min5", "rf-d14-t50-min3", "topa-d8-t150-lr0.1-min5", "topa-d10-t50-lr0.2-min5"}}, // 10: min 5 splits
		{25, all}, // 20 training rows: min 10 splits
		{128, all},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.rows), func(t *testing.T) {
			if got := names(splitting(cs, tt.rows)); !slices.Equal(got, tt.want) {
				t.Errorf("%d rows: got %v, want %v", tt.rows, got, tt.want)
			}
		})
	}
}
