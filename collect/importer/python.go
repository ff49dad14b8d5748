package importer

import (
	"errors"

	"github.com/augur-tuning/augur/features"
)

// TranslatePython rewrites a Python constraint expression, as Kernel Tuner
// and T1 files write them, into the expr-lang syntax of features.Space
// (features.TranslatePython); a failure is a *SyntaxError.
func TranslatePython(src string) (string, error) {
	return translate(src, nil, nil, nil)
}

// translate is TranslatePython with names replaced by constants, so that a
// parameter moved into the task can leave the constraints that mention it,
// string literals by the numbers strs gives them (Spec.Labels), and float
// parameters by their values (Spec.Numbers).
func translate(src string, consts, strs map[string]int, numbers map[string][]string) (string, error) {
	out, err := features.TranslatePythonNames(src, features.PythonNames{Consts: consts, Strings: strs, Numbers: numbers})
	var se *features.SyntaxError
	if errors.As(err, &se) {
		return "", &SyntaxError{Expr: se.Expr, Pos: se.Pos, Msg: se.Msg}
	}
	return out, err
}
