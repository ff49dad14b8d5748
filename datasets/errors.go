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
	// ErrUnknownKernel is returned by Lookup for a name that is not one of
	// augur's kernel families (an imported kernel, a typo).
	ErrUnknownKernel = errors.New("datasets: unknown kernel")
	// ErrNoBehaviour is returned by a Kernel method that its family does
	// not define (a Kernel literal has no launch geometry).
	ErrNoBehaviour = errors.New("datasets: kernel does not define this")
	// ErrDevice is returned by CheckDevice for a configuration that needs
	// a feature the device lacks (image memory, a vendor's build option).
	ErrDevice = errors.New("datasets: configuration not supported by the device")
)
