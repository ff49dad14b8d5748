package train

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/augur-tuning/augur/datasets"
)

// TestBuildHistParallel: histograms that several goroutines build, each
// over its own features, are bit for bit the serial ones, with and without
// hessians, on any subset of rows.
func TestBuildHistParallel(t *testing.T) {
	d := loadH200(t)
	b := newBuilder(d.fitSet(nil, &fitBuffers{}), 255, growOptions{})
	if b.nFeat < 2 {
		t.Fatalf("%d binned features: nothing to share", b.nFeat)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range b.grad {
		b.grad[i] = rng.NormFloat64()
	}
	var rows []int32
	for i := range b.n {
		if rng.IntN(3) > 0 {
			rows = append(rows, int32(i))
		}
	}
	hess := make([]float64, b.n)
	for i := range hess {
		hess[i] = rng.Float64()
	}
	for _, tt := range []struct {
		name string
		hess []float64
	}{{"squared error", nil}, {"hessians", hess}} {
		t.Run(tt.name, func(t *testing.T) {
			b.hess = tt.hess
			serial := make([]histBin, b.offset[b.nFeat])
			b.parallelRows = len(rows) + 1
			b.buildHist(serial, rows)
			parallel := make([]histBin, len(serial))
			b.parallelRows = 1
			b.buildHist(parallel, rows)
			if !slices.Equal(serial, parallel) {
				t.Error("the parallel histograms differ from the serial ones")
			}
			if serial[0] == (histBin{}) && serial[len(serial)-1] == (histBin{}) {
				t.Error("empty histograms: the test compares nothing")
			}
		})
	}
}

// sparseBuilder returns a builder of n rows of nf features with random
// bins (bins a feature) and residuals, and one row in 16 of them drawn
// at random, in order: the rows of a child leaf deep in a large fit, whose
// bins and residuals no cache holds.
func sparseBuilder(n, nf, bins int) (*builder, []int32) {
	rng := rand.New(rand.NewPCG(5, 6))
	b := &builder{n: n, nFeat: nf, bins: make([]uint8, n*nf), offset: make([]int, nf+1),
		grad: make([]float64, n), parallelRows: math.MaxInt}
	b.stride = nf
	for f := range nf {
		b.offset[f+1] = b.offset[f] + bins
		b.plain, b.plainOff = append(b.plain, f), append(b.plainOff, b.offset[f])
		b.at, b.group = append(b.at, f), append(b.group, -1)
	}
	for i := range b.bins {
		b.bins[i] = uint8(rng.IntN(bins))
	}
	var rows []int32
	for i := range n {
		b.grad[i] = rng.NormFloat64()
		if rng.IntN(16) == 0 {
			rows = append(rows, int32(i))
		}
	}
	return b, rows
}

// BenchmarkBuildHistSparse measures one histogram pass of one goroutine
// over one row in 16 of 2M rows of 51 features, drawn at random: the pass over
// a child's rows in a fit of millions of rows, where the rows' bins and
// residuals come from memory, not cache.
func BenchmarkBuildHistSparse(b *testing.B) {
	bl, rows := sparseBuilder(2_000_000, 51, 16)
	h := make([]histBin, bl.offset[bl.nFeat])
	b.ReportAllocs()
	for b.Loop() {
		bl.buildHist(h, rows)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(rows)), "ns/row")
}

// BenchmarkPartitionSparse measures the partition of the same rows on one
// goroutine, by a feature in the middle of the row.
func BenchmarkPartitionSparse(b *testing.B) {
	bl, rows := sparseBuilder(2_000_000, 51, 16)
	bl.rows, bl.scratch = make([]int32, len(rows)), make([]int32, len(rows))
	b.ReportAllocs()
	for b.Loop() {
		copy(bl.rows, rows)
		bl.partition(0, len(rows), split{feature: 25, bin: 7})
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(rows)), "ns/row")
}

// loadH200 loads testdata/h200's conv2d rows with the kernel's derived
// features, as augur train does.
func loadH200(tb testing.TB) *Data {
	tb.Helper()
	k, err := datasets.Lookup("conv2d")
	if err != nil {
		tb.Fatal(err)
	}
	d, err := LoadWith("../testdata/h200", "conv2d", LoadOptions{Derived: k.Derived})
	if err != nil {
		tb.Fatal(err)
	}
	return d
}
