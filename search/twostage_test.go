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
	var reversed []features.Config
	for i := range 10 {
		reversed = append(reversed, features.Config{9 - i})
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
		// Random draws from the bottom of the ranking take every other
		// measurement: the tight stage measures rank 9 first and then
		// rank 0, whose prediction may still beat it.
		{"random tight", search.SecondStage{Threshold: 0.1, Sigma: 0.1, Random: reversed}, nil, 0, 2},
		// The wide stage measures the whole space, half of it at random.
		{"random wide", search.SecondStage{Threshold: 0.01, Sigma: 5, Random: reversed}, nil, 2, 10},
		{"random budget", search.SecondStage{Threshold: 0.01, Sigma: 5, Budget: 3, Random: reversed}, nil, 0, 3},
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
			seen := map[int]bool{}
			for _, m := range res.Measured {
				if seen[m.Config[0]] || tt.skip != nil && tt.skip(m.Config) {
					t.Errorf("measured %v twice or skipped", m.Config)
				}
				seen[m.Config[0]] = true
			}
			if tt.stage.Random != nil && res.Drawn != (len(res.Measured)+1)/2 {
				t.Errorf("%d of %d measurements drawn at random, want every other one", res.Drawn, len(res.Measured))
			}
			for _, m := range res.Measured {
				if m.Config[0] == 1 && !math.IsNaN(m.LogSpeedup) {
					t.Errorf("failed measurement recorded as %g, want NaN", m.LogSpeedup)
				}
			}
		})
	}
	if _, err := (search.SecondStage{Threshold: 1.5}).Run(ranked, 0, nil, nil, truth); err == nil {
		t.Error("Threshold 1.5 accepted")
	}
	if _, err := (search.SecondStage{Explore: 1}).Run(ranked, 0, nil, nil, truth); err == nil {
		t.Error("Explore 1 accepted")
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
		if rng.IntN(2) == 0 {
			for _, i := range rng.Perm(n) {
				st.Random = append(st.Random, features.Config{i})
			}
			st.Explore = 0.9 * rng.Float64()
		}
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

func TestRandomMedian(t *testing.T) {
	inf := math.Inf(1)
	tests := []struct {
		name  string
		times []float64
		n, k  int
		want  float64
	}{
		{"one draw of four", []float64{4, 2, 3, 1}, 4, 1, 2},  // P(best <= 2) = 1/2
		{"two draws of four", []float64{4, 2, 3, 1}, 4, 2, 1}, // P(best = 1) = 1 - C(3,2)/C(4,2) = 1/2
		{"the whole space", []float64{4, 2, 3, 1}, 4, 4, 1},
		{"more than the space", []float64{4, 2, 3, 1}, 4, 9, 1},
		{"no draw", []float64{4, 2, 3, 1}, 4, 0, inf},
		{"mostly failures, one draw", []float64{5}, 10, 1, inf},     // finds it with 1/10
		{"mostly failures, half the space", []float64{5}, 10, 5, 5}, // 1 - C(9,5)/C(10,5) = 1/2
		{"nothing ran", nil, 10, 5, inf},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := slices.Clone(tt.times)
			if got := search.RandomMedian(tt.times, tt.n, tt.k); got != tt.want {
				t.Errorf("RandomMedian(%v, %d, %d) = %g, want %g", tt.times, tt.n, tt.k, got, tt.want)
			}
			if !slices.Equal(in, tt.times) {
				t.Errorf("times changed to %v", tt.times)
			}
		})
	}
}

// TestRandomMedianAgreesWithDraws compares RandomMedian with the median
// best of many random orders of a space with ties and failures.
func TestRandomMedianAgreesWithDraws(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	n := 300
	var times []float64
	for range 200 {
		times = append(times, float64(1+rng.IntN(150)))
	}
	for _, k := range []int{1, 5, 20, 100} {
		want := search.RandomMedian(times, n, k)
		var below, above int
		for range 4000 {
			best := math.Inf(1)
			for _, i := range rng.Perm(n)[:k] {
				if i < len(times) {
					best = min(best, times[i])
				}
			}
			switch {
			case best < want:
				below++
			case best > want:
				above++
			}
		}
		// The median: at most half the draws on either side (with room
		// for the draws' own noise).
		if below > 2100 || above > 2100 {
			t.Errorf("k=%d: median %g has %d draws below and %d above of 4000", k, want, below, above)
		}
	}
}
