package train

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/augur-tuning/augur/predict/lightgbm"
	"github.com/dmitryikh/leaves"
)

// TestFitsGolden fits every learner with fixed seeds on a small real
// dataset (testdata/data, conv2d on PoCL) and compares the LightGBM text of
// each model with testdata/fits/<name>.lightgbm.txt (go test -update
// rewrites them): a change of how trees are grown, walked or written that
// changes a fitted model shows here, byte for byte.
func TestFitsGolden(t *testing.T) {
	d, err := Load("../testdata/data", "conv2d")
	if err != nil {
		t.Fatal(err)
	}
	nf := len(d.Features)
	// Classes for the class forest: the quartile of every row's target, so
	// that the classifier is fitted to a real feature matrix.
	classes := make([]int, d.Len())
	lo, hi := d.Y[0], d.Y[0]
	for _, v := range d.Y {
		lo, hi = min(lo, v), max(hi, v)
	}
	for i, v := range d.Y {
		classes[i] = min(int(4*(v-lo)/(hi-lo)), 3)
	}
	gbrt := GBRTOptions{Trees: 12, MaxDepth: 3, MinLeaf: 5}
	forest := ForestOptions{Trees: 6, MaxDepth: 6, ColSample: 0.5, Seed: 3}
	tests := []struct {
		name string
		fit  func() (writeFunc, error)
	}{
		{"gbrt", regressorFit(gbrt, d)},
		{"gbrt-leafwise", regressorFit(GBRTOptions{Trees: 10, MaxLeaves: 7, MinLeaf: 3, L2: 1, LearningRate: 0.3,
			Subsample: 0.7, ColSample: 0.8, EarlyStop: 4, Seed: 5}, d)},
		{"gbrt-one-leaf", regressorFit(GBRTOptions{Trees: 3, MinLeaf: 1 << 20}, d)},
		{"forest", regressorFit(forest, d)},
		{"forest-bagged", regressorFit(ForestOptions{Trees: 4, MaxDepth: 4, Subsample: 0.6, MaxBins: 16, Seed: 9}, d)},
		{"blend", regressorFit(blendLearner{gbrt, forest}, d)},
		{"classforest", func() (writeFunc, error) {
			x, _ := denseRows(d, nil)
			f, err := ClassForestOptions{Trees: 4, MaxDepth: 5, ColSample: 0.5, Seed: 2}.FitClasses(x, nf, classes, 4)
			if err != nil {
				return nil, err
			}
			return f.WriteLightGBM, nil
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			write, err := tt.fit()
			if err != nil {
				t.Fatal(err)
			}
			var buf strings.Builder
			if err := write(&buf, d.Features); err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", "fits", tt.name+".lightgbm.txt")
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, []byte(buf.String()), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if got := buf.String(); got != string(want) {
				t.Errorf("the fitted model's text differs from %s (go test -update rewrites it)", golden)
			}
		})
	}
}

// writeFunc writes a fitted model in LightGBM's text format.
type writeFunc func(w io.Writer, featureNames []string) error

// regressorFit fits l to all of d.
func regressorFit(l Learner, d *Data) func() (writeFunc, error) {
	return func() (writeFunc, error) {
		x, y := denseRows(d, nil)
		r, err := l.Fit(x, len(d.Features), y)
		if err != nil {
			return nil, err
		}
		return r.WriteLightGBM, nil
	}
}

// TestBlendLeavesPartsAlone checks that writing a blend, which scales the
// leaves of its two models into one, changes neither model: the second
// write and the predictions equal the first.
func TestBlendLeavesPartsAlone(t *testing.T) {
	const nf = 4
	x, y := synthetic(500, nf, 3)
	m, err := blendLearner{GBRTOptions{Trees: 5}, ForestOptions{Trees: 3, Seed: 1}}.Fit(x, nf, y)
	if err != nil {
		t.Fatal(err)
	}
	names := []string{"a", "b", "c", "d"}
	before := m.Predict(x[:nf])
	var first, second strings.Builder
	if err := m.WriteLightGBM(&first, names); err != nil {
		t.Fatal(err)
	}
	if err := m.WriteLightGBM(&second, names); err != nil {
		t.Fatal(err)
	}
	if first.String() != second.String() {
		t.Error("a blend's second write differs from its first")
	}
	if after := m.Predict(x[:nf]); after != before {
		t.Errorf("Predict = %v after writing, %v before", after, before)
	}
}

// TestTargetRangeRoundTrips checks that every regression model records the
// range of the targets it was fitted to (lightgbm.ParamTargetRange) in
// the text it writes, that leaves still loads that text, and that the
// range reads back exactly; a classifier records none.
func TestTargetRangeRoundTrips(t *testing.T) {
	const nf = 4
	x, y := synthetic(600, nf, 21)
	lo, hi := slices.Min(y), slices.Max(y)
	names := []string{"a", "b", "c", "d"}
	tests := []struct {
		name string
		l    Learner
	}{
		{"gbrt", GBRTOptions{Trees: 5}},
		{"gbrt early stop", GBRTOptions{Trees: 50, EarlyStop: 2, Seed: 4}},
		{"forest", ForestOptions{Trees: 3, Seed: 1}},
		{"blend", blendLearner{GBRTOptions{Trees: 5}, ForestOptions{Trees: 3, Seed: 1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := tt.l.Fit(x, nf, y)
			if err != nil {
				t.Fatal(err)
			}
			var buf strings.Builder
			if err := r.WriteLightGBM(&buf, names); err != nil {
				t.Fatal(err)
			}
			if _, err := leaves.LGEnsembleFromReader(bufio.NewReader(strings.NewReader(buf.String())), true); err != nil {
				t.Fatalf("leaves cannot load the model: %v", err)
			}
			m, err := lightgbm.Parse(buf.String())
			if err != nil {
				t.Fatal(err)
			}
			gotLo, gotHi, ok := m.TargetRange()
			if !ok || gotLo != lo || gotHi != hi {
				t.Errorf("TargetRange() = %v, %v, %v; want %v, %v, true", gotLo, gotHi, ok, lo, hi)
			}
		})
	}
	t.Run("classforest", func(t *testing.T) {
		x, c := classSynthetic(100, 2, 4)
		f, err := ClassForestOptions{Trees: 2, Seed: 1}.FitClasses(x, 2, c, 3)
		if err != nil {
			t.Fatal(err)
		}
		var buf strings.Builder
		if err := f.WriteLightGBM(&buf, []string{"a", "b"}); err != nil {
			t.Fatal(err)
		}
		m, err := lightgbm.Parse(buf.String())
		if err != nil {
			t.Fatal(err)
		}
		if _, _, ok := m.TargetRange(); ok {
			t.Error("a classifier records a target range")
		}
	})
}
