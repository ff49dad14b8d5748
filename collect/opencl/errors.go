package opencl

import (
	"errors"
	"fmt"

	"github.com/jgillich/go-opencl/cl"
)

// Kind classifies why a configuration could not be built or run.
type Kind int

const (
	// LaunchFailed is any failure to enqueue, run or read back a kernel
	// that is not a resource limit.
	LaunchFailed Kind = iota
	// BuildFailed means the program did not compile (Error.Log holds the
	// build log) or the entry point is missing.
	BuildFailed
	// ResourceLimit means the configuration asks for more than the device
	// or the compiled kernel allows: work-group size, work-item sizes,
	// local memory, or memory for buffers.
	ResourceLimit
	// TimedOut means the kernel did not finish before the context given
	// to Session.Run was done (its deadline passed or it was cancelled;
	// Error.Err says which). OpenCL cannot stop a running kernel, so the
	// session's queue stays behind it: see Session.Stuck.
	TimedOut
)

// String returns the kind's name.
func (k Kind) String() string {
	switch k {
	case BuildFailed:
		return "build failed"
	case ResourceLimit:
		return "resource limit"
	case TimedOut:
		return "timed out"
	default:
		return "launch failed"
	}
}

// Error is a failure of one OpenCL operation on one configuration.
type Error struct {
	Kind Kind
	// Op names the step that failed, such as "build" or "enqueue kernel".
	Op string
	// Log is the compiler's build log for BuildFailed, else empty.
	Log string
	// Err is the underlying go-opencl error, if any.
	Err error
}

// Error formats the failure as "opencl: op: cause".
func (e *Error) Error() string {
	switch {
	case e.Log != "":
		return fmt.Sprintf("opencl: %s: %s", e.Op, e.Log)
	case e.Err != nil:
		return fmt.Sprintf("opencl: %s: %v", e.Op, e.Err)
	default:
		return "opencl: " + e.Op
	}
}

// Unwrap returns the underlying go-opencl error.
func (e *Error) Unwrap() error { return e.Err }

// KindOf returns the Kind of err: the Kind of an *Error in its chain, or
// LaunchFailed for any other error.
func KindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return LaunchFailed
}

// wrap classifies a go-opencl error from step op. The codes that mean "the
// configuration asks too much" become ResourceLimit, so that collect can
// tell a limit of the device from a broken kernel.
func wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	kind := LaunchFailed
	switch {
	case errors.Is(err, cl.ErrInvalidWorkGroupSize),
		errors.Is(err, cl.ErrInvalidWorkItemSize),
		errors.Is(err, cl.ErrOutOfResources),
		errors.Is(err, cl.ErrMemObjectAllocationFailure):
		kind = ResourceLimit
	}
	return &Error{Kind: kind, Op: op, Err: err}
}
