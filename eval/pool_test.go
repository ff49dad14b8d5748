package eval

import (
	"testing"

	"github.com/augur-tuning/augur/train"
)

// TestHoldoutPool leaves each shape out of a fleet of two devices' data:
// by default each fold makes train's choice between the device's own
// model and the fleet model, and the pick comes from the one chosen;
// pooled, every held-out shape is chosen by the fleet model of both
// devices' other shapes. Either way the shapes of each device are summed
// up apart, and the figures stay within (0, 100]. A device of more than
// train.PoolMaxShapes other shapes keeps its own model in every fold: its
// own and fleet figures come only with PoolFigures, and its picks are the
// same without.
func TestHoldoutPool(t *testing.T) {
	dir := fleetDir(t, false, "h200-test", "h100-test")
	picks := map[bool]map[string]string{} // by PoolFigures: platform and shape -> chosen
	for _, mode := range []struct {
		name          string
		pool, figures bool
	}{{"choice", false, false}, {"choice with figures", false, true}, {"pooled", true, false}} {
		opt := fastOptions()
		opt.Holdout, opt.Pool, opt.PoolFigures = true, mode.pool, mode.figures
		rep, err := Evaluate(dir, opt)
		if err != nil {
			t.Fatal(err)
		}
		pool := mode.pool
		h := rep.Holdout
		if h == nil || h.Pooled != pool || len(h.Shapes) == 0 {
			t.Fatalf("%s: holdout = %+v, want shapes, pooled %v", mode.name, h, pool)
		}
		if len(h.Devices) != 2 {
			t.Fatalf("%s: devices = %+v, want 2", mode.name, h.Devices)
		}
		scored := map[string]bool{} // devices with a shape whose choice was scored
		if !pool {
			picks[mode.figures] = map[string]string{}
		}
		for _, sh := range h.Shapes {
			want := "model:" + sh.Platform
			if sh.Pool != nil && sh.Pool.Fleet {
				want = "fleet"
			}
			if pool && (sh.Pool != nil || sh.Source != "") {
				t.Errorf("pooled shape %s of %s: choice %+v, source %q; want none", sh.Shape, sh.Platform, sh.Pool, sh.Source)
			}
			if pool {
				if sh.OwnPct != 0 || sh.FleetPct != 0 {
					t.Errorf("pooled shape %s of %s: own %.2f, fleet %.2f; want none", sh.Shape, sh.Platform, sh.OwnPct, sh.FleetPct)
				}
				continue
			}
			picks[mode.figures][sh.Platform+" "+sh.Shape] = sh.Chosen
			if sh.Pool == nil || sh.Source != want {
				t.Errorf("%s: shape %s of %s: choice %+v, source %q; want a choice and source %q", mode.name, sh.Shape, sh.Platform, sh.Pool, sh.Source, want)
				continue
			}
			if !mode.figures && sh.Pool.Shapes > train.PoolMaxShapes {
				if sh.Pool.Fleet || sh.Pool.OwnPct != 0 || sh.Pool.FleetPct != 0 || sh.OwnPct != 0 || sh.FleetPct != 0 {
					t.Errorf("shape %s of %s, a device of %d other shapes: choice %+v, own %.2f, fleet %.2f; want its own model and no figures",
						sh.Shape, sh.Platform, sh.Pool.Shapes, sh.Pool, sh.OwnPct, sh.FleetPct)
				}
				continue
			}
			scored[sh.Platform] = true
			if chosen := map[bool]float64{false: sh.OwnPct, true: sh.FleetPct}; sh.Status != "unrecorded" &&
				(chosen[sh.Pool.Fleet] != sh.Pct || !(sh.OwnPct > 0 && sh.FleetPct > 0 && sh.OwnPct <= 100 && sh.FleetPct <= 100)) {
				t.Errorf("%s: shape %s of %s: own %.2f, fleet %.2f, pick %.2f with choice %+v; want both in (0, 100] and the chosen one the pick",
					mode.name, sh.Shape, sh.Platform, sh.OwnPct, sh.FleetPct, sh.Pct, sh.Pool)
			}
		}
		n := 0
		for _, dh := range h.Devices {
			n += dh.Shapes
			if dh.Pct <= 0 || dh.Pct > 100 || dh.Worst > dh.Pct || len(dh.TopK) != len(topKs) {
				t.Errorf("%s: device %+v out of range", mode.name, dh)
			}
			switch {
			case pool || !mode.figures && !scored[dh.Device]:
				if dh.OwnPct != 0 || dh.FleetPct != 0 {
					t.Errorf("%s: device %+v: own or fleet line without their figures", mode.name, dh)
				}
			case dh.OwnPct <= 0 || dh.OwnPct > 100 || dh.OwnWorst > dh.OwnPct || dh.FleetPct <= 0 || dh.FleetPct > 100 || dh.FleetWorst > dh.FleetPct:
				t.Errorf("%s: device %+v: own or fleet line out of range", mode.name, dh)
			}
		}
		if n != len(h.Shapes) {
			t.Errorf("%s: devices hold %d shapes, the holdout %d", mode.name, n, len(h.Shapes))
		}
		if !pool && !mode.figures && (len(scored) != 1 || !scored["nvidia-h100-80gb-hbm3"]) {
			t.Errorf("%s: devices scored %v, want the H100 of 3 shapes alone (the H200 has 6)", mode.name, scored)
		}
	}
	if len(picks[false]) == 0 {
		t.Fatal("no picks")
	}
	if len(picks[false]) != len(picks[true]) {
		t.Errorf("%d picks without the figures, %d with", len(picks[false]), len(picks[true]))
	}
	for k, c := range picks[true] {
		if picks[false][k] != c {
			t.Errorf("%s: chose %s with the figures, %s without", k, c, picks[false][k])
		}
	}
}
