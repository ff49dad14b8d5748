// Package collect is augur's measurement engine: it times configurations of
// a kernel family (datasets.Kernel) on an OpenCL device and writes one row
// per (task, config) to an Arrow file that train reads.
//
// Run works in this order, so that the device's time goes to measuring and
// nothing it cannot run is ever compiled:
//
//  1. query the device (collect/opencl);
//  2. per task, time the kernel's Reference configuration first; its median
//     time is the reference every other row's log_speedup is taken against;
//  3. prune configurations that break the device's limits (work-group size,
//     work-item sizes, local memory) before compiling them;
//  4. compile in a bounded worker pool, once per distinct program (pairs with
//     the same kernel.Options share one); on a GPU the pool compiles the next
//     batch while the device times the current one, on a CPU device it
//     compiles a batch and then stands idle while the batch is timed, because
//     compiler and kernel would otherwise share the cores;
//  5. run once (the run verified), keep running untimed, back to back, for
//     Options.WarmUp of device time (a GPU's first runs vary), then time
//     Repeats runs with profiling events;
//  6. verify the output against the kernel's plain-Go implementation;
//  7. write each row with collect/record as soon as it is measured, so that
//     a killed run loses at most the configuration in flight; the next run
//     recovers what it left (record.Recover) before resuming.
//
// A configuration that fails to compile, hits a resource limit, fails to
// launch, times out, computes a wrong answer or (under Supervise) kills the
// measuring process is recorded with that status: a failed measurement is
// data. Only infrastructure faults (no device, an
// unwritable directory, a cancelled context) make Run return an error, and
// even then the rows measured so far are kept in a properly closed file.
//
// Run resumes: rows already recorded for the same kernel version under the
// same directory are skipped, and their reference times reused. Measure
// times a list of configurations on one task without writing anything.
//
// OpenCL drivers keep every program's state until the process ends, so a
// long collection runs in child processes: Supervise starts a collect
// command again and again, each child stopping with status ExitMore after
// Options.MaxPrograms programs or Options.MaxGrowthBytes of growth, until
// one finishes. Each child reports the configuration it is about to
// measure (Options.Supervisor), so that one that kills it (a segmentation
// fault in the kernel) is recorded as a crash, and one whose kernel never
// finishes as a timeout, and another child goes on past it. StopOnSignals
// turns SIGINT, SIGTERM and SIGHUP into an orderly stop that Supervise
// passes on to the child.
//
// ListDevices and Benchmark describe the devices, WriteDeviceTable lists
// them; SummarizeKernels counts what each kernel family's space leaves on
// a device, and WriteKernelTable lists that.
package collect
