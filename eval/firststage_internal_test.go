package eval

import (
	"testing"

	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/train"
)

// TestRunnable checks what the two-stage tuner draws from on
// testdata/h200's conv2d shapes: every configuration that ran, and none
// of those collect pruned by the device's limits (work-group size, local
// memory: more than a third of the space), as the recorded rows say; and
// the whole space for a kernel it does not know or a device whose limits
// are unknown.
func TestRunnable(t *testing.T) {
	k := datasets.Conv2D()
	all, err := train.LoadWith("../testdata/h200", k.Name, train.LoadOptions{Invalid: train.InvalidZeta, Derived: datasets.Deriver(k.Name)})
	if err != nil {
		t.Fatal(err)
	}
	space, err := features.NewSpace(all.Params, all.Constraints)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range groupRows(all, space) {
		ts, err := newTwoStage(all, space, g, encoder(all, datasets.Deriver(k.Name)))
		if err != nil {
			t.Fatal(err)
		}
		cands := ts.runnable(Options{Kernel: k.Name})
		in := map[string]bool{}
		for _, c := range cands {
			in[space.Format(c)] = true
		}
		for name := range g.times {
			if !in[name] {
				t.Fatalf("shape %v: %s ran but is not drawn from", g.task, name)
			}
		}
		t.Logf("shape %v: %d of %d configurations drawn from, %d ran", g.task, len(cands), len(ts.valid), len(g.times))
		if len(cands) > 2*len(ts.valid)/3 {
			t.Errorf("shape %v: %d of %d configurations drawn from, want at most two thirds", g.task, len(cands), len(ts.valid))
		}
		plat := all.Platforms[g.platform]
		for _, tc := range []struct {
			name string
			k    *datasets.Kernel
			plat features.Platform
		}{
			{"no kernel", nil, plat},
			{"unknown limits", k, features.Platform{Name: plat.Name}},
		} {
			if got := Runnable(tc.k, g.task, tc.plat, ts.valid); len(got) != len(ts.valid) {
				t.Errorf("%s: %d of %d configurations, want every one", tc.name, len(got), len(ts.valid))
			}
		}
	}
}
