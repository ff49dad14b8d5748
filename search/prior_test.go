package search_test

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/search"
)

// grid is a 40x40 space of two features whose true log-speedup peaks at
// (30, 10); idx i is (i/40, i%40).
func grid() (x, truth []float64) {
	for i := range 1600 {
		a, b := float64(i/40), float64(i%40)
		x = append(x, a, b)
		truth = append(truth, -((a-30)*(a-30)+(b-10)*(b-10))/200)
	}
	return x, truth
}

// knn is a Refitter for the tests: the mean target of the k nearest
// measured rows.
type knn struct{ k int }

type knnModel struct {
	x, y []float64
	nf   int
	k    int
}

func (r knn) Refit(x []float64, nf int, y []float64) (search.Predictor, error) {
	return knnModel{x: slices.Clone(x), y: slices.Clone(y), nf: nf, k: r.k}, nil
}

func (m knnModel) Predict(x []float64) float64 {
	type near struct{ d, y float64 }
	var ns []near
	for j := range m.y {
		d := 0.0
		// The last column is the prior, which the model ignores.
		for f := 0; f < m.nf-1; f++ {
			e := x[f] - m.x[j*m.nf+f]
			d += e * e
		}
		ns = append(ns, near{d, m.y[j]})
	}
	slices.SortFunc(ns, func(a, b near) int { return int(math.Copysign(1, a.d-b.d)) })
	s := 0.0
	k := min(m.k, len(ns))
	for _, n := range ns[:k] {
		s += n.y / float64(k)
	}
	return s
}

func measureFrom(truth []float64, fail func(i int) bool) func([]int) ([]float64, error) {
	return func(idx []int) ([]float64, error) {
		out := make([]float64, len(idx))
		for j, i := range idx {
			out[j] = truth[i]
			if fail != nil && fail(i) {
				out[j] = math.NaN()
			}
		}
		return out, nil
	}
}

func TestPriorSearch(t *testing.T) {
	x, truth := grid()
	best := slices.Index(truth, slices.Max(truth))
	// top5 is the true log-speedup of the 80th best configuration: random
	// search with 80 measurements beats it with probability 0.98.
	sorted := slices.Clone(truth)
	slices.Sort(sorted)
	top5 := sorted[len(sorted)-80]
	neg := make([]float64, len(truth))
	flat := make([]float64, len(truth))
	for i, v := range truth {
		neg[i] = -v
	}
	for _, tc := range []struct {
		name   string
		prior  []float64
		fail   func(int) bool
		budget int
		// wantFirst is the index measured first, -1 for any.
		wantFirst int
		// atLeast is the least true log-speedup of the best found.
		atLeast float64
	}{
		{"perfect prior", truth, nil, 40, best, truth[best]},
		{"inverted prior", neg, nil, 80, -1, top5},
		{"flat prior", flat, nil, 80, -1, top5},
		{"prior's favourites fail", truth, func(i int) bool { return truth[i] > -0.1 }, 80, best, top5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ps := search.PriorSpace{X: x, NumFeatures: 2, Prior: tc.prior}
			r, err := search.PriorSearch{Budget: tc.budget, Full: true, Seed: 3}.Run(ps, knn{k: 3}, measureFrom(truth, tc.fail))
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Order) != tc.budget || len(r.Values) != tc.budget {
				t.Errorf("measured %d (%d values), want the budget %d", len(r.Order), len(r.Values), tc.budget)
			}
			if tc.wantFirst >= 0 && r.Order[0] != tc.wantFirst {
				t.Errorf("first measured %d, want %d", r.Order[0], tc.wantFirst)
			}
			if r.Best < 0 || truth[r.Best] < tc.atLeast {
				t.Errorf("best found %d (log-speedup %.3f), want at least %.3f", r.Best, r.LogSpeedup, tc.atLeast)
			}
			seen := map[int]bool{}
			for _, i := range r.Order {
				if seen[i] {
					t.Fatalf("candidate %d measured twice", i)
				}
				seen[i] = true
			}
		})
	}
}

// TestPriorSearchStops checks the stopping rule: a prior that is right and
// sure of itself stops the search early; Full measures on to the budget
// and still says where it would have stopped.
func TestPriorSearchStops(t *testing.T) {
	x, truth := grid()
	ps := search.PriorSpace{X: x, NumFeatures: 2, Prior: truth}
	for _, tc := range []struct {
		name      string
		full      bool
		wantOrder int // measurements, 0: fewer than the budget
	}{
		{"stops", false, 0},
		{"full", true, 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := search.PriorSearch{Sigma: 0.02, Budget: 200, Full: tc.full}.Run(ps, knn{k: 3}, measureFrom(truth, nil))
			if err != nil {
				t.Fatal(err)
			}
			if r.StopAt == 0 || r.StopAt >= 200 {
				t.Fatalf("StopAt = %d, want a stop before the budget of 200", r.StopAt)
			}
			switch {
			case tc.wantOrder == 0 && len(r.Order) != r.StopAt:
				t.Errorf("measured %d, want %d (StopAt)", len(r.Order), r.StopAt)
			case tc.wantOrder > 0 && len(r.Order) != tc.wantOrder:
				t.Errorf("measured %d, want %d", len(r.Order), tc.wantOrder)
			}
		})
	}
}

func TestPriorSearchErrors(t *testing.T) {
	x, truth := grid()
	ps := search.PriorSpace{X: x, NumFeatures: 2, Prior: truth}
	boom := errors.New("no device")
	for _, tc := range []struct {
		name    string
		o       search.PriorSearch
		ps      search.PriorSpace
		measure func([]int) ([]float64, error)
		want    string
	}{
		{"batch", search.PriorSearch{Batch: -1}, ps, nil, "Batch must be >= 1"},
		{"explore", search.PriorSearch{Explore: 1.5}, ps, nil, "Explore must be in (0, 1]"},
		{"threshold", search.PriorSearch{Threshold: 1}, ps, nil, "Threshold must be in (0, 1)"},
		{"epsilon", search.PriorSearch{Epsilon: -1}, ps, nil, "Epsilon must be >= 0"},
		{"sigma", search.PriorSearch{Sigma: -1}, ps, nil, "Sigma must be > 0"},
		{"shrink", search.PriorSearch{Shrink: -1}, ps, nil, "Shrink must be > 0"},
		{"budget", search.PriorSearch{Budget: -1}, ps, nil, "Budget must be >= 0"},
		{"empty", search.PriorSearch{}, search.PriorSpace{}, nil, "no candidate"},
		{"short X", search.PriorSearch{}, search.PriorSpace{X: x[:10], NumFeatures: 2, Prior: truth}, nil, "10 feature values for 1600 candidates"},
		{"short Configs", search.PriorSearch{}, search.PriorSpace{X: x, NumFeatures: 2, Prior: truth, Configs: []features.Config{{1, 2}}}, nil, "1 configurations for 1600 candidates"},
		{"First out of range", search.PriorSearch{}, search.PriorSpace{X: x, NumFeatures: 2, Prior: truth, First: []int{3, 1600}}, nil, "First[1] is 1600, want in [0, 1600)"},
		{"measure fails", search.PriorSearch{}, ps, func([]int) ([]float64, error) { return nil, boom }, "no device"},
		{"measure short", search.PriorSearch{}, ps, func([]int) ([]float64, error) { return []float64{0}, nil }, "returned 1 values for 4"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := tc.measure
			if m == nil {
				m = measureFrom(truth, nil)
			}
			_, err := tc.o.Run(tc.ps, knn{k: 3}, m)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// TestPriorSearchApart: while the ranked picks have not beaten the random
// ones, the ranked picks of a batch differ in at least half the parameters
// when the space gives the configurations; once they have, they are the
// best ranked, near each other.
func TestPriorSearchApart(t *testing.T) {
	// Six parameters of three values; the prior ranks (0,...,0) first and
	// each configuration lower the farther it lies from there.
	var cfgs []features.Config
	var x, prior []float64
	for i := range 729 {
		c := make(features.Config, 6)
		sum := 0.0
		for f, v := 0, i; f < 6; f, v = f+1, v/3 {
			c[f] = v % 3
			sum += float64(c[f])
			x = append(x, float64(c[f]))
		}
		cfgs = append(cfgs, c)
		prior = append(prior, -sum)
	}
	wrong := make([]float64, len(prior))
	for i, v := range prior {
		wrong[i] = -v
	}
	differ := func(a, b features.Config) int {
		n := 0
		for f := range a {
			if a[f] != b[f] {
				n++
			}
		}
		return n
	}
	tests := []struct {
		name    string
		configs []features.Config
		truth   []float64
		// apart is whether every batch's two ranked picks must differ in
		// at least 3 parameters; false: some batch's differ in fewer.
		apart bool
	}{
		{"prior wrong, apart", cfgs, wrong, true},
		{"prior wrong, no configurations", nil, wrong, false},
		{"prior right: greedy once proven", cfgs, prior, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Explore 0.5 with batches of 4: two ranked picks, then two
			// random ones, every batch.
			o := search.PriorSearch{Batch: 4, Explore: 0.5, Budget: 40, Full: true, Seed: 3}
			r, err := o.Run(search.PriorSpace{X: x, NumFeatures: 6, Prior: prior, Configs: tt.configs}, knn{k: 3}, measureFrom(tt.truth, nil))
			if err != nil {
				t.Fatal(err)
			}
			allApart := true
			for b := 0; b+1 < len(r.Order); b += 4 {
				if differ(cfgs[r.Order[b]], cfgs[r.Order[b+1]]) < 3 {
					allApart = false
				}
			}
			if allApart != tt.apart {
				t.Errorf("every batch's ranked picks apart: %v, want %v (order %v)", allApart, tt.apart, r.Order)
			}
		})
	}
}

// TestPriorSearchFirst: the given candidates are measured first, in order,
// once each, a batch at a time, and the search goes on from there.
func TestPriorSearchFirst(t *testing.T) {
	x, truth := grid()
	tests := []struct {
		name  string
		first []int
		want  []int // the first measurements
	}{
		{"none", nil, nil},
		{"one", []int{77}, []int{77}},
		{"in order, once each, across batches", []int{5, 900, 5, 33, 1200, 7}, []int{5, 900, 33, 1200, 7}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := search.PriorSearch{Batch: 4, Budget: 12, Full: true, Seed: 1}
			r, err := o.Run(search.PriorSpace{X: x, NumFeatures: 2, Prior: truth, First: tt.first}, knn{k: 3}, measureFrom(truth, nil))
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Order) != 12 || !slices.Equal(r.Order[:len(tt.want)], tt.want) {
				t.Errorf("order %v, want 12 measurements starting %v", r.Order, tt.want)
			}
			seen := map[int]bool{}
			for _, i := range r.Order {
				if seen[i] {
					t.Errorf("candidate %d measured twice: %v", i, r.Order)
				}
				seen[i] = true
			}
		})
	}
}

// TestPriorSearchPruned checks PriorSpace.Pruned: a pruned candidate is
// never measured (not even when First names it), the budget counts only
// the others, a search without a budget ends when they are all measured,
// and a space pruned whole, or marks of the wrong length, are errors.
func TestPriorSearchPruned(t *testing.T) {
	x, truth := grid()
	// All but the first five rows of the grid (a >= 5) are over the
	// limits, the peak at (30, 10) with them.
	pruned := make([]bool, len(truth))
	for i := range pruned {
		pruned[i] = i/40 >= 5
	}
	for _, tc := range []struct {
		name   string
		budget int
		first  []int
		want   int // measurements
	}{
		{"budget 40", 40, nil, 40},
		{"first pruned", 40, []int{30*40 + 10, 5}, 40},
		{"no budget", 0, nil, 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := search.PriorSpace{X: x, NumFeatures: 2, Prior: make([]float64, len(truth)), First: tc.first, Pruned: pruned}
			measure := func(idx []int) ([]float64, error) {
				for _, i := range idx {
					if pruned[i] {
						t.Fatalf("measured pruned candidate %d", i)
					}
				}
				return measureFrom(truth, nil)(idx)
			}
			res, err := search.PriorSearch{Budget: tc.budget, Full: true, Seed: 1}.Run(s, knn{k: 3}, measure)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Order) != tc.want {
				t.Errorf("measured %d, want %d", len(res.Order), tc.want)
			}
			if tc.first != nil && res.Order[0] != 5 {
				t.Errorf("first measured %d, want 5 (the first of First within the limits)", res.Order[0])
			}
		})
	}
	all := slices.Repeat([]bool{true}, len(truth))
	for _, tc := range []struct {
		name   string
		pruned []bool
		want   string
	}{
		{"all pruned", all, "no candidate"},
		{"wrong length", pruned[:10], "pruned marks"},
	} {
		s := search.PriorSpace{X: x, NumFeatures: 2, Prior: make([]float64, len(truth)), Pruned: tc.pruned}
		_, err := search.PriorSearch{Seed: 1}.Run(s, knn{k: 3}, measureFrom(truth, nil))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
}
