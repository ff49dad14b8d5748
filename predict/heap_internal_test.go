package predict

import (
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"testing"

	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/features"
)

// TestHeapEqualsUnified checks that the heap-ordered batch scorer returns,
// bit for bit, what unified.add4 returns, on every model of the repository's
// conv2d bundles: on every configuration of the space for shapes of several
// sizes, and on vectors placed around the model's own thresholds so that
// every branch goes both ways (NaN included).
func TestHeapEqualsUnified(t *testing.T) {
	for _, path := range []string{"../testdata/conv2d-pocl.augur", "../testdata/conv2d-h200.augur", "../testdata/conv2d-h100.augur", "../testdata/conv2d-fleet.augur"} {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		b, err := features.ReadBundle(data)
		if err != nil {
			t.Fatal(err)
		}
		space, err := b.Space()
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range b.Models {
			t.Run(path+"/"+e.Name, func(t *testing.T) {
				m, err := Load(b, e.Name, datasets.Deriver(b.Kernel))
				if err != nil {
					t.Fatal(err)
				}
				if !m.heapOK {
					t.Fatalf("model of %d nodes not laid out in heap order", len(m.whole.nodes))
				}
				w := m.enc.Len()
				var xs []float64
				for _, task := range []features.Task{{640, 480, 3, 3}, {4096, 16, 11, 11}, {1920, 1080, 5, 5}, {100, 3000, 7, 7}} {
					for _, c := range space.All() {
						x := make([]float64, w)
						m.enc.Encode(x, task, c, m.platform)
						xs = append(xs, x...)
					}
				}
				xs = append(xs, nearThresholds(m.flat, w, 4000)...)
				compareHeap(t, m, xs, w)
			})
		}
	}
}

// nearThresholds returns n vectors of width w whose every value lies at,
// just around or far from one of the model's thresholds of its feature,
// or is NaN.
func nearThresholds(f *flatModel, w, n int) []float64 {
	cuts := make([][]float64, w)
	for _, t := range f.trees {
		for _, nd := range t.nodes {
			cuts[nd.feature] = append(cuts[nd.feature], nd.threshold)
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	xs := make([]float64, n*w)
	for i := range xs {
		c := cuts[i%w]
		if len(c) == 0 {
			continue
		}
		th := c[rng.IntN(len(c))]
		xs[i] = []float64{th, math.Nextafter(th, math.Inf(-1)), math.Nextafter(th, math.Inf(1)), th - 1, th + 1, math.NaN(), math.Inf(1), math.Inf(-1)}[rng.IntN(8)]
	}
	return xs
}

func compareHeap(t *testing.T, m *Model, xs []float64, w int) {
	t.Helper()
	n := len(xs) / w
	for n%4 != 0 {
		xs = append(xs, xs[len(xs)-w:]...)
		n++
	}
	got := make([]float64, n)
	m.wholeH.addBatch(xs, w, n, got)
	var four [4]float64
	u := m.whole.unify()
	for k := 0; k < n; k += 4 {
		u.add4(xs[k*w:(k+4)*w], w, &four)
		for j := range 4 {
			if math.Float64bits(got[k+j]) != math.Float64bits(four[j]) {
				t.Fatalf("vector %d: heap %v, unified %v", k+j, got[k+j], four[j])
			}
		}
	}
	// Above a floor, the scores that reach it are the same; the rest are
	// -Inf or the same.
	sorted := slices.Clone(got)
	slices.Sort(sorted)
	for _, q := range []int{0, 1, n / 2, n - 10, n - 1} {
		floor := sorted[max(q, 0)]
		above := make([]float64, n)
		scratch := slices.Clone(xs)
		m.wholeH.addBatchAbove(scratch, w, n, above, floor)
		dropped := 0
		for j := range above {
			if math.IsInf(above[j], -1) {
				dropped++
			}
			same := math.Float64bits(above[j]) == math.Float64bits(got[j])
			if got[j] >= floor && !same || got[j] < floor && !same && !math.IsInf(above[j], -1) {
				t.Fatalf("floor %v, vector %d: %v, addBatch %v", floor, j, above[j], got[j])
			}
		}
		if q == n-1 && dropped == 0 {
			t.Errorf("floor at the best score dropped none of %d vectors", n)
		}
	}
	// Odd lengths score the same.
	for _, odd := range []int{1, 2, 3, 5, 33, 37} {
		if odd > n-4 {
			continue
		}
		part := make([]float64, odd)
		m.wholeH.addBatch(xs, w, odd, part)
		for j := range part {
			if math.Float64bits(part[j]) != math.Float64bits(got[j]) {
				t.Fatalf("batch of %d, vector %d: %v, in a batch of %d %v", odd, j, part[j], n, got[j])
			}
		}
	}
}

// TestScoreBatchWithoutHeap checks the path of a model too sparse for the
// heap layout (heapFrom refuses it): ScoreBatch then walks the unified
// layout, with the same scores.
func TestScoreBatchWithoutHeap(t *testing.T) {
	data, err := os.ReadFile("../testdata/conv2d-h200.augur")
	if err != nil {
		t.Fatal(err)
	}
	b, err := features.ReadBundle(data)
	if err != nil {
		t.Fatal(err)
	}
	m, err := Load(b, "", datasets.Deriver(b.Kernel))
	if err != nil {
		t.Fatal(err)
	}
	sparse := *m
	sparse.heapOK, sparse.wholeH, sparse.wholeU = false, heapModel{}, m.whole.unify()
	known := b.Models[0].Known
	for _, task := range []features.Task{{640, 480, 3, 3}, {4096, 16, 11, 11}} {
		want, wantOK := make([]float64, len(known)), make([]bool, len(known))
		m.Scorer(task).ScoreBatch(known, want, wantOK)
		got, gotOK := make([]float64, len(known)), make([]bool, len(known))
		sparse.Scorer(task).ScoreBatch(known, got, gotOK)
		for i := range known {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) || gotOK[i] != wantOK[i] {
				t.Fatalf("%v %v: unified %v %v, heap %v %v", task, known[i], got[i], gotOK[i], want[i], wantOK[i])
			}
		}
	}
}
