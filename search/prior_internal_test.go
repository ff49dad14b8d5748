package search

import (
	"slices"
	"testing"

	"github.com/augur-tuning/augur/features"
)

func TestRankedPicks(t *testing.T) {
	// Each configuration's distance from the first: 0, 1, 2, 4, 4 and 1
	// parameters of 8; the fourth and fifth differ from each other in 2.
	cfgs := []features.Config{
		{0, 0, 0, 0, 0, 0, 0, 0},
		{1, 0, 0, 0, 0, 0, 0, 0},
		{1, 1, 0, 0, 0, 0, 0, 0},
		{1, 1, 1, 1, 0, 0, 0, 0},
		{0, 0, 1, 1, 1, 1, 0, 0},
		{0, 0, 0, 0, 0, 0, 0, 1},
	}
	ranked := []int{0, 1, 2, 3, 4, 5}
	tests := []struct {
		name      string
		n         int
		apart     []features.Config
		out, rest []int
	}{
		{"not apart: the best ranked", 3, nil, []int{0, 1, 2}, []int{3, 4, 5}},
		{"one pick: the best ranked", 1, cfgs, []int{0}, []int{1, 2, 3, 4, 5}},
		{"apart: skip near ones", 2, cfgs, []int{0, 3}, []int{1, 2, 4, 5}},
		{"apart: three", 3, cfgs, []int{0, 3, 4}, []int{1, 2, 5}},
		{"too few apart: the best ranked of the others", 4, cfgs, []int{0, 3, 4, 1}, []int{2, 5}},
		{"all of them", 6, cfgs, []int{0, 3, 4, 1, 2, 5}, []int{}},
		{"none", 0, cfgs, []int{}, []int{0, 1, 2, 3, 4, 5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, rest := rankedPicks(slices.Clone(ranked), tt.n, tt.apart)
			if !slices.Equal(out, tt.out) || !slices.Equal(rest, tt.rest) {
				t.Errorf("rankedPicks(%d) = %v, %v; want %v, %v", tt.n, out, rest, tt.out, tt.rest)
			}
		})
	}
}
