package collect

import "errors"

// ErrProgramLimit is wrapped by the error of a Run stopped by
// Options.MaxPrograms: an orderly stop with everything measured on disk,
// which a later Run resumes.
var ErrProgramLimit = errors.New("program limit reached")
