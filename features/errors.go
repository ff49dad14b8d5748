package features

import (
	"errors"
	"fmt"
)

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
	// ErrSignature is returned for a bundle whose detached signature is
	// missing, malformed, foreign or made over other bytes (VerifyBundle).
	ErrSignature = errors.New("features: bad signature")
	// ErrLimit is returned for a bundle that declares more than Limits
	// allow, before the work it would cost.
	ErrLimit = errors.New("features: over a limit")
)

// SyntaxError is returned for a Python expression that TranslatePython
// cannot translate. Pos is the byte offset of the offending token in Expr.
type SyntaxError struct {
	Expr string
	Pos  int
	Msg  string
}

// Error names the expression, the column (counted from 1) and the fault.
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("features: expression %q, column %d: %s", e.Expr, e.Pos+1, e.Msg)
}

// Unwrap makes a SyntaxError match ErrSyntax with errors.Is.
func (e *SyntaxError) Unwrap() error { return ErrSyntax }
