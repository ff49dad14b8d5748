package features

import (
	"fmt"
	"math"

	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/parser"
)

// Calc is an arithmetic expression over named float64 variables, compiled
// once into Go closures so that evaluating it neither allocates nor
// interprets: a spec kernel's launch sizes are evaluated for every
// configuration the runtime scores. It takes the expr syntax that
// TranslatePython writes: numbers, names, parentheses, + - * / % ** ^,
// comparisons, and/or/not (&&, ||, !), cond ? a : b, x in [list], and
// the functions int, float, floor, ceil, round, abs, min and max.
// Booleans are 1 and 0; % is Python's (the sign of the divisor); division
// by zero gives an infinity or NaN, which the caller checks for.
type Calc struct {
	src string
	f   func(vars []float64) float64
}

// CompileCalc compiles src over the variables names; Eval takes their
// values in that order. An unknown name or a construct outside the subset
// is an error wrapping ErrSyntax.
func CompileCalc(src string, names []string) (*Calc, error) {
	tree, err := parser.Parse(src)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSyntax, err)
	}
	index := make(map[string]int, len(names))
	for i, n := range names {
		index[n] = i
	}
	f, err := compileNode(tree.Node, index)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSyntax, err)
	}
	return &Calc{src: src, f: f}, nil
}

// Eval returns the expression's value for vars, one value a name in the
// order CompileCalc was given.
func (c *Calc) Eval(vars []float64) float64 { return c.f(vars) }

// String returns the source.
func (c *Calc) String() string { return c.src }

type calcFn = func(vars []float64) float64

func truth(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func compileNode(n ast.Node, index map[string]int) (calcFn, error) {
	switch n := n.(type) {
	case *ast.IntegerNode:
		v := float64(n.Value)
		return func([]float64) float64 { return v }, nil
	case *ast.FloatNode:
		v := n.Value
		return func([]float64) float64 { return v }, nil
	case *ast.BoolNode:
		v := truth(n.Value)
		return func([]float64) float64 { return v }, nil
	case *ast.IdentifierNode:
		i, ok := index[n.Value]
		if !ok {
			return nil, fmt.Errorf("unknown name %s", n.Value)
		}
		return func(v []float64) float64 { return v[i] }, nil
	case *ast.UnaryNode:
		x, err := compileNode(n.Node, index)
		if err != nil {
			return nil, err
		}
		switch n.Operator {
		case "-":
			return func(v []float64) float64 { return -x(v) }, nil
		case "+":
			return x, nil
		case "!", "not":
			return func(v []float64) float64 { return truth(x(v) == 0) }, nil
		}
		return nil, fmt.Errorf("unsupported operator %s", n.Operator)
	case *ast.BinaryNode:
		return compileBinary(n, index)
	case *ast.ConditionalNode:
		c, err := compileNode(n.Cond, index)
		if err != nil {
			return nil, err
		}
		a, err := compileNode(n.Exp1, index)
		if err != nil {
			return nil, err
		}
		b, err := compileNode(n.Exp2, index)
		if err != nil {
			return nil, err
		}
		return func(v []float64) float64 {
			if c(v) != 0 {
				return a(v)
			}
			return b(v)
		}, nil
	case *ast.BuiltinNode:
		return compileCall(n.Name, n.Arguments, index)
	case *ast.CallNode:
		if id, ok := n.Callee.(*ast.IdentifierNode); ok {
			return compileCall(id.Value, n.Arguments, index)
		}
	}
	return nil, fmt.Errorf("unsupported expression %s", n)
}

func compileBinary(n *ast.BinaryNode, index map[string]int) (calcFn, error) {
	x, err := compileNode(n.Left, index)
	if err != nil {
		return nil, err
	}
	if n.Operator == "in" || n.Operator == "not in" {
		arr, ok := n.Right.(*ast.ArrayNode)
		if !ok {
			return nil, fmt.Errorf("%s needs a list", n.Operator)
		}
		var items []calcFn
		for _, e := range arr.Nodes {
			f, err := compileNode(e, index)
			if err != nil {
				return nil, err
			}
			items = append(items, f)
		}
		want := n.Operator == "in"
		return func(v []float64) float64 {
			a := x(v)
			for _, f := range items {
				if f(v) == a {
					return truth(want)
				}
			}
			return truth(!want)
		}, nil
	}
	y, err := compileNode(n.Right, index)
	if err != nil {
		return nil, err
	}
	switch n.Operator {
	case "+":
		return func(v []float64) float64 { return x(v) + y(v) }, nil
	case "-":
		return func(v []float64) float64 { return x(v) - y(v) }, nil
	case "*":
		return func(v []float64) float64 { return x(v) * y(v) }, nil
	case "/":
		return func(v []float64) float64 { return x(v) / y(v) }, nil
	case "%":
		return func(v []float64) float64 {
			a, b := x(v), y(v)
			m := math.Mod(a, b)
			if m != 0 && (m < 0) != (b < 0) {
				m += b
			}
			return m
		}, nil
	case "**", "^":
		return func(v []float64) float64 { return math.Pow(x(v), y(v)) }, nil
	case "==":
		return func(v []float64) float64 { return truth(x(v) == y(v)) }, nil
	case "!=":
		return func(v []float64) float64 { return truth(x(v) != y(v)) }, nil
	case "<":
		return func(v []float64) float64 { return truth(x(v) < y(v)) }, nil
	case "<=":
		return func(v []float64) float64 { return truth(x(v) <= y(v)) }, nil
	case ">":
		return func(v []float64) float64 { return truth(x(v) > y(v)) }, nil
	case ">=":
		return func(v []float64) float64 { return truth(x(v) >= y(v)) }, nil
	case "and", "&&":
		return func(v []float64) float64 { return truth(x(v) != 0 && y(v) != 0) }, nil
	case "or", "||":
		return func(v []float64) float64 { return truth(x(v) != 0 || y(v) != 0) }, nil
	}
	return nil, fmt.Errorf("unsupported operator %s", n.Operator)
}

func compileCall(name string, args []ast.Node, index map[string]int) (calcFn, error) {
	var fs []calcFn
	for _, a := range args {
		f, err := compileNode(a, index)
		if err != nil {
			return nil, err
		}
		fs = append(fs, f)
	}
	one := func(op func(float64) float64) (calcFn, error) {
		if len(fs) != 1 {
			return nil, fmt.Errorf("%s takes one argument, got %d", name, len(fs))
		}
		f := fs[0]
		return func(v []float64) float64 { return op(f(v)) }, nil
	}
	switch name {
	case "int":
		return one(math.Trunc)
	case "float":
		return one(func(x float64) float64 { return x })
	case "floor":
		return one(math.Floor)
	case "ceil":
		return one(math.Ceil)
	case "round":
		return one(math.Round)
	case "abs":
		return one(math.Abs)
	case "bitnot":
		return one(func(x float64) float64 {
			if a, ok := integer(x); ok {
				return float64(^a)
			}
			return math.NaN()
		})
	case "bitand", "bitor", "bitxor", "bitshl", "bitshr":
		if len(fs) != 2 {
			return nil, fmt.Errorf("%s takes two arguments, got %d", name, len(fs))
		}
		// As Python's: integers only, shifts by a count >= 0, a left
		// shift past 64 bits as large as a float holds it. NaN otherwise.
		op := map[string]func(a, b int64) float64{
			"bitand": func(a, b int64) float64 { return float64(a & b) },
			"bitor":  func(a, b int64) float64 { return float64(a | b) },
			"bitxor": func(a, b int64) float64 { return float64(a ^ b) },
			"bitshl": func(a, b int64) float64 {
				if b < 0 {
					return math.NaN()
				}
				return math.Ldexp(float64(a), int(min(b, 4096)))
			},
			"bitshr": func(a, b int64) float64 {
				if b < 0 {
					return math.NaN()
				}
				return float64(a >> min(b, 63))
			},
		}[name]
		x, y := fs[0], fs[1]
		return func(v []float64) float64 {
			a, ok := integer(x(v))
			b, ok2 := integer(y(v))
			if !ok || !ok2 {
				return math.NaN()
			}
			return op(a, b)
		}, nil
	case "min", "max":
		if len(fs) < 1 {
			return nil, fmt.Errorf("%s takes one argument or more", name)
		}
		pick := math.Min
		if name == "max" {
			pick = math.Max
		}
		return func(v []float64) float64 {
			r := fs[0](v)
			for _, f := range fs[1:] {
				r = pick(r, f(v))
			}
			return r
		}, nil
	}
	return nil, fmt.Errorf("unsupported function %s", name)
}

// integer returns x as an int64 when it is a whole number within range.
func integer(x float64) (int64, bool) {
	if x != math.Trunc(x) || math.Abs(x) >= 1<<63 {
		return 0, false
	}
	return int64(x), true
}
