package train

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/augur-tuning/augur/datasets"
)

// TestBuildHistParallel: histograms that several goroutines build, each
// over its own features, are bit for bit the serial ones, with and without
// hessians, on any subset of rows.
func TestBuildHistParallel(t *testing.T) {
	k, err := datasets.Lookup("conv2d")
	if err != nil {
		t.Fatal(err)
	}
	d, err := LoadWith("../testdata/h200", "conv2d", LoadOptions{Derived: k.Derived})
	if err != nil {
		t.Fatal(err)
	}
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
