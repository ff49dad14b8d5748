package record

import (
	"math"
	"slices"
)

// Summarize returns the figures a row keeps of its timed runs: the median
// (TimeNs), the minimum (TimeMinNs) and the coefficient of variation,
// population standard deviation over mean (TimeCV). times must not be
// empty; it is sorted in place.
func Summarize(times []float64) (median, minimum, cv float64) {
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
