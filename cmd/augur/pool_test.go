package main

import (
	"strings"
	"testing"

	"github.com/augur-tuning/augur/features"
)

// TestPoolText: a bundle that records choices between devices' own models
// and the fleet model says which serves each device; one without says
// nothing.
func TestPoolText(t *testing.T) {
	for _, tc := range []struct {
		name   string
		models []features.Model
		want   []string
	}{
		{"none", []features.Model{{Name: "nvidia-h200"}, {Name: "fleet"}}, nil},
		{"both", []features.Model{
			{Name: "nvidia-h200", Pool: &features.PoolChoice{OwnPct: 98.4, FleetPct: 94.0, OwnWorst: 94.2, FleetWorst: 83.3, Shapes: 6}},
			{Name: "nvidia-h100", Pool: &features.PoolChoice{Fleet: true, OwnPct: 89.9, FleetPct: 94.3, OwnWorst: 82.5, FleetWorst: 89.7, Shapes: 3}},
			{Name: "xeon", Pool: &features.PoolChoice{OwnPct: 81.5, FleetPct: 84.0, OwnWorst: 68.5, FleetWorst: 70.0, Shapes: 8}},
			{Name: "nvidia-a100", Pool: &features.PoolChoice{Shapes: 12}},
			{Name: "fleet"},
		}, []string{
			"nvidia-h200: own 98.4% (worst 94.2%), fleet 94.0% (worst 83.3%) on 6 shapes: its own model\n",
			"xeon: own 81.5% (worst 68.5%), fleet 84.0% (worst 70.0%) on 8 shapes: its own model (the fleet model serves devices of at most 4 shapes)",
			"nvidia-h100: own 89.9% (worst 82.5%), fleet 94.3% (worst 89.7%) on 3 shapes: the fleet model",
			"nvidia-a100: its own model, on 12 shapes (the fleet model serves devices of at most 4 shapes; --pool-figures scores both)\n",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := poolText(&features.Bundle{Models: tc.models})
			if tc.want == nil && got != "" {
				t.Errorf("got %q, want nothing", got)
			}
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("got %q, want a line %q", got, w)
				}
			}
		})
	}
}
