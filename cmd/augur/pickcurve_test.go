package main

import (
	"strings"
	"testing"

	"github.com/augur-tuning/augur/eval"
)

// TestPickCurveTextNoPicks: a point whose models had too few rows to fit
// prints dashes, not a 0% pick.
func TestPickCurveTextNoPicks(t *testing.T) {
	var b strings.Builder
	pts := []eval.PickCurvePoint{
		{Platform: "a", TrainShapes: 9, Fraction: 0.02},
		{Platform: "a", TrainShapes: 9, Fraction: 1, TrainRows: 900, Pct: 95.1, Worst: 90.2, Picks: 10},
	}
	if err := writePickCurveText(&b, pts); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(b.String(), "\n")
	if f := strings.Fields(lines[2]); len(f) != 7 || f[3] != "-" || f[4] != "-" || f[6] != "0" {
		t.Errorf("the point without picks printed %q", lines[2])
	}
	if !strings.Contains(b.String(), "95.1") {
		t.Errorf("the all-data point is missing:\n%s", b.String())
	}
}
