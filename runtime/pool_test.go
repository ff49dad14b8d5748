package runtime_test

import (
	"testing"

	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/runtime"
)

// TestPoolChoice: a device whose model records that the fleet model picks
// better on its shapes (features.Model.Pool) is served by the fleet model
// with its platform features, expects the fleet model's held-out figures
// and keeps its measured table; a bundle without the record, a record that
// keeps the device's own model, a model named in Options or a bundle with
// no fleet model serve the device's own model as before.
func TestPoolChoice(t *testing.T) {
	measured := features.Task{1000, 700, 5, 5}
	bundle := func(withFleet bool, pool *features.PoolChoice) []byte {
		data := fleetBundle(t, withFleet)
		b, err := features.ReadBundle(data)
		if err != nil {
			t.Fatal(err)
		}
		return rebundle(t, func(nb *features.Bundle) {
			nb.Models = b.Models
			nb.Models[0].Pool = pool
			nb.Measured = []features.MeasuredBest{{Device: poclSlug, Task: measured, Config: nb.Reference, TimeNs: 1}}
		})
	}
	b0, err := features.ReadBundle(fleetBundle(t, true))
	if err != nil {
		t.Fatal(err)
	}
	renamed := *b0.Models[0].Platform // the device as the caller's driver names it
	renamed.Name = "PoCL under another name"
	fleet := &features.PoolChoice{Fleet: true, OwnPct: 90, FleetPct: 95.5, OwnWorst: 80, FleetWorst: 88, Shapes: 6}
	own := &features.PoolChoice{Fleet: false, OwnPct: 95, FleetPct: 95.2, Shapes: 6}
	for _, tc := range []struct {
		name       string
		data       []byte
		opt        runtime.Options
		wantSource string
		wantPct    float64 // 0: not the pool's figure
	}{
		{"no record", bundle(true, nil), runtime.Options{Device: poclSlug}, "model:" + poclSlug, 0},
		{"own kept", bundle(true, own), runtime.Options{Device: poclSlug}, "model:" + poclSlug, 0},
		{"fleet", bundle(true, fleet), runtime.Options{Device: poclSlug}, runtime.SourceFleet, 95.5},
		{"fleet, platform given", bundle(true, fleet), runtime.Options{Device: poclSlug, Platform: &renamed}, runtime.SourceFleet, 95.5},
		{"model named", bundle(true, fleet), runtime.Options{Device: poclSlug, Model: poclSlug}, "model:" + poclSlug, 0},
		{"no fleet model", bundle(false, fleet), runtime.Options{Device: poclSlug}, "model:" + poclSlug, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ch, err := runtime.New(tc.data, tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			if ch.Source() != tc.wantSource {
				t.Errorf("source %q, want %q", ch.Source(), tc.wantSource)
			}
			p, err := ch.ChoosePick(features.Task{2048, 2048, 9, 9})
			if err != nil {
				t.Fatal(err)
			}
			if tc.wantPct != 0 && (p.ExpectedPct != tc.wantPct || p.WorstPct != 88) {
				t.Errorf("expected %g%% (worst %g%%), want the pool's %g%% (88%%)", p.ExpectedPct, p.WorstPct, tc.wantPct)
			}
			if p, err := ch.ChoosePick(measured); err != nil || p.Source != runtime.SourceTable {
				t.Errorf("measured shape: source %q (%v), want %q", p.Source, err, runtime.SourceTable)
			}
		})
	}
}

// TestPoolOwnLimits: the fleet model serving a device whose own model sent
// it there keeps to the limits of that device's rows, not to the fleet's,
// which another device may have set.
func TestPoolOwnLimits(t *testing.T) {
	shape := features.Task{1913, 1077, 5, 5} // no device measured it
	items := func(cfg features.Config) int { return workItems(t, shape, cfg) }
	pick := func(limit float64) runtime.Pick {
		var device string
		data, _ := fleetData(t, func(b *features.Bundle) {
			device = b.Models[0].Name
			b.Models[0].Pool = &features.PoolChoice{Fleet: true, OwnPct: 90, FleetPct: 95, Shapes: 4}
			if limit > 0 {
				b.Models[0].Limits = map[string]float64{"wg_items": limit}
			}
		})
		ch, err := runtime.New(data, runtime.Options{Device: device})
		if err != nil {
			t.Fatal(err)
		}
		p, err := ch.ChoosePick(shape)
		if err != nil {
			t.Fatal(err)
		}
		if p.Source != runtime.SourceFleet {
			t.Fatalf("pick from %q, want the fleet model's", p.Source)
		}
		return p
	}
	if free := items(pick(0).Config); free <= 64 {
		t.Fatalf("the fleet model's pick within the bundle's limits has %d work-items; the test needs more than 64", free)
	}
	if got := items(pick(64).Config); got > 64 {
		t.Errorf("with the device's own limit of 64 work-items the pick has %d", got)
	}
}
