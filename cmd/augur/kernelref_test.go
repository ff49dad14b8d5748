package main

import (
	"testing"

	"github.com/augur-tuning/augur/datasets"
)

// TestParseShapesAliases checks that a spec kernel's problem sizes answer
// to their names and to problem_size_I alike.
func TestParseShapesAliases(t *testing.T) {
	k, err := datasets.ReadSpec("../../examples/transpose/transpose.json")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		text string
		want [][2]int
	}{
		{"width=10,height=20", [][2]int{{10, 20}}},
		{"problem_size_0=10,problem_size_1=20;height=5,problem_size_0=7", [][2]int{{10, 20}, {7, 5}}},
	}
	for _, tc := range tests {
		got, err := parseShapes(k, tc.text)
		if err != nil {
			t.Fatalf("%s: %v", tc.text, err)
		}
		if len(got) != len(tc.want) {
			t.Fatalf("%s: %v", tc.text, got)
		}
		for i, w := range tc.want {
			if got[i][0] != w[0] || got[i][1] != w[1] {
				t.Errorf("%s: shape %d is %v, want %v", tc.text, i, got[i], w)
			}
		}
	}
	if _, err := parseShapes(k, "width=10"); err == nil {
		t.Error("a shape without height parsed")
	}
}
