package collect

import (
	"fmt"
	"math"
	"slices"
)

// summarize returns the median, minimum and coefficient of variation
// (standard deviation over mean) of times, which must not be empty. It
// sorts times in place.
func summarize(times []float64) (median, minimum, cv float64) {
	slices.Sort(times)
	n := len(times)
	median = times[n/2]
	if n%2 == 0 {
		median = (times[n/2-1] + times[n/2]) / 2
	}
	var sum float64
	for _, t := range times {
		sum += t
	}
	mean := sum / float64(n)
	var ss float64
	for _, t := range times {
		ss += (t - mean) * (t - mean)
	}
	if mean > 0 {
		cv = math.Sqrt(ss/float64(n)) / mean
	}
	return median, times[0], cv
}

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
