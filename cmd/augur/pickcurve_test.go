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

// TestPickCurveTextNextShapes: the advice to collect more shapes points
// to --next-shapes; advice that cannot tell does not.
func TestPickCurveTextNextShapes(t *testing.T) {
	byShape := func(base float64) map[string]float64 {
		m := map[string]float64{}
		for i := range 8 {
			m[string(rune('a'+i))] = base + float64(i%3)
		}
		return m
	}
	for _, tc := range []struct {
		name     string
		few, all float64
		want     bool
	}{
		{"a clear gain", 80, 90, true},
		{"none", 90, 90, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pts := []eval.PickCurvePoint{
				{Platform: "a", TrainShapes: 4, Fraction: 1, Pct: tc.few, Picks: 8, ByShape: byShape(tc.few)},
				{Platform: "a", TrainShapes: 8, Fraction: 1, Pct: tc.all, Picks: 8, ByShape: byShape(tc.all)},
			}
			var b strings.Builder
			if err := writePickCurveText(&b, pts); err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(b.String(), "--next-shapes"); got != tc.want {
				t.Errorf("mentions --next-shapes: %v, want %v:\n%s", got, tc.want, b.String())
			}
		})
	}
}
