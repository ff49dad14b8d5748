package tune

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/augur-tuning/augur/collect/record"
	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/features"
)

// TestFirstStageFailures checks that the first stage's failed rows, of
// every failure status, teach the failure model while the stage draws,
// as eval's replays teach it: on examples/rowsum's space, where every
// work-group of 512 items or more fails (as on the H200), the stage
// measures fewer of them than a uniform sample would, the model then
// predicts the large work-groups to fail, and a second-stage batch leaves
// them out.
func TestFirstStageFailures(t *testing.T) {
	k, err := datasets.ReadSpec("../examples/rowsum/rowsum.json")
	if err != nil {
		t.Fatal(err)
	}
	task := features.Task{4096, 4096}
	plat := features.Platform{Name: "test GPU", MaxWorkGroupSize: 1024}
	enc := features.NewEncoder(k.TaskNames, k.Space).WithDerived(k.Derived)
	cfg := func(wg, rpw int) features.Config { return features.Config{wg, rpw, 1, 1} } // WG, RPW, VW, UNROLL
	fails := func(c features.Config) bool { return c[0]*c[1] >= 512 }
	statuses := []record.Status{record.StatusLaunchError, record.StatusResourceLimit, record.StatusCompileError, record.StatusPruned}
	valid := k.Space.All()
	var share float64 // of the space that fails
	for _, c := range valid {
		if fails(c) {
			share += 1 / float64(len(valid))
		}
	}
	fs := newFirstStage(k, enc, plat, task, 1)
	const n0 = 40
	var measured int
	first, err := fs.draw(valid, rand.New(rand.NewPCG(1, 2)).Perm(len(valid)), nil, n0, func(cs []features.Config) ([]record.Row, error) {
		var rows []record.Row
		for _, c := range cs {
			r := record.Row{Task: task, Config: c, Status: record.StatusOK, TimeNs: 1000, RefTimeNs: 2000, LogSpeedup: math.Log(2)}
			if fails(c) {
				r.Status, r.TimeNs, r.LogSpeedup = statuses[measured%len(statuses)], 0, math.NaN()
			}
			measured++
			rows = append(rows, r)
		}
		return rows, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if first.Measured != measured || len(fs.seen) != measured || fs.d.Len() != measured-first.Failed {
		t.Fatalf("first stage: %d measured, %d failed, %d seen, %d training rows; want %d measured, every one seen, those that ran as rows",
			first.Measured, first.Failed, len(fs.seen), fs.d.Len(), measured)
	}
	if want := share * n0; float64(first.Failed) >= want {
		t.Errorf("first stage: %d failures of %d measured, want fewer than a uniform sample's %.1f", first.Failed, first.Measured, want)
	}
	t.Logf("first stage: %d measured, %d failed, %d explored; uniform share failing %.2f", first.Measured, first.Failed, first.Explored, share)
	bm := &batchMeasurer{fails: fs.fails, threshold: 0.1}
	tests := []struct {
		c        features.Config
		wantFail bool
	}{
		{cfg(512, 4), true},
		{cfg(256, 8), true},
		{cfg(32, 2), false},
		{cfg(64, 1), false},
	}
	for _, tt := range tests {
		q := fs.fails.PFail(tt.c)
		if got := q >= 0.5; got != tt.wantFail {
			t.Errorf("PFail(%s) = %g, want it to fail: %v", k.Space.Format(tt.c), q, tt.wantFail)
		}
		if bm.worth(tt.c) == tt.wantFail {
			t.Errorf("%s with P(fail) %g: fills a batch %v, want %v", k.Space.Format(tt.c), q, bm.worth(tt.c), !tt.wantFail)
		}
	}
}
