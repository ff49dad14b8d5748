// Package importer converts measurements made by other auto-tuners into
// augur's Arrow dataset files, so that models can be trained and checked on
// data that augur did not collect.
//
// Two formats are read: Kernel Tuner cache files (ReadKernelTuner; gzip'ed
// or plain JSON, live files whose closing braces are missing included) and
// T4 results files (ReadT4; schema_version 1, another is refused with
// ErrVersion). A T1 kernel description (ReadT1) supplies the
// tuning space: parameters, default values and constraints, translated
// from Python into expr syntax by TranslatePython.
//
// Import ties them together: it reads each input file, fits its
// configurations to the space, picks a reference configuration (the spec's
// defaults, or the nearest valid configuration to them, as augur's own spec
// reader does: some published specs' defaults are invalid), computes
// times and log-speedups, and writes one dataset file per input with
// collect/record, at <Out>/<Kernel>/<platform slug>/import-<name>.arrow,
// all of them or none (an interrupt, through Import's context, removes
// what it wrote; Leftovers finds what a killed import left).
// A failed configuration stays a row, with the status the tuner gave it.
// A result the format does not define stays a failed row too, counted in
// the summary (FileSummary.Unrecognized): a failure string the format
// does not know ("CUDA error: out of resources") keeps its text as the
// row's error, with the status its words say (compile_error,
// resource_limit, timeout, verify_error, else launch_error), and a time
// that is not positive, or beyond record's bound, makes a launch_error
// saying so. A number written as a string ("5.9") is read as the number.
// An ok row keeps the tuner's timed runs (times_ns), each rounded to the
// nearest whole nanosecond (at least 1), and its summary (time_ns,
// time_min_ns, time_cv, repeats) is computed from those same rounded runs,
// so that the row agrees with itself; rounding moves a median by at most
// 0.5 ns. A configuration the file gives only a mean time for (an old
// Kernel Tuner cache without times, a T4 result without runtimes) keeps
// no runs: its summary is that mean, rounded the same way, as one run.
// Import reads a Kernel Tuner cache a token at a time, twice (once to
// count and pick the reference, once to write), so that its memory grows
// with the file by 8 to 16 bytes a row only: a 7.4 MB .json.gz of 804,000
// entries (750 MB of JSON) imported in 59 MB resident, where reading it
// whole took 4.8 GB (measured before the 8 bytes a row that find repeated
// configurations, 6.4 MB more for that file).
// Keeping the runs costs the writer's compression of them: a 71 MB
// .json.gz of 804,000 entries of 32 runs each (892 MB of JSON) imports in
// 113 MB, where it took 65 MB without them.
// Every part of the file that could make it hold much (a string, a
// nesting, an entry's fields or times, the declared values) is refused at
// a limit as it is read, and so is a file of over Options.MaxInputBytes
// decompressed (1 GiB unless raised: an *InputLimitError, which names it).
//
// The rows' task features are the problem size, then Options.TaskParams.
// The problem size is a Kernel Tuner cache's problem_size, else
// Options.Shape (T4 files name none), else the spec's ProblemSize.
// The problem sizes are named as the spec names them (its
// Augur.ProblemSizeNames; for a spec that augur's spec reader reads,
// problem_size_0, ... unless it names them), so that train --spec reads
// the rows; without names, width and height for two sizes and
// problem_size_0, ... otherwise.
//
// A parameter whose values are strings or numbers not all integers (a T1
// "string" or "float" parameter, a cache's list of either) is numbered 0,
// 1, ... in the spec's order, or without a spec in the cache's; the data
// keep the numbers, and conditions read a float parameter's values.
//
// An imported platform is the device table's entry for the device
// (Options.Platforms, looked up by the tuner's device name or
// Options.Device), with its queried and measured features, so that a
// fleet model tells the devices apart. A device the table lacks, or every
// device when Platforms is nil, is known by name only (PlatformOf):
// Platform.Name is the name, Vendor and Type are guessed from it (Type
// "gpu", "cpu" or "", unknown: a name that says neither is not taken for a
// GPU), and every numeric feature is zero (unknown), with a warning when a
// table was given.
package importer
