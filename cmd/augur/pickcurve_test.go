package main

import (
	"strings"
	"testing"

	"github.com/augur-tuning/augur/eval"
)

func TestPickCurveAdvice(t *testing.T) {
	pts := []eval.PickCurvePoint{
		{Platform: "a", TrainShapes: 2, Fraction: 1, Pct: 90, Picks: 5},
		{Platform: "a", TrainShapes: 4, Fraction: 1, Pct: 93, Picks: 5},
		{Platform: "a", TrainShapes: 5, Fraction: 0.25, Pct: 80, Picks: 5},
		{Platform: "a", TrainShapes: 5, Fraction: 0.5, Pct: 97, Picks: 5},
		{Platform: "a", TrainShapes: 5, Fraction: 0.75}, // no pick: left out
		{Platform: "a", TrainShapes: 5, Fraction: 1, Pct: 98, Picks: 5},
		{Platform: "b", TrainShapes: 1, Fraction: 1, Pct: 70, Picks: 1},
	}
	got := pickCurveAdvice(pts)
	want := []string{
		"a: every shape and configuration 98.0%; 4 -> 5 shapes +5.0 points; 50% -> 100% of the configurations +1.0 points",
		"b: every shape and configuration 70.0%",
	}
	if len(got) != len(want) {
		t.Fatalf("got %d lines, want %d: %q", len(got), len(want), got)
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]+" (") {
			t.Errorf("line %d:\n got %s\nwant %s (...)", i, got[i], want[i])
		}
	}
}

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
