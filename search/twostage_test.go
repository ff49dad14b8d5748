package search_test

import (
	"cmp"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/predict"
	"github.com/augur-tuning/augur/search"
)

func TestSecondStage(t *testing.T) {
	// Predicted log-speedups fall by 0.5 a rank; the truth is the
	// prediction except for rank 2, which is better than predicted, and
	// rank 1, which fails.
	var ranked []predict.Scored
	for i := range 10 {
		ranked = append(ranked, predict.Scored{Config: features.Config{i}, LogSpeedup: 2 - 0.5*float64(i)})
	}
	truth := func(c features.Config) (float64, error) {
		switch c[0] {
		case 1:
			return 0, errors.New("launch failed")
		case 2:
			return 3, nil
		}
		return 2 - 0.5*float64(c[0]), nil
	}
	tests := []struct {
		name      string
		stage     search.SecondStage
		skip      func(features.Config) bool
		wantBest  int
		wantCount int
	}{
		// With a tight error model the stage stops as soon as the next
		// prediction is far below the best measured: it never finds rank 2.
		{"tight", search.SecondStage{Threshold: 0.1, Sigma: 0.1}, nil, 0, 1},
		// A wide error model keeps measuring, and finds rank 2.
		{"wide", search.SecondStage{Threshold: 0.01, Sigma: 5}, nil, 2, 8},
		{"budget", search.SecondStage{Threshold: 0.01, Sigma: 5, Budget: 2}, nil, 0, 2},
		// Exact predictions narrow the error model until the stage stops,
		// one short of the end.
		{"skip", search.SecondStage{Threshold: 0.01, Sigma: 5}, func(c features.Config) bool { return c[0] == 2 }, 0, 8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := tt.stage.Run(ranked, math.Inf(-1), nil, tt.skip, truth)
			if err != nil {
				t.Fatal(err)
			}
			if res.Best[0] != tt.wantBest || len(res.Measured) != tt.wantCount {
				t.Errorf("best %v after %d measurements, want %d after %d", res.Best, len(res.Measured), tt.wantBest, tt.wantCount)
			}
			if len(res.Measured) > 1 && !math.IsNaN(res.Measured[1].LogSpeedup) {
				t.Errorf("failed measurement recorded as %g, want NaN", res.Measured[1].LogSpeedup)
			}
		})
	}
	if _, err := (search.SecondStage{Threshold: 1.5}).Run(ranked, 0, nil, nil, truth); err == nil {
		t.Error("Threshold 1.5 accepted")
	}
}

// TestSecondStageNeverBelowMeasured checks, over random spaces, rankings
// and first-stage bests, that the answer is the best configuration of
// both stages: never worse than one it measured (issue 25).
func TestSecondStageNeverBelowMeasured(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		n := 1 + rng.IntN(30)
		truth := make([]float64, n)
		ranked := make([]predict.Scored, n)
		for i := range n {
			truth[i] = rng.NormFloat64()
			ranked[i] = predict.Scored{Config: features.Config{i}, LogSpeedup: truth[i] + rng.NormFloat64()}
		}
		slices.SortStableFunc(ranked, func(a, b predict.Scored) int { return -cmp.Compare(a.LogSpeedup, b.LogSpeedup) })
		first, firstC := math.Inf(-1), features.Config(nil)
		if rng.IntN(2) == 0 {
			first, firstC = rng.NormFloat64(), features.Config{-1}
		}
		measure := func(c features.Config) (float64, error) {
			if c[0]%7 == 3 {
				return 0, errors.New("failed")
			}
			return truth[c[0]], nil
		}
		st := search.SecondStage{Threshold: 0.01 + 0.5*rng.Float64(), Sigma: 0.05 + rng.Float64(), Budget: rng.IntN(5)}
		res, err := st.Run(ranked, first, firstC, nil, measure)
		if err != nil {
			t.Fatal(err)
		}
		want, wantC := first, firstC
		for _, m := range res.Measured {
			if !math.IsNaN(m.LogSpeedup) && m.LogSpeedup > want {
				want, wantC = m.LogSpeedup, m.Config
			}
		}
		if res.LogSpeedup != want || !res.Best.Equal(wantC) {
			t.Fatalf("trial %d: answer %v (%g), want the best measured %v (%g)", trial, res.Best, res.LogSpeedup, wantC, want)
		}
	}
}
