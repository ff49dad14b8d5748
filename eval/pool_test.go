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
		}
		n := 0
		for _, dh := range h.Devices {
			n += dh.Shapes
			if dh.Pct <= 0 || dh.Pct > 100 || dh.Worst > dh.Pct || len(dh.TopK) != len(topKs) {
				t.Errorf("pool %v: device %+v out of range", pool, dh)
			}
		}
		if n != len(h.Shapes) {
			t.Errorf("pool %v: devices hold %d shapes, the holdout %d", pool, n, len(h.Shapes))
		}
	}
}
