package features

import (
	"fmt"
	"math"

	"github.com/expr-lang/expr"
)

// exprOptions are opts and the options of every expr program features
// compiles (Space's constraints, ExprDeriver's definitions): % for
// floats, as Python's. expr's own % takes integers only, while Python's,
// which TranslatePython keeps as %, takes any numbers: Kernel Tuner's
// CLBlast GEMM constraints take the remainder of a true division,
// "KWG % ((MDIMC * NDIMC) / MDIMA) == 0", and ExprDeriver's variables are
// float64. Between integers, expr's % stays.
func exprOptions(opts ...expr.Option) []expr.Option {
	return append(opts,
		expr.Function("pymod", func(p ...any) (any, error) {
			a, aok := number(p[0])
			b, bok := number(p[1])
			if !aok || !bok {
				return nil, fmt.Errorf("%% of %T and %T", p[0], p[1])
			}
			return pyMod(a, b), nil
		},
			new(func(float64, float64) float64),
			new(func(int, float64) float64),
			new(func(float64, int) float64),
		),
		expr.Operator("%", "pymod"),
	)
}

// pyMod is Python's a % b: the remainder takes the sign of b, as Calc's %
// does. b = 0 gives NaN, which a constraint reads as false and a derived
// feature as 0.
func pyMod(a, b float64) float64 {
	m := math.Mod(a, b)
	if m != 0 && (m < 0) != (b < 0) {
		m += b
	}
	return m
}

// number returns v as a float64, for the ints and floats expr passes.
func number(v any) (float64, bool) {
	switch x := v.(type) {
	case int:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}
