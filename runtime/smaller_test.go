package runtime_test

import (
	"testing"

	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/runtime"
)

// TestSmallerGroups checks that a model trained with
// features.OptionSmallerGroups is searched among its known configurations
// and those with smaller work groups, and no further; without the option,
// or with Options.StrictKnown, among its known ones only.
func TestSmallerGroups(t *testing.T) {
	// Keep the known configurations of the largest Xwg that ran, and
	// start from them alone.
	var known []features.Config
	top := 0
	bundle := func(smaller bool) []byte {
		return rebundle(t, func(b *features.Bundle) {
			m := &b.Models[0]
			known, top = nil, 0
			for _, k := range m.Known {
				top = max(top, k[0])
			}
			for _, k := range m.Known {
				if k[0] == top {
					known = append(known, k)
				}
			}
			m.Known, m.Candidates, m.Starts = known, known, nil
			m.Options = map[string]float64{}
			if smaller {
				m.Options[features.OptionSmallerGroups] = 1
			}
		})
	}
	chooser := func(data []byte, opt runtime.Options) *runtime.Chooser {
		ch, err := runtime.New(data, opt)
		if err != nil {
			t.Fatal(err)
		}
		return ch
	}
	strict := chooser(bundle(false), runtime.Options{})
	widened := chooser(bundle(true), runtime.Options{})
	forced := chooser(bundle(true), runtime.Options{StrictKnown: true})
	if xwg := strict.Space().Param("Xwg"); xwg != 0 || top == strict.Space().Params[0].Values[0] {
		t.Fatalf("test bundle: Xwg is parameter %d, largest known %d: want 0 and one with smaller values", xwg, top)
	}
	in := func(set []features.Config, c features.Config) bool {
		for _, k := range set {
			if k.Equal(c) {
				return true
			}
		}
		return false
	}
	wide := strict.Space().WithSmaller(known, []string{"Xwg", "Ywg"})
	moved := 0
	for _, task := range []features.Task{{640, 480, 3, 3}, {1000, 700, 5, 5}, {256, 2048, 7, 7}} {
		s, err := strict.Choose(task)
		if err != nil {
			t.Fatal(err)
		}
		w, _ := widened.Choose(task)
		f, _ := forced.Choose(task)
		if !in(known, s) {
			t.Errorf("%v: strict pick %v is not known", task, s)
		}
		if !f.Equal(s) {
			t.Errorf("%v: StrictKnown pick %v, want the strict pick %v", task, f, s)
		}
		if !in(wide, w) {
			t.Errorf("%v: pick %v is neither known nor a known one with smaller work groups", task, w)
		}
		if w[0] < top {
			moved++
		}
		ps, _ := strict.Predict(task, s)
		pw, _ := widened.Predict(task, w)
		if pw < ps {
			t.Errorf("%v: widened pick predicts %g, below the strict pick's %g from the same start", task, pw, ps)
		}
	}
	if moved == 0 {
		t.Errorf("no widened pick has an Xwg below %d: the option changes nothing", top)
	}
}
