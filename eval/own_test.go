package eval

import (
	"testing"
)

// TestHoldoutOwnBesideOthers leaves each of the H200's shapes out of its
// data alone and of the same data beside the H100's: the H200's own
// model is fitted on its own rows in both, so the pick it makes, forced
// beside the other device (HoldoutShape.OwnPct), must be the pick of the
// H200 alone, shape by shape.
func TestHoldoutOwnBesideOthers(t *testing.T) {
	opt := fastOptions()
	opt.Holdout = true
	alone, err := Evaluate(fleetDir(t, false, "h200-test"), opt)
	if err != nil {
		t.Fatal(err)
	}
	opt.PoolFigures = true // the H200 keeps its own model: OwnPct comes with the figures
	pair, err := Evaluate(fleetDir(t, false, "h200-test", "h100-test"), opt)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]HoldoutShape{}
	for _, s := range alone.Holdout.Shapes {
		want[s.Shape] = s
	}
	n := 0
	for _, s := range pair.Holdout.Shapes {
		w, ok := want[s.Shape]
		if !ok || s.Platform != w.Platform {
			continue
		}
		n++
		if s.OwnPct != w.Pct {
			t.Errorf("shape %s of %s: own model's pick beside the H100 %.2f%%, alone %.2f%% (%s)", s.Shape, s.Platform, s.OwnPct, w.Pct, w.Chosen)
		}
		if s.Pool != nil && !s.Pool.Fleet && s.Chosen != w.Chosen {
			t.Errorf("shape %s of %s: own model picks %s beside the H100, %s alone", s.Shape, s.Platform, s.Chosen, w.Chosen)
		}
	}
	if n == 0 || n != len(alone.Holdout.Shapes) {
		t.Errorf("%d of the H200's %d shapes compared", n, len(alone.Holdout.Shapes))
	}
}
