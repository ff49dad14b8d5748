package train

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestForestSpread(t *testing.T) {
	// y = x0 everywhere, with heavy noise only where x1 > 0.5: the trees
	// disagree there, so the spread must be larger there.
	rng := rand.New(rand.NewPCG(5, 5))
	const n, nf = 4000, 2
	x, y := make([]float64, 0, n*nf), make([]float64, 0, n)
	for range n {
		a, b := rng.Float64(), rng.Float64()
		v := a
		if b > 0.5 {
			v += rng.NormFloat64()
		}
		x, y = append(x, a, b), append(y, v)
	}
	f, err := FitForest(x, nf, y, ForestOptions{Trees: 50, ColSample: 1, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	var quiet, noisy float64
	for i := range 200 {
		a := float64(i) / 200
		for _, c := range []struct {
			b   float64
			acc *float64
		}{{0.25, &quiet}, {0.75, &noisy}} {
			x := []float64{a, c.b}
			mean, std := f.PredictSpread(x)
			if mean != f.Predict(x) || !(std >= 0) {
				t.Fatalf("PredictSpread(%v) = %v, %v; want Predict's %v and std >= 0", x, mean, std, f.Predict(x))
			}
			*c.acc += std / 200
		}
	}
	if !(noisy > 2*quiet) {
		t.Errorf("mean spread %.4f where noisy, %.4f where quiet; want the first above twice the second", noisy, quiet)
	}
}

func TestForestSingleTreeHoldsLeafMeans(t *testing.T) {
	// With one tree of depth 1 drawn with replacement, every leaf value
	// is the mean of the drawn targets in it, so predictions stay within
	// the range of y: the initial score is inside every tree.
	x := []float64{1, 2, 3, 4, 5, 6, 7, 8}
	y := []float64{10, 10, 10, 10, 20, 20, 20, 20}
	f, err := FitForest(x, 1, y, ForestOptions{Trees: 3, MaxDepth: 1, MinLeaf: 1, ColSample: 1, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []float64{0, 4, 4.5, 5, 100} {
		if got := f.Predict([]float64{v}); got < 10 || got > 20 {
			t.Errorf("Predict(%v) = %v, want within [10, 20]", v, got)
		}
	}
	if got := f.Predict([]float64{1}); got != 10 {
		t.Errorf("Predict(1) = %v, want 10", got)
	}
}

func TestBootstrap(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	dst, count := make([]int32, 1000), make([]int32, 100)
	bootstrap(dst, count, rng)
	if !slices.IsSorted(dst) {
		t.Error("bootstrap sample is not sorted")
	}
	distinct := 0
	for _, c := range count {
		if c > 0 {
			distinct++
		}
	}
	if dst[0] < 0 || dst[len(dst)-1] >= 100 || distinct < 90 {
		t.Errorf("bootstrap of 1000 from 100: range [%d, %d], %d distinct; want within [0, 100) and most rows", dst[0], dst[len(dst)-1], distinct)
	}
}

func TestForestOptionsErrors(t *testing.T) {
	tests := []struct {
		opts  ForestOptions
		field string
	}{
		{ForestOptions{Trees: -1}, "Trees"},
		{ForestOptions{Trees: 100_001}, "Trees"},
		{ForestOptions{MaxDepth: 33}, "MaxDepth"},
		{ForestOptions{MinLeaf: -1}, "MinLeaf"},
		{ForestOptions{Subsample: 1.5}, "Subsample"},
		{ForestOptions{Subsample: -0.5}, "Subsample"},
		{ForestOptions{ColSample: math.NaN()}, "ColSample"},
		{ForestOptions{MaxBins: 1}, "MaxBins"},
	}
	for _, tt := range tests {
		_, err := FitForest([]float64{1, 2}, 1, []float64{1, 2}, tt.opts)
		if err == nil || !strings.Contains(err.Error(), "ForestOptions."+tt.field) {
			t.Errorf("FitForest(%+v): err = %v, want one naming %s", tt.opts, err, tt.field)
		}
	}
	if _, err := FitForest([]float64{1}, 1, []float64{math.NaN()}, ForestOptions{}); err == nil {
		t.Error("FitForest with a NaN target succeeded, want an error")
	}
}

func BenchmarkFitForest(b *testing.B) {
	const n, nf = 20000, 18
	x, y := synthetic(n, nf, 6)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := FitForest(x, nf, y, ForestOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestForestMinLeafScale fits forests on 3,000 rows: a scale at or above
// the rows (and the default, 50,000) leaves the forest as with MinLeaf at
// any size (the same text); a scale of 500 needs 6 times the rows a leaf,
// which gives fewer leaves and is written as min_data_in_leaf.
func TestForestMinLeafScale(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	const n, nf = 3000, 3
	x, y := make([]float64, 0, n*nf), make([]float64, 0, n)
	for range n {
		a, b, c := rng.Float64(), rng.Float64(), float64(rng.IntN(8))
		x, y = append(x, a, b, c), append(y, a*b+c/4+0.1*rng.NormFloat64())
	}
	fit := func(scale int) (text string, leaves int) {
		f, err := FitForest(x, nf, y, ForestOptions{Trees: 5, MaxDepth: 12, MinLeaf: 3, MinLeafScale: scale, Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		if err := f.WriteLightGBM(&b, []string{"a", "b", "c"}); err != nil {
			t.Fatal(err)
		}
		for _, tr := range f.model.Trees {
			leaves += len(tr.SplitFeature) + 1
		}
		return b.String(), leaves
	}
	unscaled, all := fit(-1)
	for _, scale := range []int{0, n, 50_000} {
		if got, _ := fit(scale); got != unscaled {
			t.Errorf("MinLeafScale %d on %d rows: the forest differs from MinLeaf at any size", scale, n)
		}
	}
	text, fewer := fit(500)
	if !(fewer < all) || !strings.Contains(text, "[min_data_in_leaf: 18]") {
		t.Errorf("MinLeafScale 500 on %d rows: %d leaves (unscaled %d), [min_data_in_leaf: 18] written: %v; want fewer leaves, written",
			n, fewer, all, strings.Contains(text, "[min_data_in_leaf: 18]"))
	}
	if !strings.Contains(unscaled, "[min_data_in_leaf: 3]") {
		t.Error("the unscaled forest does not write min_data_in_leaf=3")
	}
}
