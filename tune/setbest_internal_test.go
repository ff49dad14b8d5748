package tune

import (
	"math"
	"testing"

	"github.com/augur-tuning/augur/collect/record"
	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/features"
)

// TestSetBest checks the tuner's answer: the measured row of the highest
// log-speedup over the reference timed in its own session, with that
// row's times, and the reference when no row beat it. The rows are made
// up: plumbing only.
func TestSetBest(t *testing.T) {
	k, err := datasets.Lookup("median")
	if err != nil {
		t.Fatal(err)
	}
	all := k.Space.All()
	a, b := all[1], all[2]
	row := func(c features.Config, ns, refNs float64) record.Row {
		return record.Row{Config: c, Status: record.StatusOK, TimeNs: ns, RefTimeNs: refNs, LogSpeedup: math.Log(refNs / ns)}
	}
	failed := record.Row{Config: all[3], Status: record.StatusCompileError, LogSpeedup: math.NaN()}
	tests := []struct {
		name          string
		rows          []record.Row
		want          features.Config
		bestNs, refNs float64
		isRef         bool
	}{
		// b is faster in ns than a, but its session's reference ran
		// faster still: a beats its reference by more.
		{"by log-speedup", []record.Row{row(a, 100, 200), row(b, 90, 100), failed}, a, 100, 200, false},
		{"none beats the reference", []record.Row{row(a, 300, 200), row(b, 250, 200), failed}, k.Reference, 200, 200, true},
		{"only failures", []record.Row{failed}, nil, 0, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := &TuneResult{}
			res.setBest(k, tt.rows)
			if !res.Best.Equal(tt.want) || res.BestNs != tt.bestNs || res.RefNs != tt.refNs || res.BestIsReference != tt.isRef {
				t.Errorf("best %v at %g ns, reference %g ns, is reference %v; want %v, %g, %g, %v",
					res.Best, res.BestNs, res.RefNs, res.BestIsReference, tt.want, tt.bestNs, tt.refNs, tt.isRef)
			}
		})
	}
}
