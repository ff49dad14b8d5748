package lightgbm

import (
	"bufio"
	"bytes"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/dmitryikh/leaves"
)

// FuzzRead checks that Read never panics or hangs, that what it accepts
// writes and reads back to the same model, that Predict stays in range on
// vectors of NumFeatures values, and that leaves loads the written text of
// a regression model and predicts the same.
//
// The seeds are small models (about a kilobyte): Go's fuzzer minimises
// each new input with about n^2/2 runs, and the whole models of a bundle
// (1.7 MB) stalled it (issue 26); even one real tree with its 47-feature
// header (3.3 KB) takes longer than the 60 s minimising allows.
func FuzzRead(f *testing.F) {
	f.Add(small)
	rng := rand.New(rand.NewPCG(7, 8))
	mc := randomModel(rng, 3, 6, 3, false)
	mc.NumClass, mc.NumTreePerIteration, mc.Objective = 3, 3, "multiclass num_class:3"
	for _, m := range []*Model{randomModel(rng, 3, 6, 3, true), randomModel(rng, 2, 1, 1, false), mc} {
		var b strings.Builder
		if err := m.Write(&b); err != nil {
			f.Fatal(err)
		}
		f.Add(b.String())
	}
	f.Fuzz(func(t *testing.T, text string) {
		m, err := Read(strings.NewReader(text))
		if err != nil {
			if _, ok := err.(*SyntaxError); !ok {
				t.Fatalf("Read error %v is a %T, want *SyntaxError", err, err)
			}
			return
		}
		var out bytes.Buffer
		if err := m.Write(&out); err != nil {
			t.Fatalf("Write of a model Read accepted: %v", err)
		}
		again, err := Parse(out.String())
		if err != nil {
			t.Fatalf("Parse(Write(Read(text))): %v\n%s", err, out.String())
		}
		if !reflect.DeepEqual(again, m) {
			t.Fatalf("Parse(Write(m)) differs from m")
		}
		cuts := thresholds(m)
		rng := rand.New(rand.NewPCG(uint64(len(text)), 1))
		x := make([]float64, m.NumFeatures())
		// leaves loads the written text, and must not panic on the text
		// itself, which it may still refuse (no tree_sizes, say).
		var lg, lgText *leaves.Ensemble
		multi := m.Multiclass(0) == nil
		if m.NumClass == 1 && m.NumTreePerIteration == 1 || multi {
			lg, err = leaves.LGEnsembleFromReader(bufio.NewReader(bytes.NewReader(out.Bytes())), false)
			if err != nil {
				t.Fatalf("leaves cannot load a model Read accepted: %v", err)
			}
			lgText, _ = leaves.LGEnsembleFromReader(bufio.NewReader(strings.NewReader(text)), false)
		}
		for range 16 {
			for i := range x {
				x[i] = rng.NormFloat64() * 10
				if c := cuts[i]; len(c) > 0 && rng.IntN(2) == 0 {
					x[i] = c[rng.IntN(len(c))]
				}
				if rng.IntN(16) == 0 {
					x[i] = math.NaN()
				}
			}
			got := m.Predict(x) // must not index out of range
			raw := make([]float64, m.NumTreePerIteration)
			m.PredictRaw(raw, x)
			if lg == nil {
				continue
			}
			if multi {
				for _, e := range []*leaves.Ensemble{lg, lgText} {
					if e == nil {
						continue
					}
					want := make([]float64, e.NOutputGroups())
					if err := e.Predict(x, 0, want); err != nil {
						t.Fatalf("leaves Predict: %v", err)
					}
					if !reflect.DeepEqual(raw, want) {
						t.Fatalf("PredictRaw = %v, leaves %v", raw, want)
					}
				}
				continue
			}
			for _, e := range []*leaves.Ensemble{lg, lgText} {
				if e == nil {
					continue
				}
				want := e.PredictSingle(x, 0)
				// The same sums in the same order: equal to the bit.
				if got != want && !(math.IsNaN(got) && math.IsNaN(want)) {
					t.Fatalf("Predict = %v, leaves %v", got, want)
				}
			}
		}
	})
}
