package features

import "errors"

// Sentinel errors; the messages returned wrap them with the details.
var (
	// ErrUnknownName is returned for a parameter or task feature that a
	// space does not have.
	ErrUnknownName = errors.New("features: unknown name")
	// ErrOutOfDomain is returned for a parameter value that is not one of
	// the parameter's values.
	ErrOutOfDomain = errors.New("features: value not in domain")
	// ErrConstraint is returned for a configuration that breaks one of the
	// space's constraints.
	ErrConstraint = errors.New("features: constraint violated")
	// ErrSyntax is returned by the parsers for malformed text.
	ErrSyntax = errors.New("features: syntax error")
	// ErrChecksum is returned for a bundle whose contents do not match its
	// checksum: a damaged or edited file.
	ErrChecksum = errors.New("features: bad checksum")
	// ErrDerived is returned when a bundle's derived features are not the
	// definitions at hand.
	ErrDerived = errors.New("features: derived features differ")
)
