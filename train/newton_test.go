package train

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"unsafe"
)

// unitNewton is squared error given as a newtonObjective, every hessian
// 1: the grower's Newton path must then grow the trees its squared-error
// path grows.
type unitNewton struct{ scale float64 }

func (unitNewton) check(int) error          { return nil }
func (unitNewton) init(y []float64) float64 { return mean(y) }
func (o unitNewton) negGradient(g, y, pred []float64, base float64) {
	o.gradHess(g, make([]float64, len(g)), y, pred, base)
}
func (o unitNewton) gradHess(g, h, y, pred []float64, base float64) {
	for i := range g {
		g[i] = o.scale * (y[i] - pred[i] - base)
		h[i] = o.scale
	}
}

// TestNewtonUnitHessians checks the per-row hessian path of the grower:
// squared error with every hessian 1, or every gradient and hessian scaled
// by the same factor (a Newton step does not change), writes the model
// that the squared-error path writes, depth-first and leaf-wise, with and
// without subsampling and L2.
func TestNewtonUnitHessians(t *testing.T) {
	d, err := Load("../testdata/data", "conv2d")
	if err != nil {
		t.Fatal(err)
	}
	x, _ := denseRows(d, nil)
	nf := len(d.Features)
	tests := []struct {
		name  string
		opts  GBRTOptions
		scale float64
	}{
		{"depth-first", GBRTOptions{Trees: 12, MaxDepth: 4, MinLeaf: 5}, 1},
		{"leaf-wise, L2, sampled", GBRTOptions{Trees: 10, MaxLeaves: 7, MinLeaf: 3, L2: 1, Subsample: 0.7, ColSample: 0.8, Seed: 5}, 1},
		{"scaled by 4", GBRTOptions{Trees: 8, MaxDepth: 3, MinLeaf: 5}, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := writeText(t, tt.opts, x, nf, d.Y, d.Features)
			o := tt.opts
			o.objective = unitNewton{tt.scale}
			if tt.opts.L2 != 0 {
				o.L2 = tt.opts.L2 * tt.scale // the ridge scales with the hessians
			}
			got := writeText(t, o, x, nf, d.Y, d.Features)
			if tt.scale != 1 {
				// The gains scale with the hessians; the trees do not.
				got, want = withoutGains(got), withoutGains(want)
			}
			if got != want {
				t.Errorf("the Newton path with unit hessians wrote another model")
			}
		})
	}
}

// withoutGains drops the split_gain lines of a model's text, and the
// tree sizes that count their characters.
func withoutGains(text string) string {
	var b strings.Builder
	for line := range strings.Lines(text) {
		if !strings.HasPrefix(line, "split_gain=") && !strings.HasPrefix(line, "tree_sizes=") {
			b.WriteString(line)
		}
	}
	return b.String()
}

func writeText(t *testing.T, o GBRTOptions, x []float64, nf int, y []float64, names []string) string {
	t.Helper()
	e, err := FitGBRT(x, nf, y, o)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := e.WriteLightGBM(&buf, names); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// TestNewtonGuards checks the guards of a Newton step: a leaf's step is
// at most maxDelta in size, and no split leaves less than minHess of
// hessian on a side.
func TestNewtonGuards(t *testing.T) {
	b := &builder{g: growOptions{maxDelta: 0.5}}
	tests := []struct {
		name       string
		s, h, want float64
	}{
		{"inside the bound", 0.3, 1, 0.15},
		{"clamped up", -4, 2, -0.25},
		{"clamped down", 9, 1, 0.25},
		{"no hessian", 1, 0, 0},
	}
	for _, tt := range tests {
		if got := b.newtonValue(0.5, tt.s, tt.h); got != tt.want {
			t.Errorf("%s: newtonValue(0.5, %g, %g) = %g, want %g", tt.name, tt.s, tt.h, got, tt.want)
		}
	}
	// Pure ranking leaves rows outside every pushed pair with no hessian:
	// no leaf of the model may take a step larger than maxDelta times the
	// learning rate, and every prediction stays finite.
	const perGroup = 64
	x, y, _ := groupedSynthetic(6, perGroup, 2)
	r, err := RankOptions{GBRT: GBRTOptions{Trees: 20, MaxDepth: 6, MinLeaf: 1, LearningRate: 0.5}, Top: 3, MaxDeltaStep: 2,
		GroupColumns: []int{0}}.Fit(x, 3, y)
	if err != nil {
		t.Fatal(err)
	}
	e := r.(*Ensemble)
	for k, tr := range e.model.Trees[1:] {
		for _, v := range tr.LeafValue {
			if math.Abs(v) > 0.5*2+1e-12 || math.IsNaN(v) {
				t.Fatalf("tree %d: leaf value %g beyond the bound %g", k+1, v, 0.5*2)
			}
		}
	}
}

// TestHistBinSize keeps a histogram bin at 16 bytes: the squared-error
// path's histograms, which most of a fit's time goes to, did not grow
// when hessians came.
func TestHistBinSize(t *testing.T) {
	if got := unsafe.Sizeof(histBin{}); got != 16 {
		t.Errorf("histBin takes %d bytes, want 16", got)
	}
}
