package eval

import (
	"testing"
)

// TestHoldoutPool leaves each shape out of a fleet of two devices' data:
// by default each fold makes train's choice between the device's own
// model and the fleet model, and the pick comes from the one chosen;
// pooled, every held-out shape is chosen by the fleet model of both
// devices' other shapes. Either way the shapes of each device are summed
// up apart, and the figures stay within (0, 100].
func TestHoldoutPool(t *testing.T) {
	dir := fleetDir(t, false, "h200-test", "h100-test")
	for _, pool := range []bool{false, true} {
		opt := fastOptions()
		opt.Holdout, opt.Pool = true, pool
		rep, err := Evaluate(dir, opt)
		if err != nil {
			t.Fatal(err)
		}
		h := rep.Holdout
		if h == nil || h.Pooled != pool || len(h.Shapes) == 0 {
			t.Fatalf("pool %v: holdout = %+v, want shapes, pooled %v", pool, h, pool)
		}
		if len(h.Devices) != 2 {
			t.Fatalf("pool %v: devices = %+v, want 2", pool, h.Devices)
		}
		for _, sh := range h.Shapes {
			want := "model:" + sh.Platform
			if sh.Pool != nil && sh.Pool.Fleet {
				want = "fleet"
			}
			if pool && (sh.Pool != nil || sh.Source != "") {
				t.Errorf("pooled shape %s of %s: choice %+v, source %q; want none", sh.Shape, sh.Platform, sh.Pool, sh.Source)
			}
			if !pool && (sh.Pool == nil || sh.Source != want) {
				t.Errorf("shape %s of %s: choice %+v, source %q; want a choice and source %q", sh.Shape, sh.Platform, sh.Pool, sh.Source, want)
			}
			if chosen := map[bool]float64{false: sh.OwnPct, true: sh.FleetPct}; !pool && sh.Pool != nil && sh.Status != "unrecorded" &&
				(chosen[sh.Pool.Fleet] != sh.Pct || !(sh.OwnPct > 0 && sh.FleetPct > 0 && sh.OwnPct <= 100 && sh.FleetPct <= 100)) {
				t.Errorf("shape %s of %s: own %.2f, fleet %.2f, pick %.2f with choice %+v; want both in (0, 100] and the chosen one the pick",
					sh.Shape, sh.Platform, sh.OwnPct, sh.FleetPct, sh.Pct, sh.Pool)
			}
			if pool && (sh.OwnPct != 0 || sh.FleetPct != 0) {
				t.Errorf("pooled shape %s of %s: own %.2f, fleet %.2f; want none", sh.Shape, sh.Platform, sh.OwnPct, sh.FleetPct)
			}
		}
		n := 0
		for _, dh := range h.Devices {
			n += dh.Shapes
			if dh.Pct <= 0 || dh.Pct > 100 || dh.Worst > dh.Pct || len(dh.TopK) != len(topKs) {
				t.Errorf("pool %v: device %+v out of range", pool, dh)
			}
			if !pool && (dh.OwnPct <= 0 || dh.OwnPct > 100 || dh.OwnWorst > dh.OwnPct || dh.FleetPct <= 0 || dh.FleetPct > 100 || dh.FleetWorst > dh.FleetPct) {
				t.Errorf("device %+v: own or fleet line out of range", dh)
			}
		}
		if n != len(h.Shapes) {
			t.Errorf("pool %v: devices hold %d shapes, the holdout %d", pool, n, len(h.Shapes))
		}
	}
}
