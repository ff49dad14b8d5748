package eval_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/augur-tuning/augur/eval"
	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/search"
)

// rowsumLike is examples/rowsum's space on the H200: {WG, RPW}, encoded
// as WG, RPW and the work-group size WG x RPW; every work-group of 512
// items or more fails.
func rowsumLike() (space []features.Config, encode func([]float64, features.Config), fails func(features.Config) bool) {
	for _, wg := range []int{16, 32, 64, 128, 256, 512} {
		for _, rpw := range []int{1, 2, 4, 8} {
			space = append(space, features.Config{wg, rpw})
		}
	}
	encode = func(dst []float64, c features.Config) {
		dst[0], dst[1], dst[2] = float64(c[0]), float64(c[1]), float64(c[0]*c[1])
	}
	fails = func(c features.Config) bool { return c[0]*c[1] >= 512 }
	return space, encode, fails
}

func TestFailureForest(t *testing.T) {
	_, encode, fails := rowsumLike()
	tests := []struct {
		name     string
		observed []features.Config
		c        features.Config
		lo, hi   float64 // want PFail(c) in [lo, hi]
	}{
		{"nothing observed", nil, features.Config{512, 8}, 0, 0},
		{"nothing failed", []features.Config{{16, 1}, {64, 2}}, features.Config{512, 8}, 0, 0},
		{"nothing ran", []features.Config{{512, 2}, {256, 4}}, features.Config{16, 1}, 1, 1},
		// Ten configurations, four of them failing: the largest work-groups
		// are predicted to fail, the smallest to run.
		{"large work-group", []features.Config{{16, 1}, {32, 8}, {64, 2}, {128, 1}, {256, 1}, {16, 4}, {512, 1}, {256, 4}, {128, 8}, {512, 2}},
			features.Config{512, 8}, 0.9, 1},
		{"small work-group", []features.Config{{16, 1}, {32, 8}, {64, 2}, {128, 1}, {256, 1}, {16, 4}, {512, 1}, {256, 4}, {128, 8}, {512, 2}},
			features.Config{32, 2}, 0, 0.1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := eval.NewFailureForest(3, encode, 1)
			for _, c := range tt.observed {
				f.Observe(c, fails(c))
			}
			if got := f.PFail(tt.c); got < tt.lo || got > tt.hi {
				t.Errorf("PFail(%v) = %g, want in [%g, %g]", tt.c, got, tt.lo, tt.hi)
			}
		})
	}
}

// TestFailureForestStopsAFamily runs the second stage over a ranking that
// puts the failing work-groups first (a regression model fitted on the
// configurations that ran has no word for them): with the forest it
// spends fewer measurements on failures, over 20 random first stages,
// and finds the same best.
func TestFailureForestStopsAFamily(t *testing.T) {
	space, encode, fails := rowsumLike()
	truth := func(c features.Config) (float64, error) {
		if fails(c) {
			return 0, errors.New("invalid work-group size")
		}
		return float64(c[0]*c[1]) / 256, nil // the best is the largest that runs
	}
	for _, tt := range []struct {
		threshold float64
		maxRatio  float64 // failures with the forest / without, at most
	}{{0.1, 0.7}, {0.01, 0.9}} {
		t.Run(fmt.Sprint(tt.threshold), func(t *testing.T) {
			var with, without int
			for seed := range 20 {
				rng := rand.New(rand.NewPCG(uint64(seed), 1))
				order := rng.Perm(len(space))
				ranked := search.RankInOrder(space, order, func(i int) float64 { return float64(space[i][0]*space[i][1]) / 256 })
				first := order[:8]
				for _, run := range []bool{false, true} {
					f := eval.NewFailureForest(3, encode, uint64(seed))
					best, bestC := -1e9, features.Config(nil)
					for _, i := range first {
						v, err := truth(space[i])
						f.Observe(space[i], err != nil)
						if err == nil && v > best {
							best, bestC = v, space[i]
						}
					}
					st := search.SecondStage{Threshold: tt.threshold, Sigma: 0.3}
					if run {
						st.Failures = f
					}
					res, err := st.Run(ranked, best, bestC, func(c features.Config) bool {
						for _, i := range first {
							if space[i].Equal(c) {
								return true
							}
						}
						return false
					}, truth)
					if err != nil {
						t.Fatal(err)
					}
					if run {
						with += res.Failed
					} else {
						without += res.Failed
					}
					if res.LogSpeedup != 1 {
						t.Errorf("seed %d, forest %v: best %v at %g, want a work-group of 256 at 1", seed, run, res.Best, res.LogSpeedup)
					}
				}
			}
			if float64(with) > tt.maxRatio*float64(without) {
				t.Errorf("failed measurements over 20 seeds: %d with the forest, %d without; want at most %.0f%%", with, without, 100*tt.maxRatio)
			}
		})
	}
}

// ExampleFailureForest learns from ten measured configurations of
// examples/rowsum's space on the H200, four of which failed, that a
// work-group of 512 items or more fails.
func ExampleFailureForest() {
	encode := func(dst []float64, c features.Config) { // WG, RPW, work-group size
		dst[0], dst[1], dst[2] = float64(c[0]), float64(c[1]), float64(c[0]*c[1])
	}
	f := eval.NewFailureForest(3, encode, 1)
	for _, c := range []features.Config{{16, 1}, {32, 8}, {64, 2}, {128, 1}, {256, 1}, {16, 4}, {512, 1}, {256, 4}, {128, 8}, {512, 2}} {
		f.Observe(c, c[0]*c[1] >= 512)
	}
	for _, c := range []features.Config{{512, 4}, {256, 8}, {32, 2}, {64, 1}} {
		fmt.Printf("WG=%d RPW=%d: P(fail) %.2f\n", c[0], c[1], f.PFail(c))
	}
	// The second stage at T = 0.1 passes over the first; the second, with
	// a chance of 0.16 to run, it still measures if it may beat the best.

	// Output:
	// WG=512 RPW=4: P(fail) 1.00
	// WG=256 RPW=8: P(fail) 0.84
	// WG=32 RPW=2: P(fail) 0.00
	// WG=64 RPW=1: P(fail) 0.00
}
