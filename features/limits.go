package features

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/parser"
)

// The limits on what a bundle, a kernel spec or an imported file may
// declare, in one place. They are checked before any work that grows with
// the declared sizes (building a space, compiling constraints, loading
// models), so that a hostile or broken file is refused at once with an
// error matching ErrLimit instead of hanging the loader. The trees' own
// limits, enforced by predict/lightgbm (a standard-library-only package)
// while it reads a model, are: lightgbm.MaxTrees 10,000 trees a model,
// MaxLeaves 65,536 leaves a tree, MaxDepth 256 splits from root to leaf,
// MaxNodes 4,194,304 nodes a model, MaxFeatures 4,096 features (measured
// largest: 350 trees, 605 leaves, depth 10, 44,268 nodes, 47 features).
// A dataset row's repeats are bounded by collect/record.MaxRepeats. Each
// limit sits
// far above the largest legitimate value measured (2026-11-26: the
// shipped and test bundles have 8 parameters of at most 4 values, 2
// constraints of at most 19 bytes, 47 features, 3 models, 350 trees of at
// most 605 leaves).
const (
	// MaxParams is the most tuning parameters a space may have.
	MaxParams = 64
	// MaxParamValues is the most values one parameter may have.
	MaxParamValues = 4096
	// MaxSpaceSize is the most configurations (the product of the
	// parameters' value counts) a space may have.
	MaxSpaceSize = 1 << 40
	// MaxConstraints is the most constraints a space may have.
	MaxConstraints = 256
	// MaxConstraintLen is the longest constraint expression, in bytes.
	MaxConstraintLen = 4096
	// MaxBundleFeatures is the most encoder features a bundle may list.
	MaxBundleFeatures = 4096
	// MaxBundleModels is the most models a bundle may hold.
	MaxBundleModels = 1024
)

// CheckSpaceLimits refuses, with an error matching ErrLimit, parameters and
// constraints beyond the limits above, before NewSpace does any work.
func CheckSpaceLimits(params []Param, constraints []string) error {
	if len(params) > MaxParams {
		return fmt.Errorf("%w: %d parameters, at most %d allowed", ErrLimit, len(params), MaxParams)
	}
	size := 1.0
	for _, p := range params {
		if len(p.Values) > MaxParamValues {
			return fmt.Errorf("%w: parameter %q has %d values, at most %d allowed", ErrLimit, p.Name, len(p.Values), MaxParamValues)
		}
		size *= float64(max(len(p.Values), 1))
	}
	if size > MaxSpaceSize || math.IsInf(size, 0) {
		return fmt.Errorf("%w: space of %.3g configurations, at most %d allowed", ErrLimit, size, int64(MaxSpaceSize))
	}
	if len(constraints) > MaxConstraints {
		return fmt.Errorf("%w: %d constraints, at most %d allowed", ErrLimit, len(constraints), MaxConstraints)
	}
	for i, c := range constraints {
		if len(c) > MaxConstraintLen {
			return fmt.Errorf("%w: constraint %d is %d bytes long, at most %d allowed", ErrLimit, i, len(c), MaxConstraintLen)
		}
	}
	return nil
}

// checkBundleLimits refuses a bundle that declares more than the limits
// allow, before its space is built or a model loaded.
func checkBundleLimits(b *Bundle) error {
	if err := CheckSpaceLimits(b.Params, b.Constraints); err != nil {
		return err
	}
	switch {
	case len(b.Features) > MaxBundleFeatures:
		return fmt.Errorf("%w: bundle lists %d features, at most %d allowed", ErrLimit, len(b.Features), MaxBundleFeatures)
	case len(b.Models) > MaxBundleModels:
		return fmt.Errorf("%w: bundle holds %d models, at most %d allowed", ErrLimit, len(b.Models), MaxBundleModels)
	case len(b.DerivedExprs) > MaxConstraints:
		return fmt.Errorf("%w: bundle has %d derived expressions, at most %d allowed", ErrLimit, len(b.DerivedExprs), MaxConstraints)
	}
	for i, e := range b.DerivedExprs {
		if len(e) > MaxConstraintLen {
			return fmt.Errorf("%w: bundle derived expression %d is %d bytes long, at most %d allowed", ErrLimit, i, len(e), MaxConstraintLen)
		}
		// Evaluated at every prediction: the same constructs as a
		// constraint's (which Calc, their fast evaluator, also takes).
		if _, body, ok := strings.Cut(e, "="); ok {
			if _, err := ExprNodes(strings.TrimSpace(body)); errors.Is(err, ErrLimit) {
				return fmt.Errorf("bundle derived expression %d: %w", i, err)
			}
		}
	}
	return nil
}

// MaxConstraintWork bounds the work NewSpace does evaluating a space's
// constraints before it answers: the sum over constraints of the
// expression's size (its syntax-tree nodes, ExprNodes) times the
// evaluations NewSpace makes of it (the combinations of the values of the
// parameters it names, when it tabulates them, else every raw
// configuration of a space small enough for its validity bitmap), times
// vmNodeCost for a constraint that Calc cannot compile. It is checked
// before any constraint is evaluated, so that a bundle with a costly
// constraint is refused at once instead of hanging its loader (issue 26:
// over 300 s). Measured (2026-11-28, 2-core dev VM, idle,
// BenchmarkNewSpaceAtWorkLimit, bench/RESULTS.md): about 2 ns a node
// evaluated by Calc and 12 ns by expr's VM, so the limit is about a
// quarter of a second of work (0.1 to 0.25 s under load in 2026-11-26's
// measure of the VM at a limit 8 times smaller). augur's largest space,
// CLTune's GEMM (1.3M raw configurations), needs 53 nodes times at most
// 54 combinations; the imported convolution_milo bundle about 0.1M; the
// benchmark hub's hotspot (4.4M raw configurations, a constraint of 23
// nodes over six parameters that is not tabulated) 102M.
const MaxConstraintWork = 1 << 27

// vmNodeCost is what a node evaluated by expr's VM counts in
// MaxConstraintWork, against 1 for Calc's.
const vmNodeCost = 8

// exprBuiltins are the functions a constraint may call: those that
// TranslatePython emits and augur's own kernels use, each of a cost
// independent of its arguments' values.
var exprBuiltins = map[string]bool{"min": true, "max": true, "abs": true, "int": true, "float": true, "floor": true, "ceil": true, "round": true,
	"bitand": true, "bitor": true, "bitxor": true, "bitnot": true, "bitshl": true, "bitshr": true}

// exprOperators are the binary operators a constraint may use; the range
// operator "..", which builds a list as long as its operands' values, and
// the string operators are not among them.
var exprOperators = map[string]bool{
	"+": true, "-": true, "*": true, "/": true, "%": true, "**": true, "^": true,
	"==": true, "!=": true, "<": true, ">": true, "<=": true, ">=": true,
	"and": true, "or": true, "&&": true, "||": true, "in": true, "not in": true,
}

// ExprNodes parses a constraint and returns its size in syntax-tree nodes,
// or an error matching ErrLimit when it uses a construct whose cost does
// not follow from its size: loops over lists (all, map, filter ...),
// ranges, closures, variables, member access, strings or maps. What is
// left (numbers, parameter names, arithmetic, comparisons, and, or, not,
// ?:, in over a list literal, and the calls of exprBuiltins) costs one
// step a node to evaluate.
func ExprNodes(src string) (int, error) {
	tree, err := parser.Parse(src)
	if err != nil {
		return 0, fmt.Errorf("%w: constraint %q: %v", ErrSyntax, src, err)
	}
	nodes := 0
	var bad string
	var visit func(n ast.Node)
	visit = func(n ast.Node) {
		if bad != "" || n == nil {
			return
		}
		nodes++
		switch n := n.(type) {
		case *ast.IdentifierNode, *ast.IntegerNode, *ast.FloatNode, *ast.BoolNode:
		case *ast.UnaryNode:
			visit(n.Node)
		case *ast.BinaryNode:
			if !exprOperators[n.Operator] {
				bad = "operator " + n.Operator
				return
			}
			visit(n.Left)
			visit(n.Right)
		case *ast.ConditionalNode:
			visit(n.Cond)
			visit(n.Exp1)
			visit(n.Exp2)
		case *ast.ArrayNode:
			for _, e := range n.Nodes {
				visit(e)
			}
		case *ast.BuiltinNode:
			if !exprBuiltins[n.Name] {
				bad = "function " + n.Name
				return
			}
			for _, a := range n.Arguments {
				visit(a)
			}
		case *ast.CallNode:
			id, ok := n.Callee.(*ast.IdentifierNode)
			if !ok || !exprBuiltins[id.Value] {
				bad = "a call of " + n.Callee.String()
				return
			}
			for _, a := range n.Arguments {
				visit(a)
			}
		default:
			bad = strings.TrimPrefix(fmt.Sprintf("%T", n), "*ast.")
		}
	}
	visit(tree.Node)
	if bad != "" {
		return 0, fmt.Errorf("%w: expression %q uses %s, whose cost does not follow from its length", ErrLimit, clip(src), bad)
	}
	return nodes, nil
}

// clip shortens s for an error message.
func clip(s string) string {
	if len(s) > 60 {
		return s[:57] + "..."
	}
	return s
}
