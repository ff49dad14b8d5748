package search_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/search"
)

// rowsumSpace is examples/rowsum's space: 216 raw configurations, 189
// valid (WG * RPW <= 1024).
func rowsumSpace(t testing.TB) *features.Space {
	t.Helper()
	s, err := features.NewSpace([]features.Param{
		{Name: "WG", Values: []int{16, 32, 64, 128, 256, 512}},
		{Name: "RPW", Values: []int{1, 2, 4, 8}},
		{Name: "VW", Values: []int{1, 2, 4}},
		{Name: "UNROLL", Values: []int{1, 2, 4}},
	}, []string{"WG * RPW <= 1024"})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestStratify(t *testing.T) {
	valid := rowsumSpace(t).All()
	if len(valid) != 189 {
		t.Fatalf("rowsum space: %d valid configurations, want 189", len(valid))
	}
	tests := []struct {
		name string
		k    int
		// want is the least number of times each parameter's every value
		// appears among the first k.
		want []int
	}{
		{"none", 0, []int{0, 0, 0, 0}},
		{"one", 1, []int{0, 0, 0, 0}},
		{"each work-group size once", 6, []int{1, 1, 1, 1}},
		{"the tuner's ten", 10, []int{1, 1, 1, 1}},
		{"more than the space", 500, []int{18, 36, 63, 63}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for seed := range uint64(20) {
				order := rand.New(rand.NewPCG(seed, 1)).Perm(len(valid))
				before := slices.Clone(order)
				got := search.Stratify(valid, order, tc.k)
				if !slices.Equal(order, before) {
					t.Fatal("order was modified")
				}
				if s := slices.Sorted(slices.Values(got)); !slices.Equal(s, slices.Sorted(slices.Values(order))) {
					t.Fatalf("seed %d: not a permutation of order", seed)
				}
				k := min(tc.k, len(valid))
				// The rest keep order's order.
				rest := slices.DeleteFunc(slices.Clone(order), func(i int) bool { return slices.Contains(got[:k], i) })
				if !slices.Equal(got[k:], rest) {
					t.Fatalf("seed %d: the configurations after the first %d are not in order's order", seed, k)
				}
				for p, want := range tc.want {
					counts := map[int]int{}
					for _, i := range got[:k] {
						counts[valid[i][p]]++
					}
					least := k
					for _, v := range rowsumSpaceValues(p) {
						least = min(least, counts[v])
					}
					if least < want {
						t.Errorf("seed %d: parameter %d: a value appears %d times in the first %d, want >= %d (counts %v)", seed, p, least, k, want, counts)
					}
				}
			}
		})
	}
}

func rowsumSpaceValues(p int) []int {
	return [][]int{{16, 32, 64, 128, 256, 512}, {1, 2, 4, 8}, {1, 2, 4}, {1, 2, 4}}[p]
}

// Stratify is still a random sample: over many orders every valid
// configuration is among the first ten at a rate within a factor of the
// uniform one's.
func TestStratifyCoversTheSpace(t *testing.T) {
	valid := rowsumSpace(t).All()
	hits := make([]int, len(valid))
	const runs = 4000
	for seed := range uint64(runs) {
		order := rand.New(rand.NewPCG(seed, 2)).Perm(len(valid))
		for _, i := range search.Stratify(valid, order, 10)[:10] {
			hits[i]++
		}
	}
	uniform := runs * 10 / float64(len(valid)) // about 212
	for i, h := range hits {
		if float64(h) < uniform/4 || float64(h) > uniform*4 {
			t.Errorf("configuration %v among the first ten %d times in %d runs; uniform sampling: %.0f", valid[i], h, runs, uniform)
		}
	}
}

func TestRankInOrder(t *testing.T) {
	valid := []features.Config{{1}, {2}, {3}, {4}, {5}}
	score := func(i int) float64 { return []float64{0, 1, 1, 0.5, 1}[i] }
	tests := []struct {
		order []int
		want  []int // values of the configurations, best first
	}{
		{[]int{0, 1, 2, 3, 4}, []int{2, 3, 5, 4, 1}},
		{[]int{4, 2, 1, 0, 3}, []int{5, 3, 2, 4, 1}},
		{[]int{3, 1}, []int{2, 4}},
		{nil, nil},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprint(tc.order), func(t *testing.T) {
			var got []int
			for _, s := range search.RankInOrder(valid, tc.order, score) {
				got = append(got, s.Config[0])
				if want := score(s.Config[0] - 1); s.LogSpeedup != want {
					t.Errorf("config %v scored %g, want %g", s.Config, s.LogSpeedup, want)
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

// Ten configurations of examples/rowsum's space, stratified: the first
// six hold the six work-group sizes, each once, and every value of the
// other parameters.
func ExampleStratify() {
	space, _ := features.NewSpace([]features.Param{
		{Name: "WG", Values: []int{16, 32, 64, 128, 256, 512}},
		{Name: "RPW", Values: []int{1, 2, 4, 8}},
		{Name: "VW", Values: []int{1, 2, 4}},
		{Name: "UNROLL", Values: []int{1, 2, 4}},
	}, []string{"WG * RPW <= 1024"})
	valid := space.All()
	order := rand.New(rand.NewPCG(1, 2)).Perm(len(valid))
	for _, i := range search.Stratify(valid, order, 10)[:10] {
		fmt.Println(space.Format(valid[i]))
	}
	// Output:
	// WG=128,RPW=2,VW=1,UNROLL=1
	// WG=32,RPW=8,VW=4,UNROLL=4
	// WG=64,RPW=1,VW=2,UNROLL=2
	// WG=256,RPW=4,VW=1,UNROLL=1
	// WG=512,RPW=2,VW=2,UNROLL=2
	// WG=16,RPW=1,VW=4,UNROLL=4
	// WG=16,RPW=4,VW=2,UNROLL=4
	// WG=32,RPW=8,VW=1,UNROLL=1
	// WG=128,RPW=2,VW=4,UNROLL=2
	// WG=64,RPW=1,VW=4,UNROLL=4
}
