package eval

import (
	"testing"

	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/train"
)

// TestPruned checks what the two-stage tuner knows to fail before it
// measures on testdata/h200's conv2d shapes: none of the configurations
// that ran, and every one that collect pruned by the device's limits
// (work-group size, local memory: more than a third of the space), as the
// recorded rows say; and nothing for a kernel it does not know or a
// device whose limits are unknown.
func TestPruned(t *testing.T) {
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
		pruned := ts.pruned(Options{Kernel: k.Name})
		if pruned == nil {
			t.Fatalf("shape %v: nothing known to fail", g.task)
		}
		n := 0
		for i, c := range ts.valid {
			if !pruned[i] {
				continue
			}
			n++
			if _, ran := g.times[space.Format(c)]; ran {
				t.Fatalf("shape %v: %s ran but is known to fail", g.task, space.Format(c))
			}
		}
		if n < len(ts.valid)/3 {
			t.Errorf("shape %v: %d of %d configurations known to fail, want at least a third", g.task, n, len(ts.valid))
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
			if got := Pruned(tc.k, g.task, tc.plat, ts.valid); got != nil {
				t.Errorf("%s: Pruned = %d values, want nil", tc.name, len(got))
			}
		}
	}
}
