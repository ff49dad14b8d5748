package eval

import (
	"testing"
)

// TestHoldoutPool leaves each shape out of a fleet of two devices' data:
// pooled, every held-out shape is chosen by the fleet model of both
// devices' other shapes, the shapes of each device are summed up apart,
// and the figures stay within (0, 100].
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
