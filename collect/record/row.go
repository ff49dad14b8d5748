package record

import "github.com/augur-tuning/augur/features"

// Status is the outcome of one (task, config) measurement.
type Status string

// The statuses a row can have. Only StatusOK rows carry times.
const (
	StatusOK            Status = "ok"
	StatusCompileError  Status = "compile_error"
	StatusLaunchError   Status = "launch_error"
	StatusResourceLimit Status = "resource_limit"
	StatusVerifyError   Status = "verify_error"
	StatusTimeout       Status = "timeout"
	StatusPruned        Status = "pruned"
	// StatusCrash is a configuration whose measurement killed the
	// measuring process (a segmentation fault in the kernel, say): the
	// process that supervised it records the row, naming the signal.
	StatusCrash Status = "crash"
)

// Row is one (task, config) measured or rejected: one row of a dataset file.
type Row struct {
	Task   features.Task
	Config features.Config
	Status Status
	// TimeNs is the median of the timed runs, TimeMinNs their minimum and
	// TimeCV their coefficient of variation; all zero unless Status is ok.
	TimeNs    float64
	TimeMinNs float64
	TimeCV    float64
	Repeats   int
	// RefTimeNs is the median time of the kernel's reference configuration
	// on the same task and device; zero when unknown.
	RefTimeNs float64
	// LogSpeedup is ln(RefTimeNs/TimeNs); NaN (null in the file) unless
	// Status is ok and RefTimeNs is known.
	LogSpeedup float64
	CompileMs  float64
	// Error holds the reason for a failure (build log excerpt, limit hit).
	Error string
	// Runs are the timed runs, in nanoseconds, in the order they ran:
	// Repeats of them, whose median is TimeNs and minimum TimeMinNs. nil
	// where they were not kept: a row that is not ok, a file written
	// before the times_ns column existed, an imported row whose source
	// gives only a mean time (or imported before importers kept runs), or
	// a reader that did not ask for them (ReadOptions.Runs).
	Runs []int64
}
