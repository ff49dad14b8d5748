package train

import (
	"slices"
	"testing"

	"github.com/augur-tuning/augur/features"
)

// TestChoosePool records, for each device of a fleet, its own model's and
// the fleet model's picks on its shapes held out of every device, and the
// choice they make, when the figures are asked for; by default a device
// of more shapes than PoolMaxShapes, which keeps its own model whatever
// they say, records its shapes alone. The fleet model and a bundle of one
// device get none.
func TestChoosePool(t *testing.T) {
	dir := t.TempDir()
	writeSynth(t, dir, synthPlatform("Small GPU", 4), 1, 1500)
	writeSynth(t, dir, synthPlatform("Big GPU", 64), 2, 1500)
	d, err := Load(dir, "synth")
	if err != nil {
		t.Fatal(err)
	}
	opt := Options{Kernel: "synth", Seed: 1, Folds: 1, GBRT: GBRTOptions{Trees: 30}}
	for _, figures := range []bool{false, true} {
		b, rep, err := TrainData(d, opt)
		if err != nil {
			t.Fatal(err)
		}
		if err := ChoosePool(b, d, rep, PoolOptions{Figures: figures}); err != nil {
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
				t.Fatalf("figures %v, model %s: no pool choice", figures, m.Name)
			}
			if p.Shapes != 12 {
				t.Errorf("figures %v, model %s: %d shapes scored, want 12", figures, m.Name, p.Shapes)
			}
			if !figures {
				if want := (features.PoolChoice{Shapes: 12}); *p != want {
					t.Errorf("model %s of 12 shapes: choice %+v, want %+v (its own model, not scored)", m.Name, *p, want)
				}
				continue
			}
			for _, v := range []float64{p.OwnPct, p.FleetPct, p.OwnWorst, p.FleetWorst} {
				if !(v > 0 && v <= 100) {
					t.Errorf("model %s: %+v out of (0, 100]", m.Name, p)
				}
			}
			if p.FleetWins+p.OwnWins > p.Shapes {
				t.Errorf("model %s: fleet wins %d, own wins %d on %d shapes", m.Name, p.FleetWins, p.OwnWins, p.Shapes)
			}
			if p.Fleet != fleetServes(p) || p.Fleet {
				t.Errorf("model %s: Fleet %v, but own %.2f and fleet %.2f on %d shapes", m.Name, p.Fleet, p.OwnPct, p.FleetPct, p.Shapes)
			}
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
	if err := ChoosePool(b1, one, rep1, PoolOptions{Figures: true}); err != nil || b1.Models[0].Pool != nil {
		t.Errorf("one device: pool %+v, err %v; want none", b1.Models[0].Pool, err)
	}
}

// countingLearner counts the fits of the learner it wraps.
type countingLearner struct {
	Learner
	fits *int
}

func (l countingLearner) Fit(x []float64, nFeatures int, y []float64) (Regressor, error) {
	*l.fits++
	return l.Learner.Fit(x, nFeatures, y)
}

// TestPoolChoicesRefits counts the refits that PoolChoices makes: by
// default none for a device of more than PoolMaxShapes shapes, and the
// fleet model's only on the folds that hold a scored device's shapes;
// with PoolOptions.Figures every device's on every fold. The choices of
// the devices scored either way are the same.
func TestPoolChoicesRefits(t *testing.T) {
	dir := t.TempDir()
	writeSynth(t, dir, synthPlatform("Small GPU", 4), 1, 1500)
	writeSynth(t, dir, synthPlatform("Big GPU", 64), 2, 1500)
	all, err := Load(dir, "synth")
	if err != nil {
		t.Fatal(err)
	}
	small := slices.IndexFunc(all.Platforms, func(p features.Platform) bool { return p.Name == "Small GPU" })
	big := 1 - small
	// The small GPU keeps 3 of its 12 shapes.
	var rows []int
	kept := map[features.TaskKey]bool{}
	for i, s := range all.Samples() {
		if s.Platform == small && !kept[s.Task.Key()] && len(kept) < 3 {
			kept[s.Task.Key()] = true
		}
		if s.Platform != small || kept[s.Task.Key()] {
			rows = append(rows, i)
		}
	}
	few := all.Subset(rows)
	opt := Options{Kernel: "synth", Seed: 1, Folds: 1, Model: "gbrt", GBRT: GBRTOptions{Trees: 20}}
	const smallFolds = -1 // the folds that hold the small GPU's shapes
	tests := []struct {
		name string
		d    *Data
		// Each device's shapes (small, big), the refits wanted of each
		// one's own model and of the fleet model, by default and with
		// PoolOptions.Figures.
		shapes            [2]int
		own, figuresOwn   [2]int
		fleet, figuresFlt int
	}{
		{"two devices of 12 shapes", all, [2]int{12, 12}, [2]int{0, 0}, [2]int{6, 6}, 0, 6},
		{"3 shapes beside 12", few, [2]int{3, 12}, [2]int{smallFolds, 0}, [2]int{smallFolds, 6}, smallFolds, 6},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, rep, err := TrainData(tc.d, opt)
			if err != nil {
				t.Fatal(err)
			}
			fold, _ := taskFolds(tc.d, 6)
			held := map[int]bool{}
			for i, s := range tc.d.Samples() {
				if s.Platform == small && s.Measured() {
					held[fold[i]] = true
				}
			}
			t.Logf("the small GPU's shapes lie in %d of the folds", len(held))
			want := func(n int) int {
				if n == smallFolds {
					return len(held)
				}
				return n
			}
			var got [2][]*features.PoolChoice
			for fi, figures := range []bool{false, true} {
				var own [2]int // by platform index
				var fleet int
				reports := slices.Clone(rep.Models[:2])
				for pi := range reports {
					reports[pi].fitted.learner = countingLearner{reports[pi].fitted.learner, &own[pi]}
				}
				fr := rep.Models[2]
				fr.fitted.learner = countingLearner{fr.fitted.learner, &fleet}
				if got[fi], err = PoolChoices(tc.d, reports, fr, PoolOptions{Figures: figures}); err != nil {
					t.Fatal(err)
				}
				wantOwn, wantFleet := tc.own, tc.fleet
				if figures {
					wantOwn, wantFleet = tc.figuresOwn, tc.figuresFlt
				}
				for role, pi := range []int{small, big} {
					if own[pi] != want(wantOwn[role]) {
						t.Errorf("figures %v: %s's own model refitted %d times, want %d", figures, tc.d.Platforms[pi].Name, own[pi], want(wantOwn[role]))
					}
					if c := got[fi][pi]; c == nil || c.Shapes != tc.shapes[role] {
						t.Errorf("figures %v: %s's choice %+v, want one of %d shapes", figures, tc.d.Platforms[pi].Name, c, tc.shapes[role])
					}
				}
				if fleet != want(wantFleet) {
					t.Errorf("figures %v: fleet model refitted %d times, want %d", figures, fleet, want(wantFleet))
				}
			}
			for role, pi := range []int{small, big} {
				def, fig, n := got[0][pi], got[1][pi], tc.shapes[role]
				switch {
				case def == nil || fig == nil:
				case n <= PoolMaxShapes && *def != *fig:
					t.Errorf("device of %d shapes: choice %+v by default, %+v with figures; want the same", n, *def, *fig)
				case n > PoolMaxShapes && (fig.Fleet || *def != (features.PoolChoice{Shapes: n})):
					t.Errorf("device of %d shapes: choice %+v by default, %+v with figures; want its own model, and no figures by default", n, *def, *fig)
				}
			}
		})
	}
	// No device scored: the fleet model is not needed at all.
	_, rep, err := TrainData(all, opt)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := PoolChoices(all, rep.Models[:2], ModelReport{}, PoolOptions{}); err != nil {
		t.Errorf("two devices of 12 shapes, no fleet model: %v", err)
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
