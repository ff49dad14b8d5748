package train

import (
	"bufio"
	"bytes"
	"math"
	"testing"

	"github.com/dmitryikh/leaves"
)

// TestLearnerConformance runs every learner through the same checks: more
// trees lower the held-out error, the model fits the data, the written
// file loads in leaves with the same trees and features, leaves predicts
// what the trainer does, and fitting twice gives the same file.
func TestLearnerConformance(t *testing.T) {
	tests := []struct {
		name       string
		few, many  Learner
		maxHeldOut float64 // MSE on unseen rows; the noise variance is 0.0025
	}{
		{"gbrt", GBRTOptions{Trees: 2}, GBRTOptions{}, 0.01},
		{"gbrt leaf-wise", GBRTOptions{Trees: 2, MaxLeaves: 12}, GBRTOptions{MaxLeaves: 12}, 0.01},
		{"gbrt sampled", GBRTOptions{Trees: 2, Subsample: 0.7, ColSample: 0.6, Seed: 3},
			GBRTOptions{Subsample: 0.7, ColSample: 0.6, L2: 5, Seed: 3}, 0.01},
		{"gbrt early stop", GBRTOptions{Trees: 2, EarlyStop: 5}, GBRTOptions{Trees: 2000, EarlyStop: 5, LearningRate: 0.3}, 0.01},
		{"forest", ForestOptions{Trees: 1, Seed: 1}, ForestOptions{Trees: 40, Seed: 1}, 0.02},
		{"forest shallow", ForestOptions{Trees: 1, MaxDepth: 3, Seed: 2},
			ForestOptions{Trees: 30, MaxDepth: 3, Subsample: 0.5, ColSample: 1, Seed: 2}, 0.05},
		{"blend", blendLearner{GBRTOptions{Trees: 2}, ForestOptions{Trees: 1, Seed: 1}},
			blendLearner{GBRTOptions{}, ForestOptions{Trees: 40, Seed: 1}}, 0.02},
	}
	const nf = 6
	x, y := synthetic(3000, nf, 11)
	xt, yt := synthetic(1000, nf, 12)
	names := []string{"a", "b", "c", "d", "e", "f"}
	heldOut := func(m Regressor) float64 {
		var s float64
		for i := range yt {
			d := m.Predict(xt[i*nf:(i+1)*nf]) - yt[i]
			s += d * d
		}
		return s / float64(len(yt))
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			few, err := tt.few.Fit(x, nf, y)
			if err != nil {
				t.Fatal(err)
			}
			m, err := tt.many.Fit(x, nf, y)
			if err != nil {
				t.Fatal(err)
			}
			if got, was := heldOut(m), heldOut(few); !(got < was) || got > tt.maxHeldOut {
				t.Errorf("held-out MSE %.5f with more trees, want below %.5f (fewer trees) and %.3g", got, was, tt.maxHeldOut)
			}
			var buf, again bytes.Buffer
			if err := m.WriteLightGBM(&buf, names); err != nil {
				t.Fatal(err)
			}
			m2, err := tt.many.Fit(x, nf, y)
			if err != nil {
				t.Fatal(err)
			}
			if err := m2.WriteLightGBM(&again, names); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(buf.Bytes(), again.Bytes()) {
				t.Error("two fits with the same options and data differ")
			}
			lg, err := leaves.LGEnsembleFromReader(bufio.NewReader(&buf), true)
			if err != nil {
				t.Fatalf("leaves cannot load the model: %v", err)
			}
			if got, want := lg.NEstimators(), m.NumTrees(); got != want {
				t.Errorf("leaves has %d trees, want %d", got, want)
			}
			if got := lg.NFeatures(); got != nf {
				t.Errorf("leaves has %d features, want %d", got, nf)
			}
			row := make([]float64, nf)
			for i := range yt {
				copy(row, xt[i*nf:(i+1)*nf])
				if i%5 == 0 {
					row[0] *= 1.5 // between and beyond the training values
				}
				if got, want := lg.PredictSingle(row, 0), m.Predict(row); math.Abs(got-want) > 1e-9 {
					t.Fatalf("row %d: leaves predicts %v, trainer %v", i, got, want)
				}
			}
		})
	}
}
