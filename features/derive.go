package features

import (
	"fmt"
	"math"
	"strings"
	"sync"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/vm"
)

// Deriver computes a kernel family's derived implementation features: pure
// functions of (task, configuration, platform) such as the number of
// work-groups, the fill of the last wave or the padding waste, which tell a
// tree model far more than the raw parameter values do. The trainer and the
// runtime call the same Deriver, and a bundle records its ID so that a model
// is never scored with other definitions than it was trained with.
type Deriver interface {
	// ID names the definitions and their version, e.g. "conv2d/1". It
	// changes whenever a definition changes.
	ID() string
	// Names lists the derived features, without the "derived." prefix.
	Names() []string
	// Derive writes len(Names()) values for (t, c) on the platform whose
	// vector (Platform.Vector) is pv into dst. It must not allocate: the
	// runtime calls it for every configuration it scores.
	Derive(dst []float64, t Task, c Config, pv []float64)
}

// A TaskDeriver is a Deriver whose first features depend on the task
// alone, such as a stencil's size in points and its density (Garvey and
// Abdelrahman's static features). A classifier, which picks a value before
// any configuration is known, takes those besides the task features.
type TaskDeriver interface {
	Deriver
	// TaskNames lists those features: the first len(TaskNames()) of
	// Names().
	TaskNames() []string
	// DeriveTask writes len(TaskNames()) values for t into dst: those that
	// Derive writes first, for any configuration and platform. It must not
	// allocate.
	DeriveTask(dst []float64, t Task)
}

// PlatformIndex returns the position of a platform feature (one of
// PlatformNames) in Platform.Vector, or -1.
func PlatformIndex(name string) int {
	for i, n := range platformNames {
		if n == name {
			return i
		}
	}
	return -1
}

// ExprDeriver derives features from expressions over the task features and
// the parameters, for kernels that have no Go definitions (imported Kernel
// Tuner spaces): "tile_x = block_size_x * tile_size_x". Expressions are
// evaluated with expr (github.com/expr-lang/expr) in float64 arithmetic.
type ExprDeriver struct {
	names []string
	exprs []string
	progs []*vm.Program
	// calcs are the same expressions compiled into closures (Calc), which
	// Derive uses, without allocating, when every one compiled; nil else.
	calcs []*Calc
	vars  sync.Pool // *[]float64 of len(keys), for calcs
	keys  []string  // task names, then parameter names: the env's keys in order
	id    string
	// envs holds evaluation environments, so that Derive neither
	// allocates nor shares one map between goroutines.
	envs sync.Pool
}

// NewExprDeriver compiles definitions of the form "name = expression" over
// the task features taskNames and the parameters of s.
func NewExprDeriver(defs []string, taskNames []string, s *Space) (*ExprDeriver, error) {
	d := &ExprDeriver{}
	d.keys = append(d.keys, taskNames...)
	for _, p := range s.Params {
		d.keys = append(d.keys, p.Name)
	}
	newEnv := func() any {
		env := make(map[string]any, len(d.keys))
		for _, k := range d.keys {
			env[k] = 0.0
		}
		return env
	}
	d.envs.New = newEnv
	env := newEnv().(map[string]any)
	seen := map[string]bool{}
	for _, def := range defs {
		name, body, ok := strings.Cut(def, "=")
		name, body = strings.TrimSpace(name), strings.TrimSpace(body)
		if !ok || name == "" || body == "" || strings.ContainsAny(name, " ,=;.\t") {
			return nil, fmt.Errorf("%w: derived feature %q, want \"name = expression\"", ErrSyntax, def)
		}
		if seen[name] {
			return nil, fmt.Errorf("%w: derived feature %q defined twice", ErrSyntax, name)
		}
		seen[name] = true
		prog, err := expr.Compile(body, exprOptions(expr.Env(env), expr.AsFloat64())...)
		if err != nil {
			return nil, fmt.Errorf("%w: derived feature %q: %v", ErrSyntax, name, err)
		}
		d.names = append(d.names, name)
		d.exprs = append(d.exprs, name+" = "+body)
		d.progs = append(d.progs, prog)
		if c, err := CompileCalc(body, d.keys); err == nil {
			d.calcs = append(d.calcs, c)
		}
	}
	if len(d.calcs) != len(d.progs) {
		d.calcs = nil // a construct Calc lacks: the interpreter serves
	}
	d.vars.New = func() any {
		v := make([]float64, len(d.keys))
		return &v
	}
	d.id = "expr/" + strings.Join(d.exprs, "; ")
	return d, nil
}

// ID returns "expr/" and the definitions.
func (d *ExprDeriver) ID() string { return d.id }

// Names returns the derived features' names.
func (d *ExprDeriver) Names() []string { return append([]string(nil), d.names...) }

// Definitions returns the "name = expression" lines, as a bundle stores them.
func (d *ExprDeriver) Definitions() []string { return append([]string(nil), d.exprs...) }

// Derive evaluates every expression. One that fails or is not finite (a
// division by zero) gives 0: NaN would take different branches in LightGBM,
// leaves and the flat evaluator. Derive is safe for concurrent use.
func (d *ExprDeriver) Derive(dst []float64, t Task, c Config, pv []float64) {
	if d.calcs != nil {
		p := d.vars.Get().(*[]float64)
		vars := *p
		for i, v := range t {
			vars[i] = float64(v)
		}
		for i, v := range c {
			vars[len(t)+i] = float64(v)
		}
		for i, calc := range d.calcs {
			f := calc.Eval(vars)
			if math.IsNaN(f) || math.IsInf(f, 0) {
				f = 0
			}
			dst[i] = f
		}
		d.vars.Put(p)
		return
	}
	env := d.envs.Get().(map[string]any)
	defer d.envs.Put(env)
	n := 0
	for _, v := range t {
		env[d.keys[n]] = float64(v)
		n++
	}
	for _, v := range c {
		env[d.keys[n]] = float64(v)
		n++
	}
	for i, p := range d.progs {
		out, err := vm.Run(p, env)
		f, ok := out.(float64)
		if err != nil || !ok || math.IsNaN(f) || math.IsInf(f, 0) {
			f = 0
		}
		dst[i] = f
	}
}
