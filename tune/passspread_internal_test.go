package tune

import (
	"math"
	"strings"
	"testing"

	"github.com/augur-tuning/augur/features"
)

func TestPassSpread(t *testing.T) {
	inf := math.Inf(1)
	for _, c := range []struct {
		name string
		a, b []float64
		want float64
	}{
		{"none", nil, nil, 0},
		{"equal", []float64{1, 2}, []float64{1, 2}, 0},
		{"one pair, 10% of the mean", []float64{1.05}, []float64{0.95}, 10},
		{"median of three", []float64{1, 1, 1}, []float64{1, 1.5, 3}, 40},
		{"median of two", []float64{1, 1}, []float64{1, 1.5}, 20},
		{"failed runs left out", []float64{inf, 1}, []float64{1, 1.1}, 200 * 0.1 / 2.1},
	} {
		if got := passSpread(c.a, c.b); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("%s: passSpread = %g, want %g", c.name, got, c.want)
		}
	}
}

// TestWriteTableSpread checks that the table prints each shape's
// PassSpread.
func TestWriteTableSpread(t *testing.T) {
	r := &QuickstartResult{TaskNames: []string{"n"}, Holdout: []HoldoutResult{
		{Task: features.Task{1}, RefMs: 2, ChosenMs: 1, BestMs: 1, PassSpread: 0.8},
		{Task: features.Task{2}, RefMs: 2, ChosenMs: 1, BestMs: 0.9, PassSpread: 12.5},
	}}
	var b strings.Builder
	if err := r.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if !strings.Contains(out, "passes differ") || !strings.Contains(out, "0.8%") || !strings.Contains(out, "12.5%") {
		t.Errorf("no spread column:\n%s", out)
	}
}
