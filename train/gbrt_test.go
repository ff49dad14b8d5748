package train

import (
	"bytes"
	"flag"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

func mse(e *Ensemble, x []float64, nf int, y []float64) float64 {
	var s float64
	for i := range y {
		d := e.Predict(x[i*nf:(i+1)*nf]) - y[i]
		s += d * d
	}
	return s / float64(len(y))
}

func TestLossDecreasesWithTrees(t *testing.T) {
	const nf = 6
	x, y := synthetic(3000, nf, 1)
	var prev = math.Inf(1)
	for _, trees := range []int{1, 5, 20, 100} {
		e, err := FitGBRT(x, nf, y, GBRTOptions{Trees: trees})
		if err != nil {
			t.Fatal(err)
		}
		got := mse(e, x, nf, y)
		if !(got < prev) {
			t.Errorf("Trees=%d: training MSE %.5f, want below %.5f (fewer trees)", trees, got, prev)
		}
		prev = got
	}
	// The synthetic noise has variance 0.0025: 100 trees of depth 4 should
	// come close to it, and far below the variance of y.
	var mean, vy float64
	for _, v := range y {
		mean += v
	}
	mean /= float64(len(y))
	for _, v := range y {
		vy += (v - mean) * (v - mean)
	}
	vy /= float64(len(y))
	if prev > vy/10 {
		t.Errorf("training MSE after 100 trees %.5f, want below a tenth of var(y) = %.5f", prev, vy)
	}
}

func TestGeneralizes(t *testing.T) {
	const nf = 6
	x, y := synthetic(4000, nf, 2)
	xt, yt := synthetic(1000, nf, 3)
	e, err := FitGBRT(x, nf, y, GBRTOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := mse(e, xt, nf, yt); got > 0.01 {
		t.Errorf("held-out MSE %.5f, want <= 0.01 (noise variance 0.0025)", got)
	}
}

func TestFirstTreeHoldsMean(t *testing.T) {
	// With a constant target there is nothing to split: one tree whose
	// single leaf is the mean.
	x := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}
	y := make([]float64, 12)
	for i := range y {
		y[i] = 0.75
	}
	e, err := FitGBRT(x, 1, y, GBRTOptions{MinLeaf: 2})
	if err != nil {
		t.Fatal(err)
	}
	if got := e.NumTrees(); got != 1 {
		t.Errorf("NumTrees = %d, want 1", got)
	}
	if got := e.Predict([]float64{100}); math.Abs(got-0.75) > 1e-15 {
		t.Errorf("Predict = %v, want 0.75", got)
	}
}

func TestExactSplit(t *testing.T) {
	// A step at x = 16 among powers of two is found exactly, with the
	// threshold midway between 8 and 16, and values between the training
	// values go to the nearer side.
	var x, y []float64
	for i := 0; i < 100; i++ {
		v := float64(int(1) << (i % 6)) // 1 .. 32
		x = append(x, v)
		if v >= 16 {
			y = append(y, 1)
		} else {
			y = append(y, 0)
		}
	}
	e, err := FitGBRT(x, 1, y, GBRTOptions{Trees: 1, MaxDepth: 1, LearningRate: 1, MinLeaf: 1})
	if err != nil {
		t.Fatal(err)
	}
	tr := e.model.Trees[0]
	if len(tr.Threshold) != 1 || tr.Threshold[0] != 12 {
		t.Fatalf("thresholds = %v, want [12]", tr.Threshold)
	}
	for _, c := range []struct{ x, want float64 }{{8, 0}, {11.9, 0}, {12.1, 1}, {16, 1}, {1000, 1}} {
		if got := e.Predict([]float64{c.x}); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("Predict(%v) = %v, want %v", c.x, got, c.want)
		}
	}
}

func TestDeterministic(t *testing.T) {
	const nf = 6
	x, y := synthetic(2000, nf, 4)
	var out [2]bytes.Buffer
	for i := range out {
		e, err := FitGBRT(x, nf, y, GBRTOptions{Trees: 20})
		if err != nil {
			t.Fatal(err)
		}
		if err := e.WriteLightGBM(&out[i], []string{"a", "b", "c", "d", "e", "f"}); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(out[0].Bytes(), out[1].Bytes()) {
		t.Error("two fits of the same data differ")
	}
}

func TestBinBounds(t *testing.T) {
	tests := []struct {
		name    string
		col     []float64
		maxBins int
		want    []float64
	}{
		{"one value", []float64{3, 3, 3}, 255, nil},
		{"few values", []float64{4, 1, 2, 2, 8}, 255, []float64{1.5, 3, 6}},
		{"quantiles", []float64{1, 2, 3, 4, 5, 6, 7, 8}, 4, []float64{2.5, 4.5, 6.5}},
		{"heavy value", []float64{1, 1, 1, 1, 1, 1, 2, 3, 4}, 3, []float64{1.5, 2.5}},
	}
	for _, tt := range tests {
		got := binBounds(append([]float64(nil), tt.col...), tt.maxBins)
		if len(got) != len(tt.want) {
			t.Errorf("%s: binBounds = %v, want %v", tt.name, got, tt.want)
			continue
		}
		for i := range got {
			if got[i] != tt.want[i] {
				t.Errorf("%s: binBounds = %v, want %v", tt.name, got, tt.want)
				break
			}
		}
	}
	// Many distinct values never give more than maxBins bins.
	col := make([]float64, 10000)
	for i := range col {
		col[i] = float64(i * i)
	}
	if got := binBounds(col, 255); len(got) > 254 {
		t.Errorf("binBounds of 10000 values: %d bounds, want at most 254", len(got))
	}
}

func TestOptionsErrors(t *testing.T) {
	tests := []struct {
		opts  GBRTOptions
		field string
	}{
		{GBRTOptions{Trees: -1}, "Trees"},
		{GBRTOptions{MaxDepth: 17}, "MaxDepth"},
		{GBRTOptions{MinLeaf: -3}, "MinLeaf"},
		{GBRTOptions{LearningRate: 1.5}, "LearningRate"},
		{GBRTOptions{LearningRate: math.NaN()}, "LearningRate"},
		{GBRTOptions{MaxBins: 256}, "MaxBins"},
		{GBRTOptions{MaxBins: 1}, "MaxBins"},
		{GBRTOptions{MaxLeaves: 1}, "MaxLeaves"},
		{GBRTOptions{MaxLeaves: 1 << 17}, "MaxLeaves"},
		{GBRTOptions{Subsample: 1.01}, "Subsample"},
		{GBRTOptions{Subsample: -1}, "Subsample"},
		{GBRTOptions{ColSample: 2}, "ColSample"},
		{GBRTOptions{ColSample: math.NaN()}, "ColSample"},
		{GBRTOptions{L2: -1}, "L2"},
		{GBRTOptions{L2: math.Inf(1)}, "L2"},
		{GBRTOptions{EarlyStop: -5}, "EarlyStop"},
		{GBRTOptions{ValidationFraction: 0.6}, "ValidationFraction"},
		{GBRTOptions{ValidationFraction: -0.1}, "ValidationFraction"},
	}
	for _, tt := range tests {
		_, err := FitGBRT([]float64{1, 2}, 1, []float64{1, 2}, tt.opts)
		if err == nil || !strings.Contains(err.Error(), "GBRTOptions."+tt.field) {
			t.Errorf("FitGBRT(%+v): err = %v, want one naming %s", tt.opts, err, tt.field)
		}
	}
	bad := []struct {
		name string
		x, y []float64
		nf   int
	}{
		{"no rows", nil, nil, 1},
		{"short x", []float64{1}, []float64{1, 2}, 1},
		{"NaN feature", []float64{math.NaN(), 1}, []float64{1, 2}, 1},
		{"Inf target", []float64{1, 2}, []float64{1, math.Inf(1)}, 1},
		{"no features", []float64{}, []float64{1}, 0},
	}
	for _, tt := range bad {
		if _, err := FitGBRT(tt.x, tt.nf, tt.y, GBRTOptions{}); err == nil {
			t.Errorf("%s: FitGBRT succeeded, want an error", tt.name)
		}
	}
}

func TestL2ShrinksLeaves(t *testing.T) {
	// One split of a 0/1 step, learning rate 1: the leaves are the mean
	// 0.5 plus the residual sum over (rows + L2).
	x := []float64{1, 2, 3, 4, 5, 6, 7, 8}
	y := []float64{0, 0, 0, 0, 1, 1, 1, 1}
	tests := []struct {
		l2          float64
		left, right float64
	}{
		{0, 0, 1},
		{4, 0.25, 0.75}, // 0.5 + (-2)/(4+4) and 0.5 + 2/(4+4)
	}
	for _, tt := range tests {
		e, err := FitGBRT(x, 1, y, GBRTOptions{Trees: 1, MaxDepth: 1, MinLeaf: 1, LearningRate: 1, L2: tt.l2})
		if err != nil {
			t.Fatal(err)
		}
		if got := e.Predict([]float64{1}); math.Abs(got-tt.left) > 1e-15 {
			t.Errorf("L2=%v: Predict(1) = %v, want %v", tt.l2, got, tt.left)
		}
		if got := e.Predict([]float64{8}); math.Abs(got-tt.right) > 1e-15 {
			t.Errorf("L2=%v: Predict(8) = %v, want %v", tt.l2, got, tt.right)
		}
	}
}

func TestEarlyStopStops(t *testing.T) {
	// Pure noise: nothing generalizes, so the validation error stops
	// falling at once and only a few of the 1000 trees are kept.
	rng := rand.New(rand.NewPCG(8, 8))
	const n, nf = 2000, 3
	x, y := make([]float64, n*nf), make([]float64, n)
	for i := range x {
		x[i] = rng.Float64()
	}
	for i := range y {
		y[i] = rng.NormFloat64()
	}
	e, err := FitGBRT(x, nf, y, GBRTOptions{Trees: 1000, EarlyStop: 10, LearningRate: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	if got := e.NumTrees(); got < 1 || got > 50 {
		t.Errorf("noise: %d trees kept, want 1 to 50 of 1000", got)
	}
	// A learnable function keeps boosting well past that.
	xs, ys := synthetic(2000, 6, 9)
	e, err = FitGBRT(xs, 6, ys, GBRTOptions{Trees: 1000, EarlyStop: 10})
	if err != nil {
		t.Fatal(err)
	}
	if got := e.NumTrees(); got < 50 || got >= 1000 {
		t.Errorf("smooth function: %d trees kept, want 50 to 999", got)
	}
}

func TestMaxLeaves(t *testing.T) {
	const nf = 6
	x, y := synthetic(3000, nf, 10)
	for _, maxLeaves := range []int{2, 7, 31} {
		e, err := FitGBRT(x, nf, y, GBRTOptions{Trees: 10, MaxLeaves: maxLeaves})
		if err != nil {
			t.Fatal(err)
		}
		for i, tr := range e.model.Trees {
			if got := len(tr.LeafValue); got != maxLeaves {
				t.Errorf("MaxLeaves=%d: tree %d has %d leaves, want exactly %d on 3000 rows", maxLeaves, i, got, maxLeaves)
			}
		}
	}
}

func TestSampledFitsDependOnSeed(t *testing.T) {
	const nf = 6
	x, y := synthetic(1000, nf, 13)
	fit := func(seed uint64) float64 {
		e, err := FitGBRT(x, nf, y, GBRTOptions{Trees: 10, Subsample: 0.5, ColSample: 0.5, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		return e.Predict(x[:nf])
	}
	if a, b := fit(1), fit(1); a != b {
		t.Errorf("same seed: predictions %v and %v, want equal", a, b)
	}
	if a, b := fit(1), fit(2); a == b {
		t.Errorf("seeds 1 and 2: both predict %v, want the samples to differ", a)
	}
}

func TestWriteLightGBMGolden(t *testing.T) {
	// A tiny fixed data set, so that the golden file stays readable.
	var x, y []float64
	for i := 0; i < 40; i++ {
		a, b := float64(i%5), float64(int(1)<<(i%4))
		x = append(x, a, b, 7)
		y = append(y, 0.5*a-0.25*b+0.125*float64(i%3))
	}
	e, err := FitGBRT(x, 3, y, GBRTOptions{Trees: 3, MaxDepth: 2, MinLeaf: 4, LearningRate: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := e.WriteLightGBM(&buf, []string{"task.width", "param.wg", "platform.compute_units"}); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "small.lightgbm.txt")
	if *update {
		if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got := buf.String(); got != string(want) {
		t.Errorf("WriteLightGBM output differs from %s (go test -update rewrites it):\ngot:\n%s\nwant:\n%s", golden, got, want)
	}
	// tree_sizes must be the exact byte size of every tree block.
	text := buf.String()
	sizes := strings.Fields(strings.TrimPrefix(lineWith(text, "tree_sizes="), "tree_sizes="))
	rest := text[strings.Index(text, "Tree=0"):]
	for i, s := range sizes {
		end := strings.Index(rest, "Tree="+strconv.Itoa(i+1)+"\n")
		if end < 0 {
			end = strings.Index(rest, "end of trees")
		}
		if strconv.Itoa(end) != s {
			t.Errorf("tree %d: tree_sizes says %s bytes, block has %d", i, s, end)
		}
		rest = rest[end:]
	}
}

func lineWith(text, prefix string) string {
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	return ""
}

func TestWriteLightGBMErrors(t *testing.T) {
	x, y := synthetic(100, 3, 5)
	e, err := FitGBRT(x, 3, y, GBRTOptions{Trees: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, names := range [][]string{{"a", "b"}, {"a", "b c", "d"}, {"a", "b=c", "d"}, {"a", "", "d"}} {
		if err := e.WriteLightGBM(&bytes.Buffer{}, names); err == nil {
			t.Errorf("WriteLightGBM(%q) succeeded, want an error", names)
		}
	}
}

func BenchmarkFitGBRT(b *testing.B) {
	const n, nf = 20000, 18
	x, y := synthetic(n, nf, 6)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := FitGBRT(x, nf, y, GBRTOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPredict(b *testing.B) {
	const n, nf = 20000, 18
	x, y := synthetic(n, nf, 6)
	e, err := FitGBRT(x, nf, y, GBRTOptions{})
	if err != nil {
		b.Fatal(err)
	}
	row := x[:nf]
	b.ReportAllocs()
	for b.Loop() {
		e.Predict(row)
	}
}
