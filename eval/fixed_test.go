package eval

import (
	"math"
	"testing"
)

func TestFixedConfig(t *testing.T) {
	g := func(best float64, times map[string]float64, failed ...string) *group {
		f := map[string]bool{}
		for _, n := range failed {
			f[n] = true
		}
		return &group{times: times, failed: f, bestNs: best, refNs: 1000}
	}
	// a is each shape's best on one shape and slow on the other; b is
	// within 10% of the best on both; c ran on one shape only.
	a1 := g(9.5, map[string]float64{"a": 10, "b": 11, "c": 9.5})
	a2 := g(10, map[string]float64{"a": 40, "b": 10})
	tests := []struct {
		name    string
		train   []*group
		held    *group
		want    string
		wantOK  bool
		wantPct float64
	}{
		{"none to train on", nil, a1, "", false, 0},
		{"the best over every shape, not one shape's best", []*group{a1, a2}, g(20, map[string]float64{"a": 20, "b": 25}), "b", true, 80},
		{"one shape: its best", []*group{a1}, g(20, map[string]float64{"c": 40}), "c", true, 50},
		{"failed on the held-out shape: the reference", []*group{a1, a2}, g(20, map[string]float64{"a": 20}, "b"), "b", true, 2},
		{"not recorded on the held-out shape", []*group{a1, a2}, g(20, map[string]float64{"a": 20}), "b", false, 0},
		{"nothing ran everywhere", []*group{g(1, map[string]float64{"a": 1}), g(1, map[string]float64{"b": 1})}, a1, "", false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name, ok := fixedConfig(tt.train)
			if name != tt.want || ok != (tt.want != "") {
				t.Errorf("fixedConfig = %q, %v; want %q", name, ok, tt.want)
			}
			pct, ok := fixedPct(tt.train, tt.held)
			if ok != tt.wantOK || math.Abs(pct-tt.wantPct) > 1e-9 {
				t.Errorf("fixedPct = %v, %v; want %v, %v", pct, ok, tt.wantPct, tt.wantOK)
			}
		})
	}
}
