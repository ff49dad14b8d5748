package record

import (
	"fmt"
	"math"
	"slices"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/memory"

	"github.com/augur-tuning/augur/features"
)

// maxAbsLogSpeedup bounds |log_speedup|: e^50 is a speedup of 5e21, which
// no configuration of one kernel has over another; anything beyond is a
// corrupted value.
const maxAbsLogSpeedup = 50

// Bounds on a row's measurements; beyond them a value is a corrupted one,
// not a measurement (issue 26 found compile_ms 2.9e286 and repeats 7.2e16
// after single-bit flips).
const (
	// MaxRepeats is the most timed runs a row may record: collect times
	// at most collect.MaxRepeats (1,000) a configuration, and importers
	// keep the count of the times their source lists.
	MaxRepeats = 1_000_000
	// maxTimeNs bounds time_ns, time_min_ns and ref_time_ns: 10^13 ns
	// is 2.8 hours, beyond any timeout of a kernel run.
	maxTimeNs = 1e13
	// maxCompileMs bounds compile_ms: 10^7 ms is 2.8 hours.
	maxCompileMs = 1e7
	// maxTimeCV bounds time_cv, at most sqrt(n-1) for n runs.
	maxTimeCV = 1e3
)

// builder accumulates rows into one record batch of the file schema.
type builder struct {
	rb     *array.RecordBuilder
	tasks  []*array.Int64Builder
	params []*array.Int64Builder
	status *array.StringBuilder
	timeNs, timeMinNs, timeCV,
	refTimeNs, logSpeedup, compileMs *array.Float64Builder
	repeats *array.Int64Builder
	errs    *array.StringBuilder
	runs    *array.ListBuilder
	runVals *array.Int64Builder
}

// newBuilder lays the builders out in schema order (see schema).
func newBuilder(mem memory.Allocator, sc *arrow.Schema, meta Meta) *builder {
	b := &builder{rb: array.NewRecordBuilder(mem, sc)}
	i := 0
	next := func() array.Builder { i++; return b.rb.Field(i - 1) }
	for range meta.TaskNames {
		b.tasks = append(b.tasks, next().(*array.Int64Builder))
	}
	for range meta.Params {
		b.params = append(b.params, next().(*array.Int64Builder))
	}
	b.status = next().(*array.StringBuilder)
	b.timeNs = next().(*array.Float64Builder)
	b.timeMinNs = next().(*array.Float64Builder)
	b.timeCV = next().(*array.Float64Builder)
	b.repeats = next().(*array.Int64Builder)
	b.refTimeNs = next().(*array.Float64Builder)
	b.logSpeedup = next().(*array.Float64Builder)
	b.compileMs = next().(*array.Float64Builder)
	b.errs = next().(*array.StringBuilder)
	b.runs = next().(*array.ListBuilder)
	b.runVals = b.runs.ValueBuilder().(*array.Int64Builder)
	return b
}

// append adds r, whose lengths the caller has checked.
func (b *builder) append(r Row) {
	for i, v := range r.Task {
		b.tasks[i].Append(int64(v))
	}
	for i, v := range r.Config {
		b.params[i].Append(int64(v))
	}
	b.status.Append(string(r.Status))
	b.timeNs.Append(r.TimeNs)
	b.timeMinNs.Append(r.TimeMinNs)
	b.timeCV.Append(r.TimeCV)
	b.repeats.Append(int64(r.Repeats))
	b.refTimeNs.Append(r.RefTimeNs)
	if r.Status == StatusOK && !math.IsNaN(r.LogSpeedup) {
		b.logSpeedup.Append(r.LogSpeedup)
	} else {
		b.logSpeedup.AppendNull()
	}
	b.compileMs.Append(r.CompileMs)
	b.errs.Append(r.Error)
	if r.Runs == nil {
		b.runs.AppendNull()
	} else {
		b.runs.Append(true)
		b.runVals.AppendValues(r.Runs, nil)
	}
}

// record returns the rows appended so far as a batch and empties the
// builders; the caller releases it.
func (b *builder) record() arrow.Record { return b.rb.NewRecord() }

func (b *builder) release() { b.rb.Release() }

// knownStatuses lists every Status a row may have.
var knownStatuses = [...]Status{StatusOK, StatusCompileError, StatusLaunchError,
	StatusResourceLimit, StatusVerifyError, StatusTimeout, StatusPruned, StatusCrash}

// checkRow returns an ErrInvalidRow error for a row no measurement can
// produce. The reader applies it to every row, so that a few flipped bytes
// in a file are reported rather than trained on as an absurd speedup.
func checkRow(r Row, params []features.Param) error {
	if err := checkSummary(r, params); err != nil {
		return err
	}
	return checkRuns(r)
}

// checkSummary is checkRow but for the timed runs.
func checkSummary(r Row, params []features.Param) error {
	if !slices.Contains(knownStatuses[:], r.Status) {
		return fmt.Errorf("%w: unknown status %q", ErrInvalidRow, r.Status)
	}
	for _, f := range []struct {
		name string
		v    float64
		max  float64
	}{
		{colTimeNs, r.TimeNs, maxTimeNs}, {colTimeMinNs, r.TimeMinNs, maxTimeNs}, {colTimeCV, r.TimeCV, maxTimeCV},
		{colRefTimeNs, r.RefTimeNs, maxTimeNs}, {colCompileMs, r.CompileMs, maxCompileMs},
	} {
		if !(f.v >= 0 && f.v <= f.max) {
			return fmt.Errorf("%w: %s is %g, want a number in [0, %g]", ErrInvalidRow, f.name, f.v, f.max)
		}
	}
	if r.Repeats < 0 || r.Repeats > MaxRepeats {
		return fmt.Errorf("%w: repeats is %d, want a count in [0, %d]", ErrInvalidRow, r.Repeats, MaxRepeats)
	}
	for i, v := range r.Config {
		if i < len(params) && !slices.Contains(params[i].Values, v) {
			return fmt.Errorf("%w: %s is %d, not one of its values %v", ErrInvalidRow, params[i].Name, v, params[i].Values)
		}
	}
	if r.Status != StatusOK {
		return nil
	}
	if !(r.TimeNs > 0) {
		return fmt.Errorf("%w: ok row with time_ns %g, want > 0", ErrInvalidRow, r.TimeNs)
	}
	if r.TimeMinNs > r.TimeNs {
		return fmt.Errorf("%w: time_min_ns %g exceeds time_ns %g", ErrInvalidRow, r.TimeMinNs, r.TimeNs)
	}
	ls := r.LogSpeedup
	if math.IsNaN(ls) {
		return nil
	}
	if !(math.Abs(ls) <= maxAbsLogSpeedup) {
		return fmt.Errorf("%w: log_speedup %g is not in [-%d, %d]", ErrInvalidRow, ls, maxAbsLogSpeedup, maxAbsLogSpeedup)
	}
	if r.RefTimeNs > 0 {
		if want := math.Log(r.RefTimeNs / r.TimeNs); math.Abs(ls-want) > 1e-6*max(1, math.Abs(want)) {
			return fmt.Errorf("%w: log_speedup %g, but ln(ref_time_ns/time_ns) is %g", ErrInvalidRow, ls, want)
		}
	}
	return nil
}

// checkRuns returns an ErrInvalidRow error for runs that cannot be the
// timed runs of r: runs on a row that is not ok, a count other than
// Repeats, a run outside [0, maxTimeNs], or a minimum or median other than
// the row's (within 1 ns, for importers that round their times). A row
// without runs passes.
func checkRuns(r Row) error {
	if r.Runs == nil {
		return nil
	}
	if r.Status != StatusOK {
		return fmt.Errorf("%w: %s row with %d timed runs, want none", ErrInvalidRow, r.Status, len(r.Runs))
	}
	if len(r.Runs) != r.Repeats {
		return fmt.Errorf("%w: %d timed runs in %s, repeats says %d", ErrInvalidRow, len(r.Runs), colTimesNs, r.Repeats)
	}
	if len(r.Runs) == 0 {
		return nil
	}
	// A stack buffer serves the rows collect writes (5 to 15 runs).
	var buf [32]float64
	xs := buf[:0]
	for i, v := range r.Runs {
		if v < 0 || v > maxTimeNs {
			return fmt.Errorf("%w: %s[%d] is %d, want a time in [0, %g]", ErrInvalidRow, colTimesNs, i, v, float64(maxTimeNs))
		}
		xs = append(xs, float64(v))
	}
	median, minimum, _ := Summarize(xs)
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1+1e-9*b }
	if !near(minimum, r.TimeMinNs) || !near(median, r.TimeNs) {
		return fmt.Errorf("%w: %s have minimum %g and median %g, the row %g and %g",
			ErrInvalidRow, colTimesNs, minimum, median, r.TimeMinNs, r.TimeNs)
	}
	return nil
}
