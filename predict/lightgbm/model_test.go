package lightgbm

import (
	"bufio"
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/dmitryikh/leaves"
)

// randomTree grows a tree of n leaves as LightGBM does: split k turns a
// leaf into internal node k, whose left child keeps the leaf's number and
// whose right child is a new leaf. Thresholds come from a small grid, so
// that vectors drawn from the same grid land exactly on them.
func randomTree(rng *rand.Rand, n, nFeatures int) Tree {
	t := Tree{NumLeaves: n, LeafValue: []float64{rng.NormFloat64()}, Shrinkage: 0.1}
	parent := []int32{-1} // per leaf: the node pointing at it, -1 for the root
	isLeft := []bool{false}
	for k := int32(0); k < int32(n-1); k++ {
		l := int32(rng.IntN(len(t.LeafValue)))
		if p := parent[l]; p >= 0 {
			if isLeft[l] {
				t.LeftChild[p] = k
			} else {
				t.RightChild[p] = k
			}
		}
		nl := int32(len(t.LeafValue))
		t.SplitFeature = append(t.SplitFeature, int32(rng.IntN(nFeatures)))
		t.SplitGain = append(t.SplitGain, rng.Float64())
		t.Threshold = append(t.Threshold, float64(rng.IntN(8))+0.5*float64(rng.IntN(2)))
		t.DecisionType = append(t.DecisionType, int8(2*rng.IntN(2)))
		t.LeftChild = append(t.LeftChild, ^l)
		t.RightChild = append(t.RightChild, ^nl)
		t.LeafValue = append(t.LeafValue, rng.NormFloat64())
		parent[l], isLeft[l] = k, true
		parent = append(parent, k)
		isLeft = append(isLeft, false)
	}
	return t
}

// randomModel returns a valid model of trees of up to maxLeaves leaves.
func randomModel(rng *rand.Rand, trees, maxLeaves, nFeatures int, average bool) *Model {
	m := &Model{Version: "v3", NumClass: 1, NumTreePerIteration: 1, MaxFeatureIdx: nFeatures - 1,
		Objective: "regression", Average: average}
	for f := range nFeatures {
		m.FeatureNames = append(m.FeatureNames, "f"+string(rune('a'+f%26))+strings.Repeat("x", f/26))
		m.FeatureInfos = append(m.FeatureInfos, "[0:8]")
	}
	for range trees {
		m.Trees = append(m.Trees, randomTree(rng, 1+rng.IntN(maxLeaves), nFeatures))
	}
	return m
}

// models returns the models the round-trip and leaves tests run on.
func models(t *testing.T) map[string]*Model {
	rng := rand.New(rand.NewPCG(1, 2))
	ms := map[string]*Model{
		"gbrt":        randomModel(rng, 50, 32, 6, false),
		"forest":      randomModel(rng, 30, 64, 4, true),
		"stumps":      randomModel(rng, 100, 2, 3, false),
		"one leaf":    randomModel(rng, 3, 1, 2, false),
		"one feature": randomModel(rng, 10, 8, 1, false),
	}
	for i, text := range append(bundleModels(t), small) {
		m, err := Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		ms["text "+string(rune('0'+i))] = m
	}
	return ms
}

func TestRoundTrip(t *testing.T) {
	ms := models(t)
	// Optional parts that augur's trainer leaves out.
	mc := randomModel(rand.New(rand.NewPCG(3, 4)), 12, 8, 5, false)
	mc.NumClass, mc.NumTreePerIteration, mc.Objective = 4, 4, "multiclass num_class:4"
	mc.MonotoneConstraints = []int8{0, 1, -1, 0, 0}
	mc.Params = []Param{{"objective", "multiclass"}, {"interaction_constraints", ""}}
	for i := range mc.Trees {
		tr := &mc.Trees[i]
		tr.LeafWeight = make([]float64, tr.NumLeaves)
		tr.InternalWeight = make([]float64, tr.NumLeaves-1)
	}
	ms["multiclass"] = mc
	for name, m := range ms {
		t.Run(name, func(t *testing.T) {
			var text bytes.Buffer
			if err := m.Write(&text); err != nil {
				t.Fatal(err)
			}
			got, err := Read(bytes.NewReader(text.Bytes()))
			if err != nil {
				t.Fatalf("Read(Write(m)): %v", err)
			}
			if !reflect.DeepEqual(got, m) {
				t.Errorf("Read(Write(m)) differs from m:\n%s", text.String())
			}
			var again bytes.Buffer
			if err := got.Write(&again); err != nil {
				t.Fatal(err)
			}
			if again.String() != text.String() {
				t.Errorf("Write(Read(Write(m))) differs from Write(m)")
			}
		})
	}
}

// TestWriteKeepsText checks that the text train wrote reads and writes
// back byte for byte.
func TestWriteKeepsText(t *testing.T) {
	for i, text := range append(bundleModels(t), small) {
		m, err := Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		if err := m.Write(&b); err != nil {
			t.Fatal(err)
		}
		if b.String() != text {
			t.Errorf("model %d: Write(Parse(text)) differs from text", i)
		}
	}
}

// TestWriteGrowsOnce checks that Write grows a writer with a Grow method
// once, to the text's size, and writes the same text to a writer without
// one.
func TestWriteGrowsOnce(t *testing.T) {
	for i, text := range append(bundleModels(t), small) {
		m, err := Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		if err := m.Write(&b); err != nil {
			t.Fatal(err)
		}
		var once strings.Builder
		once.Grow(b.Len()) // rounded up to the allocator's size class
		if b.Cap() != once.Cap() {
			t.Errorf("model %d: builder capacity %d, want %d, that of one Grow(%d)", i, b.Cap(), once.Cap(), b.Len())
		}
		var plain plainWriter
		if err := m.Write(&plain); err != nil {
			t.Fatal(err)
		}
		if string(plain.b) != text {
			t.Errorf("model %d: the text written to a plain writer differs", i)
		}
	}
}

// plainWriter is an io.Writer without a Grow method.
type plainWriter struct{ b []byte }

func (w *plainWriter) Write(p []byte) (int, error) {
	w.b = append(w.b, p...)
	return len(p), nil
}

// TestLeavesAgrees checks that leaves loads what Write writes and predicts
// what Model.Predict does, on vectors on, beside and between the
// thresholds, and with NaN.
func TestLeavesAgrees(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for name, m := range models(t) {
		t.Run(name, func(t *testing.T) {
			var text bytes.Buffer
			if err := m.Write(&text); err != nil {
				t.Fatal(err)
			}
			lg, err := leaves.LGEnsembleFromReader(bufio.NewReader(&text), false)
			if err != nil {
				t.Fatalf("leaves cannot load the model: %v", err)
			}
			if got, want := lg.NEstimators(), len(m.Trees); got != want {
				t.Errorf("leaves has %d trees, want %d", got, want)
			}
			cuts := thresholds(m)
			x := make([]float64, m.NumFeatures())
			for range 2000 {
				for f := range x {
					switch c := cuts[f]; {
					case rng.IntN(20) == 0:
						x[f] = math.NaN()
					case len(c) > 0 && rng.IntN(2) == 0:
						x[f] = c[rng.IntN(len(c))] + []float64{-1e-9, 0, 1e-9}[rng.IntN(3)]
					default:
						x[f] = rng.Float64()*10 - 1
					}
				}
				got, want := m.Predict(x), lg.PredictSingle(x, 0)
				if math.Abs(got-want) > 1e-12 {
					t.Fatalf("Predict(%v) = %v, leaves %v", x, got, want)
				}
			}
		})
	}
}

// thresholds returns every feature's split thresholds.
func thresholds(m *Model) [][]float64 {
	cuts := make([][]float64, m.NumFeatures())
	for _, t := range m.Trees {
		for i, f := range t.SplitFeature {
			cuts[f] = append(cuts[f], t.Threshold[i])
		}
	}
	return cuts
}

func TestTreePredict(t *testing.T) {
	m, err := Parse(small)
	if err != nil {
		t.Fatal(err)
	}
	tr := &m.Trees[0] // x1 <= 2 ? (x0 <= 0.5 ? -1 : -2) : 1.5
	for _, tt := range []struct {
		x    []float64
		want float64
	}{
		{[]float64{0.5, 2, 0}, -1}, // equal to the threshold goes left
		{[]float64{math.Nextafter(0.5, 1), 2, 0}, -2},
		{[]float64{0, math.Nextafter(2, 3), 0}, 1.5},
		{[]float64{math.NaN(), math.NaN(), 0}, -1}, // NaN counts as 0
		{[]float64{math.Inf(1), math.Inf(-1), 0}, -2},
	} {
		if got := tr.Predict(tt.x); got != tt.want {
			t.Errorf("Predict(%v) = %v, want %v", tt.x, got, tt.want)
		}
	}
	if got := m.Trees[1].Predict(nil); got != 0.25 {
		t.Errorf("one-leaf tree: Predict = %v, want 0.25", got)
	}
	m.Average = true
	if got, want := m.Predict([]float64{0, 0, 0}), (-1+0.25)/2; got != want {
		t.Errorf("averaged Predict = %v, want %v", got, want)
	}
}

func TestRegression(t *testing.T) {
	for _, tt := range []struct {
		objective    string
		class, perIt int
		ok           bool
	}{
		{"regression", 1, 1, true},
		{"regression_l1", 1, 1, true},
		{"huber", 1, 1, true},
		{"multiclass num_class:4", 4, 4, false},
		{"multiclassova num_class:3 sigmoid:1", 3, 3, false},
		{"binary sigmoid:1", 1, 1, false},
		{"lambdarank", 1, 1, false},
		{"poisson", 1, 1, false},
		{"regression sqrt", 1, 1, false},
		{"", 1, 1, false},
	} {
		m := &Model{Objective: tt.objective, NumClass: tt.class, NumTreePerIteration: tt.perIt}
		err := m.Regression()
		if (err == nil) != tt.ok || err != nil && !errors.Is(err, ErrNotRegression) {
			t.Errorf("Regression() of %q with %d classes = %v, want ok=%v", tt.objective, tt.class, err, tt.ok)
		}
	}
}

func TestWriteInvalid(t *testing.T) {
	valid := func() *Model {
		m, err := Parse(small)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	tests := []struct {
		name   string
		change func(m *Model)
		want   string
	}{
		{"version", func(m *Model) { m.Version = "v4" }, "only v3"},
		{"name with space", func(m *Model) { m.FeatureNames[1] = "a b" }, `feature name "a b"`},
		{"empty name", func(m *Model) { m.FeatureNames[1] = "" }, `feature name ""`},
		{"names", func(m *Model) { m.FeatureNames = m.FeatureNames[:2] }, "2 feature names"},
		{"no trees", func(m *Model) { m.Trees = nil }, "no trees"},
		{"feature", func(m *Model) { m.Trees[0].SplitFeature[0] = 3 }, "split_feature[0] is 3"},
		{"cycle", func(m *Model) { m.Trees[0].LeftChild[1] = 1 }, "reached twice"},
		{"NaN", func(m *Model) { m.Trees[0].LeafValue[0] = math.NaN() }, "leaf_value[0] is NaN"},
		{"leaves", func(m *Model) { m.Trees[0].NumLeaves = 4 }, "3 leaf values for num_leaves=4"},
		{"param", func(m *Model) { m.Params[0].Value = "a\nb" }, "line break"},
		{"objective", func(m *Model) { m.Objective = "regression\nversion=v3" }, "line break"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := valid()
			tt.change(m)
			var b bytes.Buffer
			err := m.Write(&b)
			if !errors.Is(err, ErrInvalidModel) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Write = %v, want ErrInvalidModel mentioning %q", err, tt.want)
			}
			if b.Len() != 0 {
				t.Errorf("Write wrote %d bytes of an invalid model", b.Len())
			}
		})
	}
}

func BenchmarkParse(b *testing.B) {
	text := bundleModels(b)[0]
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(text); err != nil {
			b.Fatal(err)
		}
	}
}

func TestMulticlass(t *testing.T) {
	for _, tt := range []struct {
		objective    string
		class, perIt int
		want         int // the class count asked for; 0 for any
		ok           bool
	}{
		{"multiclass num_class:4", 4, 4, 0, true},
		{"multiclass num_class:4", 4, 4, 4, true},
		{"multiclass num_class:4", 4, 4, 3, false},
		{"multiclassova num_class:3 sigmoid:1", 3, 3, 3, true},
		{"multiclass num_class:3", 4, 4, 0, false},
		{"multiclass num_class:4", 4, 1, 0, false},
		{"multiclass", 4, 4, 0, false},
		{"regression", 1, 1, 0, false},
		{"multiclass num_class:1", 1, 1, 0, false},
		{"binary sigmoid:1", 1, 1, 2, false},
		{"", 3, 3, 0, false},
	} {
		m := &Model{Objective: tt.objective, NumClass: tt.class, NumTreePerIteration: tt.perIt}
		err := m.Multiclass(tt.want)
		if (err == nil) != tt.ok || err != nil && !errors.Is(err, ErrNotMulticlass) {
			t.Errorf("Multiclass(%d) of %q with %d classes, %d trees an iteration = %v, want ok=%v", tt.want, tt.objective, tt.class, tt.perIt, err, tt.ok)
		}
	}
}
