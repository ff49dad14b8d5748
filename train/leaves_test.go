package train

import (
	"bufio"
	"bytes"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/dmitryikh/leaves"
)

// synthetic returns n rows of a made-up smooth function of a few integer
// features (not measured data), with nf features of which the last ones are
// noise the trees should learn to ignore.
func synthetic(n, nf int, seed uint64) (x, y []float64) {
	rng := rand.New(rand.NewPCG(seed, 1))
	x = make([]float64, n*nf)
	y = make([]float64, n)
	for i := 0; i < n; i++ {
		row := x[i*nf : (i+1)*nf]
		for f := range row {
			switch f % 3 {
			case 0:
				row[f] = float64(int(1) << rng.IntN(8)) // a power of two, like a work-group size
			case 1:
				row[f] = float64(1 + rng.IntN(4))
			default:
				row[f] = rng.Float64() * 1000
			}
		}
		y[i] = math.Log(row[0])*0.3 - 0.1*(row[1]-2.5)*(row[1]-2.5) + 0.0005*row[2%nf] + 0.05*rng.NormFloat64()
	}
	return x, y
}

func TestLeavesLoadsAndAgrees(t *testing.T) {
	tests := []struct {
		name string
		opts GBRTOptions
		n    int
	}{
		{"defaults", GBRTOptions{}, 2000},
		{"deep", GBRTOptions{Trees: 30, MaxDepth: 7, MinLeaf: 3, MaxBins: 16}, 3000},
		{"stumps", GBRTOptions{Trees: 50, MaxDepth: 1, LearningRate: 0.5}, 500},
		{"one leaf", GBRTOptions{Trees: 5, MinLeaf: 100}, 150},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			const nf = 6
			x, y := synthetic(tt.n, nf, 7)
			e, err := FitGBRT(x, nf, y, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			names := []string{"a", "b", "c", "d", "e", "f"}
			var buf bytes.Buffer
			if err := e.WriteLightGBM(&buf, names); err != nil {
				t.Fatal(err)
			}
			lg, err := leaves.LGEnsembleFromReader(bufio.NewReader(&buf), true)
			if err != nil {
				t.Fatalf("leaves cannot load the model: %v", err)
			}
			if got, want := lg.NEstimators(), e.NumTrees(); got != want {
				t.Errorf("leaves has %d trees, want %d", got, want)
			}
			if got := lg.NFeatures(); got != nf {
				t.Errorf("leaves has %d features, want %d", got, nf)
			}
			// Rows the model never saw, including values between and
			// outside the training values.
			xt, _ := synthetic(1000, nf, 99)
			for i := 0; i < 1000; i++ {
				row := xt[i*nf : (i+1)*nf]
				if i%7 == 0 {
					row[0] += 3
				}
				got, want := lg.PredictSingle(row, 0), e.Predict(row)
				if math.Abs(got-want) > 1e-9 {
					t.Fatalf("row %d: leaves predicts %v, Predict %v", i, got, want)
				}
			}
		})
	}
}
