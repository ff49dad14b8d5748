package search_test

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/search"
)

// valueModel is a failure model that learns by the value of the first
// parameter: P(fail) is the share of the measured configurations with that
// value that failed, 0 for a value not measured yet.
type valueModel struct {
	n, failed map[int]int
}

func newValueModel() *valueModel { return &valueModel{n: map[int]int{}, failed: map[int]int{}} }

func (m *valueModel) Observe(c features.Config, failed bool) bool {
	m.n[c[0]]++
	if failed {
		m.failed[c[0]]++
	}
	return true
}

func (m *valueModel) PFail(c features.Config) float64 {
	if m.n[c[0]] == 0 {
		return 0
	}
	return float64(m.failed[c[0]]) / float64(m.n[c[0]])
}

// gridSpace is 16 x 16 configurations {a, b}.
func gridSpace() []features.Config {
	var out []features.Config
	for a := range 16 {
		for b := range 16 {
			out = append(out, features.Config{a, b})
		}
	}
	return out
}

// TestFirstStage checks the first stage's draws: Stratify's first Size
// without a failure model or where nothing fails, and, where half the
// space fails (a >= 8, a work-group over the device's limit, say), about
// as many configurations that ran as a uniform sample of Size holds, with
// far fewer measurements and failures.
func TestFirstStage(t *testing.T) {
	valid := gridSpace()
	tests := []struct {
		name  string
		fails func(c features.Config) bool
		model bool
		// The most measurements and failures (means over seeds), and the
		// fewest configurations that ran.
		maxMeasured, maxFailed, minRan float64
		stratify                       bool // Order is Stratify's
	}{
		{"no model", func(c features.Config) bool { return c[0] >= 8 }, false, 64, 40, 24, true},
		{"nothing fails", func(features.Config) bool { return false }, true, 64, 0, 64, true},
		{"half fails", func(c features.Config) bool { return c[0] >= 8 }, true, 44, 12, 28, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var measured, failed, ran float64
			const seeds = 20
			for seed := range uint64(seeds) {
				order := rand.New(rand.NewPCG(seed, 1)).Perm(len(valid))
				var got []int
				measure := func(idx []int) ([]bool, error) {
					out := make([]bool, len(idx))
					for j, i := range idx {
						out[j] = tc.fails(valid[i])
						got = append(got, i)
					}
					return out, nil
				}
				var model search.FailureModel
				if tc.model {
					model = newValueModel()
				}
				res, err := search.FirstStage{Size: 64}.Run(valid, order, nil, model, measure)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(res.Order[:res.Measured], got) {
					t.Fatalf("seed %d: Order[:%d] is not the configurations measured, in order", seed, res.Measured)
				}
				if !slices.Equal(slices.Sorted(slices.Values(res.Order)), slices.Sorted(slices.Values(order))) {
					t.Fatalf("seed %d: Order is not a permutation of order", seed)
				}
				if want := search.Stratify(valid, order, 64); tc.stratify && (!slices.Equal(res.Order, want) || res.Measured != 64) {
					t.Fatalf("seed %d: measured %d, Order %v; want Stratify's first 64, %v", seed, res.Measured, res.Order[:8], want[:8])
				}
				measured += float64(res.Measured) / seeds
				failed += float64(res.Failed) / seeds
				ran += float64(res.Measured-res.Failed) / seeds
			}
			if measured > tc.maxMeasured+1e-9 || failed > tc.maxFailed+1e-9 || ran < tc.minRan-1e-9 {
				t.Errorf("measured %.1f, failed %.1f, ran %.1f a seed; want <= %g, <= %g, >= %g", measured, failed, ran, tc.maxMeasured, tc.maxFailed, tc.minRan)
			}
		})
	}
}

// TestFirstStageExplores checks that a failure model that is wrong about a
// region (it predicts every a >= 4 to fail, where only a >= 8 fails)
// cannot keep the stage out of it: draws that ignore the model still
// measure configurations there.
func TestFirstStageExplores(t *testing.T) {
	valid := gridSpace()
	order := rand.New(rand.NewPCG(3, 1)).Perm(len(valid))
	wrong := &fixedModel{pfail: func(c features.Config) float64 {
		if c[0] >= 4 {
			return 1
		}
		return 0
	}}
	var inRegion int
	res, err := search.FirstStage{Size: 64}.Run(valid, order, nil, wrong, func(idx []int) ([]bool, error) {
		out := make([]bool, len(idx))
		for j, i := range idx {
			out[j] = valid[i][0] >= 8
		}
		return out, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range res.Order[max(16, 0):res.Measured] { // after the first round of 16
		if a := valid[i][0]; a >= 4 && a < 8 {
			inRegion++
		}
	}
	if res.Explored == 0 || inRegion == 0 {
		t.Errorf("explored %d, measured %d of the wrongly excluded region after the first round; want both > 0", res.Explored, inRegion)
	}
}

// fixedModel is a failure model that learns nothing.
type fixedModel struct{ pfail func(features.Config) float64 }

func (m *fixedModel) Observe(features.Config, bool) bool { return false }
func (m *fixedModel) PFail(c features.Config) float64    { return m.pfail(c) }

func TestFirstStageErrors(t *testing.T) {
	valid := gridSpace()
	order := rand.New(rand.NewPCG(1, 1)).Perm(len(valid))
	ok := func(idx []int) ([]bool, error) { return make([]bool, len(idx)), nil }
	boom := errors.New("no device")
	tests := []struct {
		name    string
		o       search.FirstStage
		measure func(idx []int) ([]bool, error)
		want    error
	}{
		{"size", search.FirstStage{}, ok, nil},
		{"round", search.FirstStage{Size: 10, Round: -1}, ok, nil},
		{"explore", search.FirstStage{Size: 10, Explore: 1}, ok, nil},
		{"runs", search.FirstStage{Size: 10, Runs: 1.5}, ok, nil},
		{"failing", search.FirstStage{Size: 10, Failing: -0.1}, ok, nil},
		{"measure fails", search.FirstStage{Size: 10}, func([]int) ([]bool, error) { return nil, boom }, boom},
		{"short answer", search.FirstStage{Size: 10}, func([]int) ([]bool, error) { return []bool{false}, nil }, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.o.Run(valid, order, nil, newValueModel(), tc.measure)
			if err == nil || tc.want != nil && !errors.Is(err, tc.want) {
				t.Errorf("Run = %v, want an error (wrapping %v)", err, tc.want)
			}
		})
	}
}
