package main

import (
	"strings"
	"testing"

	"github.com/augur-tuning/augur/eval"
)

func TestPickCurveAdvice(t *testing.T) {
	pts := []eval.PickCurvePoint{
		{Platform: "a", TrainShapes: 2, Fraction: 1, Pct: 90},
		{Platform: "a", TrainShapes: 4, Fraction: 1, Pct: 93},
		{Platform: "a", TrainShapes: 5, Fraction: 0.25, Pct: 80},
		{Platform: "a", TrainShapes: 5, Fraction: 0.5, Pct: 97},
		{Platform: "a", TrainShapes: 5, Fraction: 1, Pct: 98},
		{Platform: "b", TrainShapes: 1, Fraction: 1, Pct: 70},
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
