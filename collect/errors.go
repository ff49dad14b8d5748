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
