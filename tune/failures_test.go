package tune

import (
	"math"
	"testing"

	"github.com/augur-tuning/augur/collect/record"
	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/features"
)

// TestFirstStageFailures checks that the first stage's failed rows, of
// every failure status, teach the second stage's failure model, as eval's
// replays teach it: on examples/rowsum's space, where every work-group of
// 512 items or more fails (as on the H200), the model then predicts the
// large work-groups to fail and a batch leaves them out.
func TestFirstStageFailures(t *testing.T) {
	k, err := datasets.ReadSpec("../examples/rowsum/rowsum.json")
	if err != nil {
		t.Fatal(err)
	}
	task := features.Task{4096, 4096}
	plat := features.Platform{Name: "test GPU", MaxWorkGroupSize: 1024}
	enc := features.NewEncoder(k.TaskNames, k.Space).WithDerived(k.Derived)
	cfg := func(wg, rpw int) features.Config { return features.Config{wg, rpw, 1, 1} } // WG, RPW, VW, UNROLL
	statuses := []record.Status{record.StatusLaunchError, record.StatusResourceLimit, record.StatusCompileError, record.StatusPruned}
	var rows []record.Row
	for i, c := range []features.Config{cfg(16, 1), cfg(32, 8), cfg(64, 2), cfg(128, 1), cfg(256, 1), cfg(16, 4), cfg(512, 1), cfg(256, 4), cfg(128, 8), cfg(512, 2)} {
		r := record.Row{Task: task, Config: c, Status: record.StatusOK, TimeNs: 1000, RefTimeNs: 2000, LogSpeedup: math.Log(2)}
		if c[0]*c[1] >= 512 {
			r.Status, r.TimeNs, r.LogSpeedup = statuses[i%len(statuses)], 0, math.NaN()
		}
		rows = append(rows, r)
	}
	fs, err := encodeFirstStage(k, enc, plat, task, rows, 1)
	if err != nil {
		t.Fatal(err)
	}
	if fs.d.Len() != 6 || len(fs.seen) != 10 {
		t.Fatalf("first stage of %d rows that ran, %d seen; want 6, 10", fs.d.Len(), len(fs.seen))
	}
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
