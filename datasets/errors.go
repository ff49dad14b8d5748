package datasets

import "errors"

// Sentinel errors; the messages returned wrap them with the details.
var (
	// ErrTask is returned for a shape that a kernel family cannot run,
	// such as an even filter size or an image too small.
	ErrTask = errors.New("datasets: invalid shape")
	// ErrConfig is returned for a configuration that is not in a kernel's
	// space.
	ErrConfig = errors.New("datasets: invalid configuration")
)
