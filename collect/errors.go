package collect

import "errors"

// ErrProgramLimit is wrapped by the error of a Run stopped by
// Options.MaxPrograms: an orderly stop with everything measured on disk,
// which a later Run resumes.
var ErrProgramLimit = errors.New("program limit reached")

// ErrReferenceFailed is wrapped by the error of a Run or Measure of a spec
// kernel (datasets.Kernel.FromSpec) whose reference configuration failed
// on a shape: every other configuration is verified against the
// reference's outputs, so nothing can be.
var ErrReferenceFailed = errors.New("the reference configuration failed; nothing to verify the others against")

// ErrNoShape is wrapped by the error of a Run whose every shape was
// skipped (its arguments could not be set up, say an image beyond the
// device's largest, or its reference failed) and that wrote no row.
var ErrNoShape = errors.New("every shape was skipped")

// ErrKernelStuck is wrapped by the error of a Run or Measure that stopped
// because a kernel outlasted its timeout and the wait for it: the
// configuration is recorded as a timeout, but OpenCL cannot stop a kernel,
// and what the process measured beside it would be timed wrong (on PoCL
// it would not run at all): the process is to end, which ends the kernel.
// A supervised process (Options.Supervisor) ends and Supervise starts
// another, which goes on past it; a process on its own says which
// configuration it was, and the next run goes on past it.
var ErrKernelStuck = errors.New("a kernel did not finish, and OpenCL cannot stop it")
