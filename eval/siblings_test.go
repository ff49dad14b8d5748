package eval

import (
	"testing"

	"github.com/augur-tuning/augur/train"
)

// TestChooseSiblings: on two GPUs that measured the same median images,
// each device's choice at a shape only the other measured is scored on
// those shapes and follows its figures; a device whose model carries no
// held-out figure gets none.
func TestChooseSiblings(t *testing.T) {
	d, err := train.Load("../datasets/data", "median")
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := train.TrainData(d, train.Options{Kernel: "median", Folds: 1, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := ChooseSiblings(b, d); err != nil {
		t.Fatal(err)
	}
	devices := 0
	for _, m := range b.Models {
		c := m.Siblings
		if m.Name == train.FleetModel {
			if c != nil {
				t.Errorf("the fleet model has a sibling choice %+v", *c)
			}
			continue
		}
		devices++
		if c == nil {
			t.Fatalf("%s: no sibling choice", m.Name)
		}
		if c.Shapes != 20 || !(c.CopyPct > 0 && c.CopyPct <= 100) || !(c.OwnPct > 0) || c.Copy != (c.CopyPct >= c.OwnPct) {
			t.Errorf("%s: %+v, want 20 shapes, figures in range and Copy by them", m.Name, *c)
		}
	}
	if devices != 2 {
		t.Errorf("%d device models, want 2", devices)
	}

	// No held-out figure (the learner given, not selected): no choice.
	for i := range b.Models {
		delete(b.Models[i].Stats, "holdout_pct_geomean")
		delete(b.Models[i].Stats, "holdout_consensus_pct_geomean")
	}
	if err := ChooseSiblings(b, d); err != nil {
		t.Fatal(err)
	}
	for _, m := range b.Models {
		if m.Siblings != nil {
			t.Errorf("%s: choice %+v without a held-out figure", m.Name, *m.Siblings)
		}
	}
}
