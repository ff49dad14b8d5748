package tune

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/augur-tuning/augur/collect"
	"github.com/augur-tuning/augur/collect/record"
	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/eval"
	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/train"
)

// TestFirstStageAsEval checks that the tuner's first stage on a device is
// eval's replay of it: the rows of one recorded shape, encoded by tune as
// they come off the device, give the learner, sigma and predictions that
// eval.FitFirstStage gives on the same rows loaded from their files.
func TestFirstStageAsEval(t *testing.T) {
	k := datasets.Conv2D()
	all, err := train.LoadWith("../testdata/h200", k.Name, train.LoadOptions{Derived: datasets.Deriver(k.Name)})
	if err != nil {
		t.Fatal(err)
	}
	task := all.Sample(0).Task
	var rows []int
	var recs []record.Row
	for i, s := range all.Samples() {
		if s.Task.Key() != task.Key() || !s.Measured() || i%17 != 0 {
			continue
		}
		rows = append(rows, i)
		recs = append(recs, record.Row{Task: s.Task, Config: s.Config, Status: record.StatusOK,
			TimeNs: s.TimeNs, RefTimeNs: s.RefTimeNs, LogSpeedup: all.Y[i]})
	}
	if len(rows) < 20 {
		t.Fatalf("%d rows of shape %v, want at least 20", len(rows), task)
	}
	want, err := eval.FitFirstStage(all.Subset(rows), eval.Options{Kernel: k.Name, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	plat := all.Platforms[all.Sample(rows[0]).Platform]
	enc := features.NewEncoder(k.TaskNames, k.Space).WithDerived(k.Derived)
	fs := newFirstStage(k, enc, plat, task, 3)
	if _, err := fs.add(recs); err != nil {
		t.Fatal(err)
	}
	if fs.d.Len() != len(rows) || fs.best != maxOf(all.Y, rows) {
		t.Fatalf("first stage of %d rows, best %g; want %d, %g", fs.d.Len(), fs.best, len(rows), maxOf(all.Y, rows))
	}
	valid := k.Space.All()[:200]
	ranked, got, err := fs.rank(enc, task, plat.Vector(), valid, rand.New(rand.NewPCG(1, 2)).Perm(len(valid)), 3)
	if err != nil {
		t.Fatal(err)
	}
	if got.Learner != want.Learner || got.Sigma != want.Sigma {
		t.Errorf("tune's first stage: learner %s, sigma %g; eval's: %s, %g", got.Learner, got.Sigma, want.Learner, want.Sigma)
	}
	vec := make([]float64, enc.Len())
	for _, s := range ranked {
		enc.Encode(vec, task, s.Config, plat.Vector())
		if p := want.Model.Predict(vec); p != s.LogSpeedup {
			t.Fatalf("config %v: tune predicts %g, eval's model %g", s.Config, s.LogSpeedup, p)
		}
	}
	for i := 1; i < len(ranked); i++ {
		if ranked[i].LogSpeedup > ranked[i-1].LogSpeedup {
			t.Fatalf("ranking out of order at %d", i)
		}
	}
}

func maxOf(y []float64, rows []int) float64 {
	m := math.Inf(-1)
	for _, i := range rows {
		m = max(m, y[i])
	}
	return m
}

// TestTuneTwoStage runs the two-stage tuner on the first OpenCL device
// (PoCL on a machine without a GPU) on a small spec kernel: its first
// stage's model is the selection's, and its answer is a valid
// configuration no slower than the best of its first stage.
func TestTuneTwoStage(t *testing.T) {
	if devs, err := collect.ListDevices(); err != nil || len(devs) == 0 {
		t.Skip("no OpenCL device")
	}
	if testing.Short() {
		t.Skip("measures on the device")
	}
	k, err := datasets.ReadSpec("../examples/rowsum/rowsum.json")
	if err != nil {
		t.Fatal(err)
	}
	res, err := Tune(context.Background(), k, features.Task{256, 64}, TuneOptions{Budget: 12, Repeats: 1, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Learner == "" || res.FirstStage != 12 || !k.Space.Valid(res.Best) || !(res.BestNs > 0) {
		t.Errorf("tune = learner %q, first stage %d, best %v (%g ns); want a learner, 12, a valid best", res.Learner, res.FirstStage, res.Best, res.BestNs)
	}
}

// TestTuneMax: a measurement budget (TuneOptions.Max) caps both stages
// together, batches included, with the first stage at most half of it;
// a Max of 1 or below 0 is refused before anything is measured.
func TestTuneMax(t *testing.T) {
	k, err := datasets.ReadSpec("../examples/rowsum/rowsum.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []int{-1, 1} {
		if _, err := Tune(context.Background(), k, features.Task{256, 64}, TuneOptions{Max: bad}); err == nil || !strings.Contains(err.Error(), "Max") {
			t.Errorf("Max %d: error %v, want one naming Max", bad, err)
		}
	}
	if devs, err := collect.ListDevices(); err != nil || len(devs) == 0 {
		t.Skip("no OpenCL device")
	}
	if testing.Short() {
		t.Skip("measures on the device")
	}
	for _, tc := range []struct{ max, budget, batch int }{{10, 0, 8}, {15, 4, 8}, {9, 0, 1}} {
		// A threshold that never stops the second stage: only Max does.
		res, err := Tune(context.Background(), k, features.Task{256, 64}, TuneOptions{Max: tc.max, Budget: tc.budget, Batch: tc.batch, Threshold: 1e-12, Repeats: 1, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		first := (tc.max + 1) / 2
		if tc.budget > 0 {
			first = min(first, tc.budget)
		}
		if res.FirstStage > first || res.FirstStage+res.SecondStage != tc.max {
			t.Errorf("Max %d, Budget %d, Batch %d: measured %d + %d; want at most %d first and %d in all",
				tc.max, tc.budget, tc.batch, res.FirstStage, res.SecondStage, first, tc.max)
		}
	}
}
