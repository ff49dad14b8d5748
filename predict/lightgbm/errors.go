package lightgbm

import (
	"errors"
	"fmt"
)

// SyntaxError is a problem in LightGBM text: a malformed line, a missing
// key, or a model that is well formed but not one Predict can evaluate
// (an index out of range, a cycle, a categorical split).
type SyntaxError struct {
	// Line is the 1-based line the problem is on, or that declares the
	// value found to be wrong (the "Tree=i" line for a tree's missing
	// key, the last line for truncated text, 1 for empty text).
	Line int
	// Msg says what is wrong, without the "lightgbm: line N: " prefix.
	Msg string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("lightgbm: line %d: %s", e.Line, e.Msg)
}

// ErrNotRegression is returned by Model.Regression for a model whose raw
// output is not a regression value: several classes, or an objective
// (binary, lambdarank, poisson, ...) whose score needs a link function.
var ErrNotRegression = errors.New("lightgbm: not a regression model")

// ErrInvalidModel is wrapped by the error Model.Write returns for a model
// it refuses to write, because Read would refuse the text.
var ErrInvalidModel = errors.New("lightgbm: invalid model")

// ErrNotMulticlass is returned by Model.Multiclass for a model that is not
// a multiclass classifier of the number of classes asked for.
var ErrNotMulticlass = errors.New("lightgbm: not a multiclass model")
