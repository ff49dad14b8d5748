package collect

import (
	"fmt"
	"math"
)

// floorFraction sets the absolute floor of verification: differences are
// measured relative to |want| but never to less than this fraction of the
// largest |want|, so that outputs near zero do not demand exact equality.
const floorFraction = 1e-3

// verify compares got with want element by element: |got - want| must not
// exceed tol * max(|want|, floor), with floor = floorFraction * max|want|.
// NaN (an element never written) always fails. It returns nil or an error
// naming the first mismatch and how many there are.
func verify(got, want []float32, tol float64) error {
	if len(got) != len(want) {
		return fmt.Errorf("output has %d values, want %d", len(got), len(want))
	}
	var peak float64
	for _, w := range want {
		peak = max(peak, math.Abs(float64(w)))
	}
	floor := max(floorFraction*peak, math.SmallestNonzeroFloat64)
	bad, first := 0, -1
	for i := range got {
		g, w := float64(got[i]), float64(want[i])
		// Written so that NaN fails the test.
		if !(math.Abs(g-w) <= tol*max(math.Abs(w), floor)) {
			if first < 0 {
				first = i
			}
			bad++
		}
	}
	if bad == 0 {
		return nil
	}
	return fmt.Errorf("%d of %d values differ beyond tolerance %g; first at %d: got %g, want %g",
		bad, len(got), tol, first, got[first], want[first])
}
