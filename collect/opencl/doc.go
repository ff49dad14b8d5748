// Package opencl is augur's only contact with OpenCL: it lists the devices
// of every platform, describes each as a features.Platform, and, through a
// Session (a context and a profiling command queue on one device), builds
// programs, binds datasets.Arg arguments to buffers, runs a kernel with a
// datasets.Launch and times it with profiling events, and reads the output
// back. Session.Bench measures what the queries cannot tell: global and
// local memory bandwidth, fp32 throughput and launch overhead.
//
// Failures are classified by Kind (see Error) so that collect can record a
// build error, a resource limit or a launch error as data instead of
// stopping. Every OpenCL object a Session hands out has a Release method;
// collect calls them all, so that a run over thousands of configurations
// does not grow.
//
// It wraps github.com/jgillich/go-opencl and adds a few lines of cgo for
// the queries that binding lacks (a kernel's local memory size).
package opencl
