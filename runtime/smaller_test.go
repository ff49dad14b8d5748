package runtime_test

import (
	"os"
	"testing"

	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/runtime"
)

// TestSmallerGroups checks that a model trained with
// features.OptionSmallerGroups is searched among its known configurations
// and those with smaller work groups, and no further; without the option,
// or with Options.StrictKnown, among its known ones only.
func TestSmallerGroups(t *testing.T) {
	data, err := os.ReadFile(testBundle)
	if err != nil {
		t.Fatal(err)
	}
	b, err := features.ReadBundle(data)
	if err != nil {
		t.Fatal(err)
	}
	space, err := b.Space()
	if err != nil {
		t.Fatal(err)
	}
	xwg := space.Param("Xwg")
	// Keep the known configurations of the largest Xwg that ran, and
	// start from them alone.
	top := 0
	for _, k := range b.Models[0].Known {
		top = max(top, k[xwg])
	}
	var known []features.Config
	for _, k := range b.Models[0].Known {
		if k[xwg] == top {
			known = append(known, k)
		}
	}
	if len(known) == 0 || top == space.Params[xwg].Values[0] {
		t.Fatalf("test bundle: no known configuration with a larger Xwg than %d", space.Params[xwg].Values[0])
	}
	bundle := func(smaller bool) *features.Bundle {
		c := *b
		m := b.Models[0]
		m.Known, m.Candidates, m.Starts = known, known, nil
		m.Options = map[string]float64{}
		if smaller {
			m.Options[features.OptionSmallerGroups] = 1
		}
		c.Models = []features.Model{m}
		return &c
	}
	in := func(set []features.Config, c features.Config) bool {
		for _, k := range set {
			if k.Equal(c) {
				return true
			}
		}
		return false
	}
	wide := space.WithSmaller(known, []string{"Xwg", "Ywg"})
	strict, _ := runtime.FromBundle(bundle(false), runtime.Options{})
	widened, _ := runtime.FromBundle(bundle(true), runtime.Options{})
	forced, _ := runtime.FromBundle(bundle(true), runtime.Options{StrictKnown: true})
	if strict == nil || widened == nil || forced == nil {
		t.Fatal("FromBundle failed")
	}
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
		if w[xwg] < top {
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
