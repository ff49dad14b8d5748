package train

import (
	"testing"

	"github.com/augur-tuning/augur/features"
)

// TestChoosePool records, for each device of a fleet, its own model's and
// the fleet model's picks on its shapes held out of every device, and the
// choice they make; the fleet model and a bundle of one device get none.
func TestChoosePool(t *testing.T) {
	dir := t.TempDir()
	writeSynth(t, dir, synthPlatform("Small GPU", 4), 1, 1500)
	writeSynth(t, dir, synthPlatform("Big GPU", 64), 2, 1500)
	d, err := Load(dir, "synth")
	if err != nil {
		t.Fatal(err)
	}
	opt := Options{Kernel: "synth", Seed: 1, Folds: 1, GBRT: GBRTOptions{Trees: 30}}
	b, rep, err := TrainData(d, opt)
	if err != nil {
		t.Fatal(err)
	}
	if err := ChoosePool(b, d, rep); err != nil {
		t.Fatal(err)
	}
	for _, m := range b.Models {
		p := m.Pool
		if m.Name == FleetModel {
			if p != nil {
				t.Errorf("fleet model has a pool choice %+v", p)
			}
			continue
		}
		if p == nil {
			t.Fatalf("model %s: no pool choice", m.Name)
		}
		if p.Shapes != 12 {
			t.Errorf("model %s: %d shapes scored, want 12", m.Name, p.Shapes)
		}
		for _, v := range []float64{p.OwnPct, p.FleetPct, p.OwnWorst, p.FleetWorst} {
			if !(v > 0 && v <= 100) {
				t.Errorf("model %s: %+v out of (0, 100]", m.Name, p)
			}
		}
		if p.FleetWins+p.OwnWins > p.Shapes {
			t.Errorf("model %s: fleet wins %d, own wins %d on %d shapes", m.Name, p.FleetWins, p.OwnWins, p.Shapes)
		}
		if p.Fleet != fleetServes(p) {
			t.Errorf("model %s: Fleet %v, but own %.2f and fleet %.2f", m.Name, p.Fleet, p.OwnPct, p.FleetPct)
		}
	}
	// One device: nothing to choose.
	dir1 := t.TempDir()
	writeSynth(t, dir1, synthPlatform("Small GPU", 4), 1, 1500)
	one, err := Load(dir1, "synth")
	if err != nil {
		t.Fatal(err)
	}
	b1, rep1, err := TrainData(one, opt)
	if err != nil {
		t.Fatal(err)
	}
	if err := ChoosePool(b1, one, rep1); err != nil || b1.Models[0].Pool != nil {
		t.Errorf("one device: pool %+v, err %v; want none", b1.Models[0].Pool, err)
	}
}

// TestFleetServes checks the rule of the choice: the fleet model serves
// only a device of few shapes on which it picks better by more than the
// margin.
func TestFleetServes(t *testing.T) {
	tests := []struct {
		name        string
		shapes      int
		own, fleet  float64
		wantServing bool
	}{
		{"one shape, fleet far better", 1, 5.1, 74.4, true},
		{"few shapes, fleet better by 1.6", 2, 95.1, 96.7, true},
		{"few shapes, inside the margin", 2, 95.1, 95.5, false},
		{"few shapes, fleet worse", 3, 97.0, 93.0, false},
		{"at the bound", PoolMaxShapes, 90, 95, true},
		{"above the bound, fleet better by 3.7", PoolMaxShapes + 1, 91.7, 95.5, false},
		{"many shapes, fleet better", 12, 91.7, 95.5, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := &features.PoolChoice{Shapes: tc.shapes, OwnPct: tc.own, FleetPct: tc.fleet}
			if got := fleetServes(c); got != tc.wantServing {
				t.Errorf("fleetServes(%+v) = %v, want %v", c, got, tc.wantServing)
			}
		})
	}
}
