package importer

import (
	"errors"
	"fmt"
)

// ErrFormat is returned, wrapped with the details, for input that is not a
// file of the format it was read as: malformed JSON, a missing field or a
// value of the wrong type. A result the format does not define (an
// unknown failure string, a time no run can take) is no error but a
// failed row (Measurement.Unrecognized).
var ErrFormat = errors.New("importer: malformed input")

// ErrNoResults is returned, with the file's name, for an input without a
// single result (Kernel Tuner's "cache": {}, T4's "results": []): there is
// nothing to import, and Import writes nothing.
var ErrNoResults = errors.New("importer: no results")

// ErrVersion is returned, wrapped with the version read and the versions
// read, for a file of a format version the readers do not read.
var ErrVersion = errors.New("importer: unsupported format version")

// SyntaxError is returned for a Python constraint expression that cannot be
// translated. Pos is the byte offset of the offending token in Expr.
type SyntaxError struct {
	Expr string
	Pos  int
	Msg  string
}

// Error names the expression, the column (counted from 1) and the fault.
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("importer: constraint %q, column %d: %s", e.Expr, e.Pos+1, e.Msg)
}

// Unwrap makes a SyntaxError match ErrFormat with errors.Is.
func (e *SyntaxError) Unwrap() error { return ErrFormat }
