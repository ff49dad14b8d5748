package importer

import (
	"math"

	"github.com/augur-tuning/augur/collect/record"
)

// timing is what an ok row keeps of a measurement's times: its runs in
// whole nanoseconds, in the order they ran, and the summary of those same
// runs, so that the row is consistent with itself (its median and minimum
// are its runs' exactly, as record checks).
type timing struct {
	// runs are the rounded runs; nil when the file lists only a mean
	// (Measurement.MeanOnly), which the row keeps as its summary alone.
	runs                []int64
	median, minimum, cv float64
	repeats             int
}

// timingOf converts an ok measurement's times, in milliseconds, to what
// its row keeps. Each time is rounded to the nearest whole nanosecond, and
// to 1 ns if it is shorter: record keeps runs as integers and refuses an
// ok row whose median is 0. Rounding moves a run by at most 0.5 ns (1 ns
// below 1 ns), and so the median and minimum by at most as much; checkTimes
// has bounded every time by maxTimeMs, so that the conversion cannot
// overflow. A measurement with only a mean keeps no runs: its summary is
// the mean, rounded the same way, as one run (repeats 1, cv 0), as before
// runs were kept, and its times_ns is null, which tells it from a row
// whose runs were timed.
func timingOf(m *Measurement) timing {
	ns := make([]float64, len(m.TimesMs))
	var runs []int64
	if !m.MeanOnly {
		runs = make([]int64, len(m.TimesMs))
	}
	for i, t := range m.TimesMs {
		v := max(1, math.Round(t*1e6))
		ns[i] = v
		if runs != nil {
			runs[i] = int64(v)
		}
	}
	median, minimum, cv := record.Summarize(ns)
	return timing{runs: runs, median: median, minimum: minimum, cv: cv, repeats: len(ns)}
}
