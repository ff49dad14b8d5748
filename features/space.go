package features

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/vm"
)

// Param is one tuning parameter: a name and the integer values it may take,
// in the order a search walks them.
type Param struct {
	Name   string `json:"name"`
	Values []int  `json:"values"`
}

// index returns the position of v in p.Values, or -1.
func (p Param) index(v int) int {
	for i, x := range p.Values {
		if x == v {
			return i
		}
	}
	return -1
}

// Config is one point of a Space: a value for each parameter, in the order
// of Space.Params. Configs returned by augur may be shared; copy one before
// changing it.
type Config []int

// Clone returns a copy of c.
func (c Config) Clone() Config { return append(Config(nil), c...) }

// Equal reports whether c and d hold the same values.
func (c Config) Equal(d Config) bool {
	if len(c) != len(d) {
		return false
	}
	for i := range c {
		if c[i] != d[i] {
			return false
		}
	}
	return true
}

// maxBitmap is the largest raw space for which NewSpace precomputes the
// validity of every configuration (one bit each, 2 MiB at most), so that
// Valid costs an index computation instead of an expression evaluation.
const maxBitmap = 1 << 24

// Space is the set of valid configurations of a kernel: the product of its
// parameters' values, less the configurations that break a constraint.
// A Space is immutable after NewSpace and safe for concurrent use.
type Space struct {
	Params []Param
	// Constraints are boolean expressions over parameter names
	// (github.com/expr-lang/expr syntax: and, or, not, ==, %, ...);
	// a configuration is valid when every one is true.
	Constraints []string

	cons    []constraint
	strides []int
	size    int
	valid   []uint64 // bit i set when raw configuration i is valid; nil for huge spaces
	nValid  int
	// count is Len of a space too large for valid, counted once, when
	// first asked.
	countOnce sync.Once
	count     int
	// lut[k][v] is the position of value v in parameter k's values, or
	// -1; nil for a parameter with negative or large values. It makes
	// Valid, which every step of a climb calls, a few array reads.
	lut [][]int16
}

// lutMax bounds the values a parameter's look-up table covers.
const lutMax = 4096

// maxTable is the largest product of the domains of the parameters one
// constraint mentions for which NewSpace tabulates the constraint. A
// constraint is a pure function of the parameters it names, so it is
// evaluated once per combination of their values instead of once per
// configuration: CLTune's GEMM space has 1.3 million raw configurations
// but no constraint over more than 54 combinations.
const maxTable = 1 << 16

// constraint is one compiled constraint and what makes it cheap to check.
type constraint struct {
	prog *vm.Program
	// calc is prog compiled into closures over the space's parameters, in
	// order (CompileCalc), which evaluate it 7 to 8 times faster than the VM
	// runs prog (BenchmarkConstraintEval); nil when prog uses a construct
	// Calc lacks, and then prog runs.
	calc *Calc
	// params are the positions of the parameters it mentions, ascending.
	params []int
	// table[i] is its value for the combination of those parameters'
	// values whose mixed-radix index (over their domains) is i; nil when
	// the combinations exceed maxTable, and then prog is run.
	table   []bool
	tstride []int // tstride[j] is the stride of params[j] in table
}

// at reports whether the constraint holds for c, whose values have the
// positions idx in their domains. sc is written only by an untabulated
// constraint.
func (k *constraint) at(c Config, idx []int, params []Param, sc *scratch) bool {
	if k.table != nil {
		i := 0
		for j, p := range k.params {
			i += idx[p] * k.tstride[j]
		}
		return k.table[i]
	}
	return k.eval(c, params, sc)
}

// eval evaluates the constraint on c, by calc when it has one.
func (k *constraint) eval(c Config, params []Param, sc *scratch) bool {
	if k.calc != nil {
		if len(sc.vars) < len(params) {
			sc.vars = make([]float64, len(params))
		}
		for _, p := range k.params {
			sc.vars[p] = float64(c[p])
		}
		// Calc's comparisons and logic give 1 or 0.
		return k.calc.Eval(sc.vars) != 0
	}
	if sc.env == nil {
		sc.env = make(map[string]any, len(k.params))
	}
	for _, p := range k.params {
		sc.env[params[p].Name] = c[p]
	}
	return run(k.prog, sc.env)
}

// scratch is what evaluating untabulated constraints writes: Calc's
// variables, one a parameter, or the VM's environment. The zero value is
// ready; each is made when first needed.
type scratch struct {
	vars []float64
	env  map[string]any
}

// run evaluates a boolean program; an error counts as false.
func run(prog *vm.Program, env map[string]any) bool {
	out, err := vm.Run(prog, env)
	b, ok := out.(bool)
	return err == nil && ok && b
}

// NewSpace checks and compiles a space. Parameter names must be unique
// identifiers with at least one value each, values unique within a
// parameter, and constraints boolean expressions over the parameter names.
func NewSpace(params []Param, constraints []string) (*Space, error) {
	s := &Space{Params: params, Constraints: constraints, size: 1}
	env := map[string]any{}
	for i, p := range params {
		if p.Name == "" || strings.ContainsAny(p.Name, " ,=;.") {
			return nil, fmt.Errorf("%w: parameter %d has name %q, want an identifier", ErrSyntax, i, p.Name)
		}
		if _, dup := env[p.Name]; dup {
			return nil, fmt.Errorf("%w: parameter %q appears twice", ErrSyntax, p.Name)
		}
		if len(p.Values) == 0 {
			return nil, fmt.Errorf("%w: parameter %q has no values", ErrSyntax, p.Name)
		}
		for j, v := range p.Values {
			if p.index(v) != j {
				return nil, fmt.Errorf("%w: parameter %q lists %d twice", ErrSyntax, p.Name, v)
			}
		}
		env[p.Name] = 0
	}
	s.lut = make([][]int16, len(params))
	for k, p := range params {
		lo, hi := p.Values[0], p.Values[0]
		for _, v := range p.Values {
			lo, hi = min(lo, v), max(hi, v)
		}
		if lo >= 0 && hi < lutMax && len(p.Values) < 1<<15 {
			t := make([]int16, hi+1)
			for i := range t {
				t[i] = -1
			}
			for i, v := range p.Values {
				t[v] = int16(i)
			}
			s.lut[k] = t
		}
	}
	s.strides = make([]int, len(params))
	for i := len(params) - 1; i >= 0; i-- {
		s.strides[i] = s.size
		s.size *= len(params[i].Values)
		if s.size > 1<<40 {
			return nil, fmt.Errorf("%w: space has more than 2^40 configurations", ErrSyntax)
		}
	}
	progs := make([]*vm.Program, len(constraints))
	calcs := make([]*Calc, len(constraints))
	names := make([]string, len(params))
	for i, p := range params {
		names[i] = p.Name
	}
	work := 0
	for i, c := range constraints {
		nodes, err := ExprNodes(c)
		if err != nil {
			return nil, err
		}
		prog, err := expr.Compile(c, exprOptions(expr.Env(env), expr.AsBool())...)
		if err != nil {
			return nil, fmt.Errorf("%w: constraint %q: %v", ErrSyntax, c, err)
		}
		progs[i] = prog
		cost := vmNodeCost
		if calcs[i], err = CompileCalc(c, names); err == nil {
			cost = 1
		}
		work += cost * nodes * s.evaluations(prog)
		if work > MaxConstraintWork {
			return nil, fmt.Errorf("%w: constraints would take over %d steps to evaluate over the space (constraint %d of %d: %d nodes), at most %d allowed",
				ErrLimit, work, i+1, len(constraints), nodes, MaxConstraintWork)
		}
	}
	for i, prog := range progs {
		s.cons = append(s.cons, s.tabulate(prog, calcs[i]))
	}
	if s.size <= maxBitmap {
		s.valid = make([]uint64, (s.size+63)/64)
		s.walk(func(i int, _ Config) bool {
			s.valid[i/64] |= 1 << (i % 64)
			s.nValid++
			return true
		})
	}
	return s, nil
}

// mentions returns the positions of the parameters prog names, ascending,
// and the number of combinations of their values, capped at maxTable+1.
func (s *Space) mentions(prog *vm.Program) (params []int, combos int) {
	mentioned := map[string]bool{}
	ast.Find(prog.Node(), func(n ast.Node) bool {
		if id, ok := n.(*ast.IdentifierNode); ok {
			mentioned[id.Value] = true
		}
		return false
	})
	combos = 1
	for i, p := range s.Params {
		if mentioned[p.Name] {
			params = append(params, i)
			combos = min(combos*len(p.Values), maxTable+1)
		}
	}
	return params, combos
}

// evaluations bounds how many times NewSpace evaluates prog: once per
// combination when it tabulates prog, else, when the space is small
// enough for its validity bitmap, once per assignment of the parameters up
// to the last prog names (the walk's), else never (Valid evaluates it per
// call).
func (s *Space) evaluations(prog *vm.Program) int {
	params, combos := s.mentions(prog)
	switch {
	case combos <= maxTable:
		return combos
	case s.size > maxBitmap:
		return 0
	}
	n := 1
	for i := 0; i <= params[len(params)-1]; i++ {
		n *= len(s.Params[i].Values)
	}
	return n
}

// tabulate finds the parameters prog mentions and, when their values have
// few enough combinations, evaluates it (by calc, when not nil) on each of
// them.
func (s *Space) tabulate(prog *vm.Program, calc *Calc) constraint {
	k := constraint{prog: prog, calc: calc}
	var combos int
	k.params, combos = s.mentions(prog)
	if combos > maxTable {
		return k
	}
	k.tstride = make([]int, len(k.params))
	stride := 1
	for j := len(k.params) - 1; j >= 0; j-- {
		k.tstride[j] = stride
		stride *= len(s.Params[k.params[j]].Values)
	}
	k.table = make([]bool, combos)
	c := make(Config, len(s.Params))
	var sc scratch
	for i := range k.table {
		for j, p := range k.params {
			vals := s.Params[p].Values
			c[p] = vals[(i/k.tstride[j])%len(vals)]
		}
		k.table[i] = k.eval(c, s.Params, &sc)
	}
	return k
}

// walk calls fn with the raw index and the values of every valid
// configuration in mixed-radix order until fn returns false. It assigns the
// parameters one at a time and checks each constraint as soon as the last
// parameter it mentions has a value, so that a failing constraint skips
// every configuration that shares the failing values. The Config passed to
// fn is reused between calls.
func (s *Space) walk(fn func(raw int, c Config) bool) { s.walkNamed(nil, fn) }

// walkNamed is walk with the parameters that named does not mark held at
// their first value (all of them walked when named is nil).
func (s *Space) walkNamed(named []bool, fn func(raw int, c Config) bool) {
	n := len(s.Params)
	c := make(Config, n)
	idx := make([]int, n)
	// due[d] are the constraints decided once parameter d has a value.
	due := make([][]*constraint, n)
	var sc scratch
	for i := range s.cons {
		k := &s.cons[i]
		if len(k.params) == 0 {
			if !k.at(c, idx, s.Params, &sc) {
				return
			}
			continue
		}
		last := k.params[len(k.params)-1]
		due[last] = append(due[last], k)
	}
	var rec func(d, raw int) bool
	rec = func(d, raw int) bool {
		if d == n {
			return fn(raw, c)
		}
		vals := s.Params[d].Values
		if named != nil && !named[d] {
			vals = vals[:1]
		}
	next:
		for j, v := range vals {
			idx[d], c[d] = j, v
			for _, k := range due[d] {
				if !k.at(c, idx, s.Params, &sc) {
					continue next
				}
			}
			if !rec(d+1, raw+j*s.strides[d]) {
				return false
			}
		}
		return true
	}
	rec(0, 0)
}

// holds evaluates the constraints on c, whose values are all in their
// domains, and returns the index of the first that fails, or -1. It does
// not allocate unless a constraint is too large to tabulate.
func (s *Space) holds(c Config) int {
	if len(s.cons) == 0 {
		return -1
	}
	var buf [16]int
	idx := buf[:0]
	for k, p := range s.Params {
		idx = append(idx, s.position(k, p, c[k]))
	}
	var sc scratch
	for i := range s.cons {
		if !s.cons[i].at(c, idx, s.Params, &sc) {
			return i
		}
	}
	return -1
}

// position returns the position of v in the domain of parameter k (p), or
// -1.
func (s *Space) position(k int, p Param, v int) int {
	if t := s.lut[k]; t != nil {
		if v >= 0 && v < len(t) {
			return int(t[v])
		}
		return -1
	}
	return p.index(v)
}

// decode writes raw configuration i into c.
func (s *Space) decode(i int, c Config) {
	for k, p := range s.Params {
		c[k] = p.Values[(i/s.strides[k])%len(p.Values)]
	}
}

// Index returns the mixed-radix index of c among the space's raw
// configurations (0 <= Index < RawSize), or -1 when c has the wrong length
// or a value outside its parameter's domain. It does not allocate, so it
// serves as a map key for configurations of any length.
func (s *Space) Index(c Config) int {
	if len(c) != len(s.Params) {
		return -1
	}
	idx := 0
	for k, p := range s.Params {
		j := s.position(k, p, c[k])
		if j < 0 {
			return -1
		}
		idx += j * s.strides[k]
	}
	return idx
}

// RawSize is the number of configurations before constraints.
func (s *Space) RawSize() int { return s.size }

// Len is the number of valid configurations. For spaces larger than 2^24
// raw configurations it counts them, which takes a while.
func (s *Space) Len() int {
	if s.valid != nil {
		return s.nValid
	}
	s.countOnce.Do(func() { s.count = s.countValid() })
	return s.count
}

// countValid counts the valid configurations by walking only the
// parameters that some constraint names: each valid assignment of theirs
// goes with every combination of the others' values.
func (s *Space) countValid() int {
	named := make([]bool, len(s.Params))
	for _, k := range s.cons {
		for _, p := range k.params {
			named[p] = true
		}
	}
	free := 1
	for i, p := range s.Params {
		if !named[i] {
			free *= len(p.Values)
		}
	}
	n := 0
	s.walkNamed(named, func(int, Config) bool { n++; return true })
	return n * free
}

// Valid reports whether c is a configuration of the space: one value per
// parameter, each in its domain, and every constraint true. It does not
// allocate for spaces of up to 2^24 raw configurations.
func (s *Space) Valid(c Config) bool {
	i := s.Index(c)
	if i < 0 {
		return false
	}
	if s.valid != nil {
		return s.valid[i/64]&(1<<(i%64)) != 0
	}
	return s.holds(c) == -1
}

// Check is Valid with a reason: it returns nil for a valid configuration and
// otherwise an error naming the parameter or constraint at fault.
func (s *Space) Check(c Config) error {
	if len(c) != len(s.Params) {
		return fmt.Errorf("%w: configuration has %d values, space has %d parameters", ErrOutOfDomain, len(c), len(s.Params))
	}
	for k, p := range s.Params {
		if p.index(c[k]) < 0 {
			return fmt.Errorf("%w: %s=%d, want one of %v", ErrOutOfDomain, p.Name, c[k], p.Values)
		}
	}
	if i := s.holds(c); i >= 0 {
		return fmt.Errorf("%w: %s does not hold for %s", ErrConstraint, s.Constraints[i], s.Format(c))
	}
	return nil
}

// Each calls fn with every valid configuration in mixed-radix order (the
// last parameter varies fastest) until fn returns false. The Config passed
// to fn is reused between calls; clone it to keep it.
func (s *Space) Each(fn func(Config) bool) {
	s.walk(func(_ int, c Config) bool { return fn(c) })
}

// All returns every valid configuration.
func (s *Space) All() []Config {
	var out []Config
	s.Each(func(c Config) bool { out = append(out, c.Clone()); return true })
	return out
}

// Random returns a uniformly random valid configuration, or false when
// 10000 draws found none (an empty or very sparse space).
func (s *Space) Random(rng *rand.Rand) (Config, bool) {
	c := make(Config, len(s.Params))
	for try := 0; try < 10000; try++ {
		for k, p := range s.Params {
			c[k] = p.Values[rng.IntN(len(p.Values))]
		}
		if s.Valid(c) {
			return c, true
		}
	}
	return nil, false
}

// Sample returns n distinct valid configurations drawn uniformly without
// replacement, or all of them when the space has no more than n. A space
// of more than sampleListMax valid configurations is sampled without
// listing them (sampleLarge).
func (s *Space) Sample(rng *rand.Rand, n int) []Config {
	if size := s.Len(); size > sampleListMax && n < size {
		return s.sampleLarge(rng, n)
	}
	all := s.All()
	if n >= len(all) {
		return all
	}
	rng.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
	return all[:n]
}

// sampleListMax is the most valid configurations Sample lists (at about
// 100 bytes each) to draw from.
const sampleListMax = 1 << 20

// sampleLarge draws n distinct valid configurations uniformly: raw
// configurations drawn at random, the valid kept (each valid one as
// likely as another); should the valid ones be too rare for that, one
// walk over the space keeps a uniform reservoir of n (Vitter's algorithm
// R). Its memory is n configurations either way.
func (s *Space) sampleLarge(rng *rand.Rand, n int) []Config {
	out := make([]Config, 0, n)
	seen := make(map[int]bool, n)
	c := make(Config, len(s.Params))
	for try := 0; try < 64*n+10000 && len(out) < n; try++ {
		raw := 0
		for k, p := range s.Params {
			j := rng.IntN(len(p.Values))
			c[k], raw = p.Values[j], raw+j*s.strides[k]
		}
		if !seen[raw] && s.Valid(c) {
			seen[raw] = true
			out = append(out, c.Clone())
		}
	}
	if len(out) == n {
		return out
	}
	out, i := out[:0], 0
	s.Each(func(c Config) bool {
		if i < n {
			out = append(out, c.Clone())
		} else if j := rng.IntN(i + 1); j < n {
			out[j] = c.Clone()
		}
		i++
		return true
	})
	return out
}

// Param returns the index of the named parameter, or -1.
func (s *Space) Param(name string) int {
	for i, p := range s.Params {
		if p.Name == name {
			return i
		}
	}
	return -1
}

// WithSmaller returns the valid configurations of ran and every valid
// configuration that differs from one of them only in smaller values of
// the parameters named (unknown names are skipped), each once, ran's
// first. With a kernel's work-group parameters (datasets.Kernel
// .GroupParams) these are the configurations that need no more of a
// device than ones that ran on it.
func (s *Space) WithSmaller(ran []Config, names []string) []Config {
	var idx []int
	for _, name := range names {
		if i := s.Param(name); i >= 0 {
			idx = append(idx, i)
		}
	}
	seen := make(map[int]bool, len(ran))
	var out []Config
	add := func(c Config) {
		if i := s.Index(c); i >= 0 && !seen[i] && s.Valid(c) {
			seen[i] = true
			out = append(out, c.Clone())
		}
	}
	for _, c := range ran {
		add(c)
	}
	var walk func(c Config, j int)
	walk = func(c Config, j int) {
		if j == len(idx) {
			add(c)
			return
		}
		k, top := idx[j], c[idx[j]]
		for _, v := range s.Params[k].Values {
			if v <= top {
				c[k] = v
				walk(c, j+1)
			}
		}
		c[k] = top
	}
	if len(idx) > 0 {
		for _, c := range out[:len(out):len(out)] {
			walk(c.Clone(), 0)
		}
	}
	return out
}

// Format writes c as "name=value,name=value".
func (s *Space) Format(c Config) string { return FormatConfig(s.Params, c) }

// FormatConfig writes c, a configuration of params, as
// "name=value,name=value": Space.Format without a Space.
func FormatConfig(params []Param, c Config) string {
	var b strings.Builder
	for i, p := range params {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(p.Name)
		b.WriteByte('=')
		if i < len(c) {
			b.WriteString(strconv.Itoa(c[i]))
		}
	}
	return b.String()
}

// Parse reads a configuration written as "name=value,..." naming every
// parameter once, and checks it against the space.
func (s *Space) Parse(text string) (Config, error) {
	kv, err := parsePairs(text)
	if err != nil {
		return nil, err
	}
	c := make(Config, len(s.Params))
	for i, p := range s.Params {
		v, ok := kv[p.Name]
		if !ok {
			return nil, fmt.Errorf("%w: configuration %q lacks %s", ErrSyntax, text, p.Name)
		}
		c[i] = v
		delete(kv, p.Name)
	}
	for name := range kv {
		return nil, fmt.Errorf("%w: parameter %q", ErrUnknownName, name)
	}
	if err := s.Check(c); err != nil {
		return nil, err
	}
	return c, nil
}
