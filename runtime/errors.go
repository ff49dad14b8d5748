package runtime

import (
	"errors"
	"fmt"
)

// Sentinel errors; the messages returned wrap them with the details.
var (
	// ErrShape is returned by Choose for a shape the kernel does not accept
	// (wrong length, or a value outside the kernel's task constraints).
	ErrShape = errors.New("runtime: bad shape")
	// ErrKernelVersion is returned by New (as a *KernelVersionError) for a
	// bundle trained on another version of a kernel family than the one
	// this augur holds (its source, tuning space or shape features
	// changed): the bundle's configurations and launch plans would not fit
	// the kernel.
	ErrKernelVersion = errors.New("runtime: bundle is for another kernel version; train again")
	// ErrWisdomVersion is returned by New for Options.Wisdom opened for
	// another kernel version than the bundle's: its records are of
	// configurations the bundle's kernel may not have.
	ErrWisdomVersion = errors.New("runtime: wisdom file is of another kernel version than the bundle; open a wisdom file of the bundle's version (Bundle.KernelVersion) at a new path")
	// ErrUntrusted is returned by New, with Options.TrustedKeys set, for
	// a bundle that no trusted key signed: unsigned, signed by another
	// key, or changed after signing. The error also matches
	// features.ErrSignature.
	ErrUntrusted = errors.New("runtime: bundle not signed by a trusted key")
)

// KernelVersionError is the error behind ErrKernelVersion.
type KernelVersionError struct {
	Kernel string
	// Bundle is the version the bundle records; Have this augur's own
	// kernel's, or Options.KernelVersion, the caller's.
	Bundle, Have string
}

func (e *KernelVersionError) Error() string {
	return fmt.Sprintf("runtime: bundle is for %s version %s, the kernel here is version %s; train again", e.Kernel, e.Bundle, e.Have)
}

// Is reports whether target is ErrKernelVersion.
func (e *KernelVersionError) Is(target error) bool { return target == ErrKernelVersion }

// shapeError is a shape the kernel refused: its message is the kernel's,
// which already names the package and the value, and it matches ErrShape
// as well as the kernel's own sentinel.
type shapeError struct{ err error }

func (e shapeError) Error() string { return e.err.Error() }

func (e shapeError) Unwrap() []error { return []error{ErrShape, e.err} }

// ErrUnknownDevice is wrapped by ResolveDevice's error for a name that
// neither the bundle's models nor the device table know.
var ErrUnknownDevice = errors.New("runtime: no device")
