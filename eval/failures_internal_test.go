package eval

import (
	"testing"

	"github.com/augur-tuning/augur/features"
)

// TestFailureForestRows checks the rows a fit reads: every failure, and
// the rows that ran thinned to at most okPerFailure a failure.
func TestFailureForestRows(t *testing.T) {
	tests := []struct {
		ok, failed int
		wantOK     int
	}{
		{10, 2, 10},
		{32, 2, 32},
		{100, 2, 25}, // every 4th of 100, at most 32
		{1000, 1, 16},
	}
	for _, tt := range tests {
		f := NewFailureForest(1, func(dst []float64, c features.Config) { dst[0] = float64(c[0]) }, 1)
		for i := range tt.ok + tt.failed {
			f.Observe(features.Config{i}, i%(tt.ok/tt.failed+1) == 0 && i/(tt.ok/tt.failed+1) < tt.failed)
		}
		if f.failed != tt.failed {
			t.Fatalf("%d ok, %d failed: observed %d failures", tt.ok, tt.failed, f.failed)
		}
		x, y := f.rows()
		var ok, failed int
		for _, label := range y {
			if label == 1 {
				failed++
			} else {
				ok++
			}
		}
		if ok != tt.wantOK || failed != tt.failed || len(x) != len(y) {
			t.Errorf("%d ok, %d failed: a fit reads %d ok and %d failed (%d values), want %d and %d",
				tt.ok, tt.failed, ok, failed, len(x), tt.wantOK, tt.failed)
		}
	}
}
