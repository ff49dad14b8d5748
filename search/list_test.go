package search

import (
	"testing"

	"github.com/augur-tuning/augur/features"
)

func TestList(t *testing.T) {
	s, err := features.NewSpace([]features.Param{
		{Name: "a", Values: []int{1, 2, 3, 4}},
	}, []string{"a != 3"})
	if err != nil {
		t.Fatal(err)
	}
	score := func(c features.Config) (float64, error) { return float64(c[0]), nil }
	list := []features.Config{{1}, {3}, {2}, {4}, {9}}
	for _, tc := range []struct {
		budget    int
		best      int
		evals     int
		wantError bool
	}{
		{0, 4, 3, false}, // {3} and {9} are not in the space
		{2, 2, 2, false},
		{1, 1, 1, false},
	} {
		res, err := Run(List{Configs: list}, s, score, nil, Settings{Budget: tc.budget})
		if err != nil {
			t.Fatalf("budget %d: %v", tc.budget, err)
		}
		if res.Best[0] != tc.best || res.Evals != tc.evals {
			t.Errorf("budget %d: best %v after %d evaluations, want %d after %d", tc.budget, res.Best, res.Evals, tc.best, tc.evals)
		}
	}
	if _, err := Run(List{}, s, score, nil, Settings{}); err == nil {
		t.Error("an empty list found something")
	}
}
