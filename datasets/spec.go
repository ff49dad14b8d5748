package datasets

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/augur-tuning/augur/features"
)

// ErrSpec is wrapped by every error about a kernel spec file: its messages
// name the file and the field.
var ErrSpec = errors.New("datasets: bad kernel spec")

// DefaultAtol and DefaultRtol are the tolerances a spec kernel's outputs
// are compared with when the spec sets none: Kernel Tuner's atol and
// NumPy's rtol, which Kernel Tuner's allclose verification uses.
const (
	DefaultAtol = 1e-6
	DefaultRtol = 1e-5
)

// Limits on what a spec may declare, checked before any work: a spec is
// read by the runtime from a bundle, which may come from anywhere.
const (
	maxSpecBytes    = 1 << 20
	maxSpecParams   = 64
	maxSpecValues   = 4096
	maxSpecExprLen  = 4096
	maxSpecArgs     = 64
	maxSpecArgBytes = 1 << 31
)

// t1Spec is the part of a T1 tuning-format file (odgaard/TuningSchema) that
// describes an OpenCL kernel, with augur's extension object "Augur", which
// other T1 readers ignore.
type t1Spec struct {
	General struct {
		BenchmarkName string
	}
	ConfigurationSpace struct {
		TuningParameters []struct {
			Name    string
			Type    string
			Values  json.RawMessage
			Default json.RawMessage
		}
		Conditions []t1Condition
	}
	KernelSpecification t1Kernel
	Augur               *SpecExtension
}

// t1Condition is a condition of a T1 spec's ConfigurationSpace: an object
// with its Expression (T1's form) or the expression alone, a string (as
// Kernel Tuner's restrictions are written).
type t1Condition struct {
	Expression string
}

// UnmarshalJSON reads either form.
func (c *t1Condition) UnmarshalJSON(raw []byte) error {
	if len(raw) > 0 && raw[0] == '"' {
		return json.Unmarshal(raw, &c.Expression)
	}
	var obj struct{ Expression string }
	if err := json.Unmarshal(raw, &obj); err != nil {
		return fmt.Errorf("a condition is an object with an Expression or an expression string, got %s", raw)
	}
	c.Expression = obj.Expression
	return nil
}

// t1Kernel is a T1 file's KernelSpecification.
type t1Kernel struct {
	Language                     string
	CompilerOptions              []string
	KernelName                   string
	KernelFile                   string
	GlobalSizeType               string
	SharedMemory                 json.RawMessage
	GlobalSize, LocalSize        map[string]json.RawMessage
	GridDivX, GridDivY, GridDivZ []json.RawMessage
	ProblemSize                  []json.RawMessage
	Arguments                    []t1Arg
	ReferenceArguments           []t1RefArg
}

// SpecExtension is the "Augur" object of a kernel spec: what the T1 format
// has no field for. Every field may be left out.
type SpecExtension struct {
	// ProblemSizeNames names the ProblemSize entries, which are the
	// kernel's task (shape) features; default problem_size_0, ....
	ProblemSizeNames []string `json:",omitempty"`
	// Derived are derived features "name = expression" (Python syntax,
	// over the problem sizes and the parameters), besides the launch
	// geometry features every spec kernel has.
	Derived []string `json:",omitempty"`
	// Atol and Rtol are the verification tolerances (see Elem.Close);
	// nil means DefaultAtol and DefaultRtol.
	Atol, Rtol *float64 `json:",omitempty"`
	// Verify is how a configuration's outputs are compared with the
	// reference configuration's (Kernel.VerifyRule): "outputs" (the
	// default) every value, "sum" each output's sum, for a kernel whose
	// outputs differ by configuration but add up to the same (a
	// reduction's partial sums, one a work-group), "none" not at all
	// (timings only; a configuration that computes something else passes).
	Verify string `json:",omitempty"`
	// Shapes are more default shapes to collect, each a full problem
	// size, besides ProblemSize.
	Shapes [][]int `json:",omitempty"`
	// GroupParams are the parameters that set only the extent of a work
	// group (Kernel.GroupParams).
	GroupParams []string `json:",omitempty"`
	// Doc is a one-line description.
	Doc string `json:",omitempty"`
}

type t1Arg struct {
	Name       string
	Type       string
	Size       json.RawMessage
	FillType   string
	FillValue  json.RawMessage
	DataSource string
	RandomSeed *int64
	AccessType string
	MemoryType string
	Output     json.RawMessage
	// ChannelType is augur's: an image's OpenCL channel data type
	// (imageChannels).
	ChannelType string
}

type t1RefArg struct {
	Name       string
	TargetName string
	FillType   string
	FillValue  json.RawMessage
	DataSource string
}

// ReadSpec reads a kernel spec file (the T1 tuning format, Language
// OpenCL) and the kernel source it names (KernelFile, relative to the
// spec's directory), and returns the kernel.
func ReadSpec(path string) (*Kernel, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSpec, err)
	}
	if fi.Size() > maxSpecBytes {
		return nil, fmt.Errorf("%w %s: %d bytes, the limit is %d", ErrSpec, path, fi.Size(), maxSpecBytes)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSpec, err)
	}
	f, err := decodeSpec(path, data)
	if err != nil {
		return nil, err
	}
	if _, err := unknownFields(data); err != nil {
		return nil, fmt.Errorf("%w %s: %w", ErrSpec, path, err)
	}
	ks := &f.KernelSpecification
	if ks.KernelFile == "" {
		return nil, fmt.Errorf("%w %s: KernelSpecification.KernelFile is missing", ErrSpec, path)
	}
	dir := filepath.Dir(path)
	src, err := os.ReadFile(filepath.Join(dir, ks.KernelFile))
	if err != nil {
		return nil, fmt.Errorf("%w %s: KernelSpecification.KernelFile: %w", ErrSpec, path, err)
	}
	files := map[string][]byte{}
	for _, a := range ks.Arguments {
		if err := readSource(path, dir, a.FillType, a.DataSource, files); err != nil {
			return nil, err
		}
	}
	for _, a := range ks.ReferenceArguments {
		if err := readSource(path, dir, a.FillType, a.DataSource, files); err != nil {
			return nil, err
		}
	}
	return newSpecKernel(path, data, f, string(src), files)
}

// readSource reads an argument's BinaryRaw data file into files.
func readSource(path, dir, fill, source string, files map[string][]byte) error {
	if fill != "BinaryRaw" || source == "" {
		return nil
	}
	b, err := os.ReadFile(filepath.Join(dir, source))
	if err != nil {
		return fmt.Errorf("%w %s: DataSource: %w", ErrSpec, path, err)
	}
	files[source] = b
	return nil
}

// ParseSpec returns the kernel of a spec whose kernel source and data files
// are at hand (a bundle carries them): name stands for the file in errors.
func ParseSpec(name string, spec []byte, source string, files map[string][]byte) (*Kernel, error) {
	if len(spec) > maxSpecBytes {
		return nil, fmt.Errorf("%w %s: %d bytes, the limit is %d", ErrSpec, name, len(spec), maxSpecBytes)
	}
	f, err := decodeSpec(name, spec)
	if err != nil {
		return nil, err
	}
	return newSpecKernel(name, spec, f, source, files)
}

// jsonWhere is err, a JSON decoder's, with the line and column it stopped
// at where it says the byte offset.
func jsonWhere(data []byte, err error) string {
	var off int64
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		off = syn.Offset
	case errors.As(err, &typ):
		off = typ.Offset
	default:
		return err.Error()
	}
	off = min(max(off, 0), int64(len(data)))
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	// The offset is just past the byte the decoder stopped at.
	col := max(int(off)-bytes.LastIndexByte(data[:off], '\n')-1, 1)
	return fmt.Sprintf("line %d, column %d: %v", line, col, err)
}

func decodeSpec(name string, data []byte) (*t1Spec, error) {
	var f t1Spec
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("%w %s: not a JSON T1 spec: %s", ErrSpec, name, jsonWhere(data, err))
	}
	ks := &f.KernelSpecification
	// A field found missing may be one spelt wrong: name those too.
	missing := func(what string) error {
		w, _ := unknownFields(data)
		for k := range w {
			w[k] = strings.TrimSuffix(w[k], "; ignored")
		}
		if len(w) > 0 {
			what += " (" + strings.Join(w, "; ") + ")"
		}
		return fmt.Errorf("%w %s: %s", ErrSpec, name, what)
	}
	switch {
	case len(f.ConfigurationSpace.TuningParameters) == 0:
		return nil, missing("ConfigurationSpace.TuningParameters is missing or empty: not a T1 spec")
	case ks.Language == "":
		return nil, missing("KernelSpecification.Language is missing: not a T1 spec")
	case ks.Language != "OpenCL":
		return nil, fmt.Errorf("%w %s: KernelSpecification.Language is %q; augur runs OpenCL kernels only (augur import reads other languages' results)", ErrSpec, name, ks.Language)
	case ks.KernelName == "":
		return nil, missing("KernelSpecification.KernelName is missing")
	case len(ks.GlobalSize) == 0 || len(ks.GlobalSize["X"]) == 0:
		return nil, missing("KernelSpecification.GlobalSize.X is missing")
	case len(ks.LocalSize) == 0 || len(ks.LocalSize["X"]) == 0:
		return nil, missing("KernelSpecification.LocalSize.X is missing")
	case len(ks.ProblemSize) == 0:
		return nil, missing("KernelSpecification.ProblemSize is missing: it is the default shape")
	case len(ks.Arguments) == 0:
		return nil, missing("KernelSpecification.Arguments is missing")
	case len(ks.Arguments) > maxSpecArgs:
		return nil, fmt.Errorf("%w %s: KernelSpecification.Arguments has %d entries, the limit is %d", ErrSpec, name, len(ks.Arguments), maxSpecArgs)
	case len(f.ConfigurationSpace.TuningParameters) > maxSpecParams:
		return nil, fmt.Errorf("%w %s: ConfigurationSpace.TuningParameters has %d entries, the limit is %d", ErrSpec, name, len(f.ConfigurationSpace.TuningParameters), maxSpecParams)
	}
	switch ks.GlobalSizeType {
	case "", "OpenCL", "CUDA":
	default:
		return nil, fmt.Errorf("%w %s: KernelSpecification.GlobalSizeType is %q, want OpenCL or CUDA", ErrSpec, name, ks.GlobalSizeType)
	}
	return &f, nil
}

// sizeExpr is a compiled expression of the problem sizes and the
// parameters: a launch size, an argument size, a fill value.
type sizeExpr struct {
	field string // where the spec writes it, for errors
	src   string
	calc  *features.Calc
}

// specKernel is the behaviour of a kernel read from a spec.
type specKernel struct {
	file         string // the spec's name in errors
	params       []string
	taskNames    []string
	compilerOpts string // CompilerOptions, joined
	cudaGlobal   bool
	dims         int
	// implied are the macros Kernel Tuner defines besides the parameters
	// that the source names and no parameter or problem size does:
	// block_size_x..z (the work-group size), grid_size_x..z (the number
	// of work-groups) and kernel_tuner (1).
	implied []string
	// labels are each string or float parameter's values as the kernel
	// gets them, which its numbers 0, 1, ... stand for in configurations;
	// nil for other parameters. numbers holds the float parameters'.
	labels     [][]string
	numbers    map[string][]string
	global     [3]sizeExpr
	local      [3]sizeExpr
	griddiv    [3][]sizeExpr
	shared     *sizeExpr
	argList    []specArg
	atol, rtol float64
	verify     string // a Verify rule
	space      *features.Space
	ref        features.Config
	keys       []string  // task names, then parameters: the variables
	vars       sync.Pool // *[]float64 of len(keys)
}

// specArg is one kernel argument as the spec declares it.
type specArg struct {
	name      string
	kind      ArgKind
	elem      Elem
	lanes     int
	size      *sizeExpr // elements; nil for a scalar; a 2D or 3D image's width
	height    *sizeExpr // a 2D or 3D image's height; nil for other kinds
	depth     *sizeExpr // an Image3D's depth, an Image2DArray's images; nil for other kinds
	fill      string    // Constant, Random, BinaryRaw
	value     *sizeExpr // FillValue
	data      []byte    // BinaryRaw contents
	seed      *int64
	output    bool
	channel   string   // an image's channel data type (Arg.ChannelType)
	reference *specRef // the expected output, when the spec gives one
	// perConfig marks a scalar's FillValue or a buffer's Size that uses
	// the tuning parameters: a scalar or local buffer is set again for
	// every configuration (Kernel.ConfigArgs), a global buffer is
	// allocated for the largest configuration of the space.
	perConfig bool
}

type specRef struct {
	fill  string
	value *sizeExpr
	data  []byte
}

var problemSizeRef = regexp.MustCompile(`ProblemSize\s*\[\s*([0-9]+)\s*\]`)

// specBuilder turns a decoded spec into a Kernel, one step a method; each
// step's errors name the file and the field.
type specBuilder struct {
	file  string
	f     *t1Spec
	ks    *t1Kernel
	ext   *SpecExtension
	files map[string][]byte
	sk    *specKernel
	// warnings become Kernel.Warnings; defaulted holds the block-size
	// names given Kernel Tuner's defaults, warned of once.
	warnings  []string
	defaulted map[string]bool
	// noDefault names the parameters that have no Default.
	noDefault []string
}

// fail returns the one-line error of a field.
func (b *specBuilder) fail(field, format string, a ...any) error {
	// One line: expression errors quote the source with a caret below.
	msg, _, _ := strings.Cut(fmt.Sprintf(format, a...), "\n")
	return fmt.Errorf("%w %s: %s: %s", ErrSpec, b.file, field, msg)
}

// newSpecKernel builds the Kernel of a decoded spec.
func newSpecKernel(file string, raw []byte, f *t1Spec, source string, files map[string][]byte) (*Kernel, error) {
	b := &specBuilder{file: file, f: f, ks: &f.KernelSpecification, ext: f.Augur, files: files, defaulted: map[string]bool{}}
	// A spec read from a file refuses a misspelt Augur field (ReadSpec);
	// one a bundle carries is read as it was trained, with a warning.
	unknown, err := unknownFields(raw)
	if err != nil {
		unknown = append(unknown, err.Error())
	}
	for _, u := range unknown {
		b.warnings = append(b.warnings, file+": "+u)
	}
	if b.ext == nil {
		b.ext = &SpecExtension{}
	}
	b.sk = &specKernel{file: file, cudaGlobal: b.ks.GlobalSizeType == "CUDA", atol: DefaultAtol, rtol: DefaultRtol,
		compilerOpts: strings.Join(b.ks.CompilerOptions, " ")}
	if b.ext.Atol != nil {
		b.sk.atol = *b.ext.Atol
	}
	if b.ext.Rtol != nil {
		b.sk.rtol = *b.ext.Rtol
	}
	switch b.ext.Verify {
	case "", VerifyOutputs, VerifySum, VerifyNone:
		b.sk.verify = cmp.Or(b.ext.Verify, VerifyOutputs)
	default:
		return nil, b.fail("Augur.Verify", "%q: want %s, %s or %s", b.ext.Verify, VerifyOutputs, VerifySum, VerifyNone)
	}
	if !(b.sk.atol >= 0) || !(b.sk.rtol >= 0) {
		return nil, b.fail("Augur.Atol", "tolerances must be >= 0, got %g and %g", b.sk.atol, b.sk.rtol)
	}
	shape, err := b.shape()
	if err != nil {
		return nil, err
	}
	space, ref, err := b.space()
	if err != nil {
		return nil, err
	}
	b.sk.space, b.sk.ref = space, ref
	b.sk.keys = append(append([]string(nil), b.sk.taskNames...), b.sk.params...)
	b.sk.vars.New = func() any {
		v := make([]float64, len(b.sk.keys))
		return &v
	}
	for _, step := range []func() error{b.launch, b.arguments, b.references} {
		if err := step(); err != nil {
			return nil, err
		}
	}
	return b.kernel(raw, source, shape, space, ref)
}

// shape reads ProblemSize, the default shape, and names its entries.
func (b *specBuilder) shape() (features.Task, error) {
	sk, ks, ext := b.sk, b.ks, b.ext
	bad := b.fail
	shape := make(features.Task, len(ks.ProblemSize))
	for i, raw := range ks.ProblemSize {
		v, err := jsonInteger(raw)
		if err != nil || v <= 0 {
			return nil, bad(fmt.Sprintf("KernelSpecification.ProblemSize[%d]", i), "%s is not a positive integer", raw)
		}
		shape[i] = v
	}
	sk.taskNames = make([]string, len(shape))
	for i := range shape {
		sk.taskNames[i] = fmt.Sprintf("problem_size_%d", i)
	}
	if n := ext.ProblemSizeNames; n != nil {
		if len(n) != len(shape) {
			return nil, bad("Augur.ProblemSizeNames", "has %d names for %d ProblemSize entries", len(n), len(shape))
		}
		for i, name := range n {
			if !isIdent(name) {
				return nil, bad("Augur.ProblemSizeNames", "%q is not a name (letters, digits and _)", name)
			}
			sk.taskNames[i] = name
		}
	}
	return shape, nil
}

// space reads the tuning parameters, their defaults (the reference
// configuration) and the conditions.
func (b *specBuilder) space() (*features.Space, features.Config, error) {
	sk, f := b.sk, b.f
	bad := func(field, format string, a ...any) (*features.Space, features.Config, error) {
		return nil, nil, b.fail(field, format, a...)
	}
	var params []features.Param
	var ref features.Config
	strs := map[string]int{} // string values' numbers, for the conditions
	seen := map[string]bool{}
	for _, n := range sk.taskNames {
		seen[n] = true
	}
	for i, tp := range f.ConfigurationSpace.TuningParameters {
		field := fmt.Sprintf("ConfigurationSpace.TuningParameters[%d] (%s)", i, tp.Name)
		if !isIdent(tp.Name) {
			return bad(field, "Name %q is not a name (letters, digits and _)", tp.Name)
		}
		if seen[tp.Name] {
			return bad(field, "the name %q is used twice", tp.Name)
		}
		seen[tp.Name] = true
		values, err := ParseValues(tp.Values)
		if tp.Type == "string" || tp.Type == "float" && err != nil {
			// Numbered 0, 1, ...; a string is compared with string
			// literals in conditions, a float read as its number
			// (PythonNames).
			ch, err := ParseChoices(tp.Values, tp.Type == "float")
			if err != nil {
				return bad(field+".Values", "%v", err)
			}
			sk.labels = append(sk.labels, ch.Labels)
			values := make([]int, len(ch.Labels))
			for j, l := range ch.Labels {
				values[j] = j
				switch prev, ok := strs[l]; {
				case ch.Numeric:
				case ok && prev != j:
					strs[l] = -1 // two parameters number it apart: no condition may name it
				default:
					strs[l] = j
				}
			}
			if ch.Numeric {
				if sk.numbers == nil {
					sk.numbers = map[string][]string{}
				}
				sk.numbers[tp.Name] = ch.Labels
			}
			d := 0
			if t := bytes.TrimSpace(tp.Default); len(t) > 0 && string(t) != "null" {
				if d = ch.DefaultIndex(t); d < 0 {
					d = 0
					b.warnings = append(b.warnings, fmt.Sprintf("%s: %s.Default %s is not among the Values; %s, the first, serves", b.file, field, t, ch.Labels[0]))
				}
			} else {
				b.noDefault = append(b.noDefault, tp.Name)
			}
			params = append(params, features.Param{Name: tp.Name, Values: values})
			sk.params = append(sk.params, tp.Name)
			ref = append(ref, d)
			continue
		}
		sk.labels = append(sk.labels, nil)
		if err != nil {
			return bad(field+".Values", "%v", err)
		}
		if len(values) > maxSpecValues {
			return bad(field+".Values", "%d values, the limit is %d", len(values), maxSpecValues)
		}
		params = append(params, features.Param{Name: tp.Name, Values: values})
		sk.params = append(sk.params, tp.Name)
		d := values[0]
		if t := bytes.TrimSpace(tp.Default); len(t) > 0 && string(t) != "null" {
			ds, err := ParseValues(tp.Default)
			if err != nil || len(ds) != 1 {
				return bad(field+".Default", "%s is not one integer", tp.Default)
			}
			d = ds[0]
		} else {
			b.noDefault = append(b.noDefault, tp.Name)
		}
		if !slices.Contains(values, d) {
			// Kernel Tuner does not use the defaults; some published
			// specs' are not among the values.
			near := params[len(params)-1].Nearest(d)
			b.warnings = append(b.warnings, fmt.Sprintf("%s: %s.Default %d is not among the Values; %d, the nearest, serves", b.file, field, d, near))
			d = near
		}
		ref = append(ref, d)
	}
	var constraints []string
	for i, c := range f.ConfigurationSpace.Conditions {
		field := fmt.Sprintf("ConfigurationSpace.Conditions[%d]", i)
		if len(c.Expression) > maxSpecExprLen {
			return bad(field, "expression of %d bytes, the limit is %d", len(c.Expression), maxSpecExprLen)
		}
		e, err := features.TranslatePythonNames(c.Expression, features.PythonNames{Strings: usable(strs), Numbers: sk.numbers})
		if err != nil {
			return bad(field, "%v", err)
		}
		constraints = append(constraints, e)
	}
	space, err := features.NewSpace(params, constraints)
	if err != nil {
		field := "ConfigurationSpace"
		for i, c := range constraints { // which condition, when one alone fails
			if _, err1 := features.NewSpace(params, []string{c}); err1 != nil {
				field = fmt.Sprintf("ConfigurationSpace.Conditions[%d]", i)
				break
			}
		}
		return bad(field, "%v", err)
	}
	if len(b.noDefault) > 0 {
		b.warnings = append(b.warnings, fmt.Sprintf("%s: no Default for %s: the reference configuration, which every configuration is verified against and timed beside, takes their first values; give each parameter the Default a portable kernel would use",
			b.file, strings.Join(b.noDefault, ", ")))
	}
	if broken := space.Broken(ref); broken >= 0 {
		// Nor need the defaults meet the conditions: the nearest valid
		// configuration serves.
		near, ok := space.NearestValid(ref)
		none := true
		if !ok {
			space.Each(func(features.Config) bool { none = false; return false })
		}
		if !ok && none {
			return bad("ConfigurationSpace.Conditions", "the conditions leave no valid configuration of the %d the parameters' values make", space.RawSize())
		}
		if !ok {
			return bad("ConfigurationSpace.TuningParameters[].Default", "the defaults %s break the condition %s, and no valid configuration is near them", space.Format(ref), f.ConfigurationSpace.Conditions[broken].Expression)
		}
		var moved []string
		for i, p := range space.Params {
			if near[i] != ref[i] {
				moved = append(moved, fmt.Sprintf("%s %d -> %d", p.Name, ref[i], near[i]))
			}
		}
		b.warnings = append(b.warnings, fmt.Sprintf("%s: the Defaults break the condition %s; the reference every configuration is verified against and timed beside is the nearest valid configuration: %s",
			b.file, f.ConfigurationSpace.Conditions[broken].Expression, strings.Join(moved, ", ")))
		ref = near
	}
	return space, ref, nil
}

// compile reads the expression of a field over names: the problem sizes
// and the parameters, or the problem sizes alone.
func (b *specBuilder) compile(field string, raw json.RawMessage, names []string) (*sizeExpr, error) {
	sk, bad := b.sk, b.fail
	src, err := jsonExpr(raw)
	if err != nil {
		return nil, bad(field, "%v", err)
	}
	if len(src) > maxSpecExprLen {
		return nil, bad(field, "expression of %d bytes, the limit is %d", len(src), maxSpecExprLen)
	}
	for _, m := range problemSizeRef.FindAllStringSubmatch(src, -1) {
		if i, err := strconv.Atoi(m[1]); err != nil || i >= len(sk.taskNames) {
			return nil, bad(field, "%q: %s is out of range: ProblemSize has %d entries", src, m[0], len(sk.taskNames))
		}
	}
	written := src
	src = problemSizeRef.ReplaceAllStringFunc(src, func(m string) string {
		i, _ := strconv.Atoi(problemSizeRef.FindStringSubmatch(m)[1])
		return sk.taskNames[i]
	})
	// Kernel Tuner's thread-block names stand for its defaults (256, 1, 1)
	// where no parameter or problem size has the name.
	consts := map[string]int{}
	for i, name := range impliedMacros[:3] {
		if !slices.Contains(sk.keys, name) && regexp.MustCompile(`\b`+name+`\b`).MatchString(src) {
			consts[name] = []int{256, 1, 1}[i]
			if !b.defaulted[name] {
				b.defaulted[name] = true
				b.warnings = append(b.warnings, fmt.Sprintf("%s: %s names %s, which no parameter is: Kernel Tuner's default, %d, serves", b.file, field, name, consts[name]))
			}
		}
	}
	e, err := features.TranslatePythonNames(src, features.PythonNames{Consts: consts, Numbers: sk.numbers})
	if err != nil {
		return nil, bad(field, "%v", err)
	}
	calc, err := features.CompileCalc(e, names)
	if err != nil {
		msg, _, _ := strings.Cut(err.Error(), "\n")
		if len(names) == len(sk.taskNames) {
			msg += " (this field may use the problem sizes only)"
		}
		return nil, bad(field, "%q: %s", written, msg)
	}
	return &sizeExpr{field: field, src: src, calc: calc}, nil
}

// compileArg reads an argument's Size or FillValue: over the problem sizes
// alone when it can, else over the parameters too (perConfig).
func (b *specBuilder) compileArg(field string, raw json.RawMessage) (e *sizeExpr, perConfig bool, err error) {
	if e, err = b.compile(field, raw, b.sk.taskNames); err == nil {
		return e, false, nil
	}
	if e, err2 := b.compile(field, raw, b.sk.keys); err2 == nil {
		return e, true, nil
	}
	return nil, false, err
}

// launch reads the global and local sizes, the grid divisors and the
// local memory.
func (b *specBuilder) launch() error {
	sk, ks, bad, env := b.sk, b.ks, b.fail, b.sk.keys
	var err error
	axes := [3]string{"X", "Y", "Z"}
	for d, ax := range axes {
		g, l := ks.GlobalSize[ax], ks.LocalSize[ax]
		if len(g) == 0 && len(l) == 0 {
			continue
		}
		if d > sk.dims {
			return bad("KernelSpecification.GlobalSize."+ax, "given without %s", axes[d-1])
		}
		sk.dims = d + 1
		one := json.RawMessage(`1`)
		if len(g) == 0 {
			g = one
		}
		if len(l) == 0 {
			l = one
		}
		ge, err := b.compile("KernelSpecification.GlobalSize."+ax, g, env)
		if err != nil {
			return err
		}
		le, err := b.compile("KernelSpecification.LocalSize."+ax, l, env)
		if err != nil {
			return err
		}
		sk.global[d], sk.local[d] = *ge, *le
	}
	for d, divs := range [3][]json.RawMessage{ks.GridDivX, ks.GridDivY, ks.GridDivZ} {
		for i, raw := range divs {
			if d >= sk.dims {
				return bad(fmt.Sprintf("KernelSpecification.GridDiv%s", axes[d]), "the launch has %d dimensions", sk.dims)
			}
			e, err := b.compile(fmt.Sprintf("KernelSpecification.GridDiv%s[%d]", axes[d], i), raw, env)
			if err != nil {
				return err
			}
			sk.griddiv[d] = append(sk.griddiv[d], *e)
		}
	}
	if t := bytes.TrimSpace(ks.SharedMemory); len(t) > 0 && string(t) != "null" && string(t) != "0" {
		if sk.shared, err = b.compile("KernelSpecification.SharedMemory", ks.SharedMemory, env); err != nil {
			return err
		}
	}
	return nil
}

// arguments reads the kernel's arguments.
func (b *specBuilder) arguments() error {
	sk, ks, bad := b.sk, b.ks, b.fail
	var err error
	outputs := 0
	for i, a := range ks.Arguments {
		field := fmt.Sprintf("KernelSpecification.Arguments[%d] (%s)", i, a.Name)
		sa := specArg{name: a.Name, fill: a.FillType, seed: a.RandomSeed}
		if sa.name == "" {
			sa.name = fmt.Sprintf("arg%d", i)
		}
		var lanes int
		if _, image := imageKinds[a.MemoryType]; !image { // image reads an image's
			if sa.elem, lanes, err = ParseElem(a.Type); err != nil {
				return bad(field+".Type", "%v", err)
			}
		}
		sa.lanes = lanes
		switch a.MemoryType {
		case "Scalar":
			sa.kind = Scalar
			if lanes != 1 {
				return bad(field+".Type", "a scalar of %s is not supported", a.Type)
			}
			if len(a.FillValue) == 0 {
				return bad(field+".FillValue", "a scalar needs a value")
			}
			if sa.value, sa.perConfig, err = b.compileArg(field+".FillValue", a.FillValue); err != nil {
				return err
			}
		case "Vector", "Local":
			sa.kind = Buffer
			if a.MemoryType == "Local" {
				sa.kind = LocalMem
			}
			if len(a.Size) == 0 {
				return bad(field+".Size", "missing")
			}
			if sa.size, sa.perConfig, err = b.compileArg(field+".Size", a.Size); err != nil {
				return err
			}
			if sa.kind == LocalMem {
				break
			}
			if err := b.fill(field, a, &sa); err != nil {
				return err
			}
			sa.output = a.AccessType != "ReadOnly" && truthy(a.Output)
			if a.AccessType == "WriteOnly" && len(a.Output) == 0 {
				sa.output = true
			}
			if sa.output && sa.perConfig {
				return bad(field+".Size", "an output's size may not depend on the tuning parameters: its values are compared with the reference configuration's")
			}
		case "Image2D", "Image3D", "Image2DArray", "Image1DBuffer":
			if err := b.image(field, a, &sa); err != nil {
				return err
			}
		default:
			return bad(field+".MemoryType", "%q is not supported for OpenCL (Scalar, Vector, Local, Image2D, Image3D, Image2DArray or Image1DBuffer)", a.MemoryType)
		}
		if a.ChannelType != "" && !sa.kind.Image() {
			return bad(field+".ChannelType", "only an image (Image2D, Image3D, Image2DArray, Image1DBuffer) has a channel type")
		}
		if sa.output {
			outputs++
		}
		sk.argList = append(sk.argList, sa)
	}
	if outputs == 0 {
		return bad("KernelSpecification.Arguments", "no argument is an output (\"Output\": 1, or AccessType WriteOnly): nothing to verify")
	}
	return nil
}

// fill reads how a Vector or an image is filled: its FillType, and its
// FillValue or DataSource.
func (b *specBuilder) fill(field string, a t1Arg, sa *specArg) (err error) {
	switch a.FillType {
	case "Constant", "Random", "":
		if len(a.FillValue) > 0 {
			sa.value, err = b.compile(field+".FillValue", a.FillValue, b.sk.taskNames)
		}
		return err
	case "BinaryRaw":
		if sa.data = b.files[a.DataSource]; sa.data == nil {
			return b.fail(field+".DataSource", "BinaryRaw needs a DataSource file")
		}
		return nil
	}
	return b.fail(field+".FillType", "%q is not supported (Constant, Random or BinaryRaw)", a.FillType)
}

// imageKinds are the spec's memory types of images: each one's argument
// kind, and the sides its Size lists ("" for one number, the pixels).
var imageKinds = map[string]struct {
	kind  ArgKind
	sides string
}{
	"Image1DBuffer": {ImageBuffer, ""},
	"Image2D":       {Image2D, "[width, height]"},
	"Image3D":       {Image3D, "[width, height, depth]"},
	"Image2DArray":  {Image2DArray, "[width, height, images]"},
}

// imageElems are the lane types an image's pixel may have, by the names
// a spec gives them (OpenCL's and T1's).
var imageElems = map[string]string{"half": "half", "float": "float", "uchar": "uint8", "uint8": "uint8", "char": "int8", "int8": "int8",
	"ushort": "uint16", "uint16": "uint16", "short": "int16", "int16": "int16", "uint": "uint32", "uint32": "uint32", "int": "int32", "int32": "int32"}

// imageChannels are the OpenCL channel data types an image may have
// (cl_channel_type without CL_), each with its pixel's lane type. The
// normalized ones are read and written as floats (read_imagef: UNORM_INT8
// as 0 to 1), the integer ones as integers (read_imageui, read_imagei).
// The first listed for a lane type is its default.
var imageChannels = []struct{ name, elem string }{
	{"FLOAT", "float"}, {"HALF_FLOAT", "half"},
	{"UNORM_INT8", "uint8"}, {"UNSIGNED_INT8", "uint8"},
	{"SNORM_INT8", "int8"}, {"SIGNED_INT8", "int8"},
	{"UNORM_INT16", "uint16"}, {"UNSIGNED_INT16", "uint16"},
	{"SNORM_INT16", "int16"}, {"SIGNED_INT16", "int16"},
	{"UNSIGNED_INT32", "uint32"}, {"SIGNED_INT32", "int32"},
}

// imageType reads an image's pixel type: one channel of a lane type of
// imageElems (float, uchar, int...) or four ("float4", "uchar4", "uint4";
// "uint8x4" too).
func imageType(name string) (Elem, int, bool) {
	lanes := 1
	base, ok := imageElems[name]
	if !ok {
		if b, cut := strings.CutSuffix(name, "4"); cut {
			base, ok = imageElems[strings.TrimSuffix(b, "x")]
			lanes = 4
		}
	}
	if !ok {
		return Elem{}, 0, false
	}
	e, _, _ := ParseElem(base)
	return e, lanes, true
}

// imageChannel returns an image's channel data type: the one named (with
// or without CL_, in any case), which must hold the pixel's lane type, or
// the lane type's default.
func imageChannel(named string, e Elem) (string, error) {
	named = strings.TrimPrefix(strings.ToUpper(strings.TrimSpace(named)), "CL_")
	var fit []string
	for _, c := range imageChannels {
		if c.elem != e.Name {
			continue
		}
		if named == "" || named == c.name {
			return c.name, nil
		}
		fit = append(fit, c.name)
	}
	return "", fmt.Errorf("%q does not hold %s pixels (%s does: %s)", named, e.Name, e.Name, strings.Join(fit, " or "))
}

// image reads an Image2D argument (an image2d_t whose Size is [width,
// height] in pixels, read-only, or write-only when it is an output), an
// Image3D (an image3d_t of [width, height, depth] pixels, likewise; collect
// writes one only on a device with cl_khr_3d_image_writes), an
// Image2DArray (an image2d_array_t of [width, height, images]) or an
// Image1DBuffer (an image1d_buffer_t of Size pixels, likewise), of
// imageType's pixels. Each holds its data as a Vector does (a pixel's
// channels one after another, rows one after another, then slices); their
// sizes may use the problem sizes only, as an image is made once a shape.
func (b *specBuilder) image(field string, a t1Arg, sa *specArg) (err error) {
	bad, taskOnly := b.fail, b.sk.taskNames
	ik := imageKinds[a.MemoryType]
	sa.kind = ik.kind
	var ok bool
	if sa.elem, sa.lanes, ok = imageType(a.Type); !ok {
		return bad(field+".Type", "an image holds pixels of one or four float, half, uchar, char, ushort, short, uint or int (float4, uchar4...), not %q", a.Type)
	}
	if sa.channel, err = imageChannel(a.ChannelType, sa.elem); err != nil {
		return bad(field+".ChannelType", "%v", err)
	}
	switch {
	case a.AccessType == "ReadWrite":
		return bad(field+".AccessType", "an image is read_only or write_only in an OpenCL kernel, not ReadWrite")
	case a.AccessType == "ReadOnly":
	case truthy(a.Output) || a.AccessType == "WriteOnly" && len(a.Output) == 0:
		sa.output = true
	}
	sizes := []json.RawMessage{a.Size}
	if ik.sides != "" {
		if json.Unmarshal(a.Size, &sizes) != nil || len(sizes) != strings.Count(ik.sides, ",")+1 {
			return bad(field+".Size", "an %s's size is %s, got %s", a.MemoryType, ik.sides, a.Size)
		}
	}
	if len(sizes[0]) == 0 {
		return bad(field+".Size", "missing")
	}
	for i, raw := range sizes {
		e, err := b.compile(field+".Size", raw, taskOnly)
		if err != nil {
			return err
		}
		switch i {
		case 0:
			sa.size = e
		case 1:
			sa.height = e
		default:
			sa.depth = e
		}
	}
	return b.fill(field, a, sa)
}

// references reads what the spec expects of the outputs.
func (b *specBuilder) references() error {
	sk, ks, bad, taskOnly, files := b.sk, b.ks, b.fail, b.sk.taskNames, b.files
	var err error
	for i, r := range ks.ReferenceArguments {
		field := fmt.Sprintf("KernelSpecification.ReferenceArguments[%d] (%s)", i, r.Name)
		target := -1
		for j, a := range sk.argList {
			if a.name == r.TargetName && a.output {
				target = j
			}
		}
		if target < 0 {
			return bad(field+".TargetName", "%q is not an output argument", r.TargetName)
		}
		ref := &specRef{fill: r.FillType}
		switch r.FillType {
		case "Constant":
			if ref.value, err = b.compile(field+".FillValue", r.FillValue, taskOnly); err != nil {
				return err
			}
		case "BinaryRaw":
			if ref.data = files[r.DataSource]; ref.data == nil {
				return bad(field+".DataSource", "BinaryRaw needs a DataSource file")
			}
		default:
			return bad(field+".FillType", "%q is not supported (Constant or BinaryRaw)", r.FillType)
		}
		sk.argList[target].reference = ref
	}
	return nil
}

// kernel assembles the Kernel and checks that it launches its reference
// configuration on its default shapes.
func (b *specBuilder) kernel(raw []byte, source string, shape features.Task, space *features.Space, ref features.Config) (*Kernel, error) {
	sk, ks, ext, f, file, bad := b.sk, b.ks, b.ext, b.f, b.file, b.fail
	sk.implied = implies(source, sk.keys)
	if unused := sk.unused(source); len(unused) > 0 {
		b.warnings = append(b.warnings, fmt.Sprintf("%s: the kernel source (its #includes unread) and the sizes never name %s: every value builds and launches the same program, measured once for each", file, strings.Join(unused, ", ")))
	}
	derived, err := newSpecDeriver(sk, ext.Derived, space)
	if err != nil {
		return nil, bad("Augur.Derived", "%v", err)
	}
	name := f.General.BenchmarkName
	if name == "" {
		name = ks.KernelName
	}
	name = strings.ToLower(name)
	if !isIdent(strings.ReplaceAll(name, "-", "_")) {
		return nil, bad("General.BenchmarkName", "%q is not a name augur can file data under (letters, digits, _ and -)", name)
	}
	tasks := []features.Task{shape}
	for i, s := range ext.Shapes {
		if len(s) != len(shape) {
			return nil, bad(fmt.Sprintf("Augur.Shapes[%d]", i), "has %d sizes, ProblemSize %d", len(s), len(shape))
		}
		tasks = append(tasks, features.Task(s))
	}
	for _, g := range ext.GroupParams {
		if space.Param(g) < 0 {
			return nil, bad("Augur.GroupParams", "%q is not a tuning parameter", g)
		}
	}
	doc := ext.Doc
	if doc == "" {
		doc = fmt.Sprintf("%s from %s", ks.KernelName, filepath.Base(file))
	}
	k := &Kernel{
		Name:        name,
		Doc:         doc,
		Source:      source,
		Entry:       ks.KernelName,
		Space:       space,
		TaskNames:   sk.taskNames,
		Tasks:       tasks,
		Reference:   ref,
		Tolerance:   sk.atol,
		Derived:     derived,
		GroupParams: ext.GroupParams,
		Spec:        compactJSON(raw),
		SpecFiles:   b.files,
		Warnings:    b.warnings,
		impl:        sk,
	}
	for i, t := range tasks {
		if err := k.CheckTask(t); err != nil {
			if i == 0 {
				return nil, bad("KernelSpecification.ProblemSize", "%v", err)
			}
			return nil, bad(fmt.Sprintf("Augur.Shapes[%d]", i-1), "%v", err)
		}
	}
	if _, err := k.Geometry(shape, ref); err != nil {
		return nil, bad("KernelSpecification", "the reference configuration on ProblemSize: %v", err)
	}
	return k, nil
}

// fill writes t, then c (nil: zeros), into vars, in the order of keys.
func (sk *specKernel) fill(vars []float64, t features.Task, c features.Config) {
	for i, v := range t {
		vars[i] = float64(v)
	}
	n := len(t)
	for i := range sk.params {
		vars[n+i] = 0
		if c != nil {
			vars[n+i] = float64(c[i])
		}
	}
}

// with calls fn with vars filled for (t, c); c may be nil for the
// task-only expressions.
func (sk *specKernel) with(t features.Task, c features.Config, fn func(vars []float64)) {
	p := sk.vars.Get().(*[]float64)
	sk.fill(*p, t, c)
	fn(*p)
	sk.vars.Put(p)
}

// eval evaluates e over vars: finite, or an error naming the field.
func (e *sizeExpr) eval(vars []float64) (float64, error) {
	v := e.calc.Eval(vars)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%s %q is %g (a division by zero?)", e.field, e.src, v)
	}
	return v, nil
}

// size evaluates a size: a non-negative integer below 2^31.
func (e *sizeExpr) size(vars []float64) (int, error) {
	v, err := e.eval(vars)
	if err != nil {
		return 0, err
	}
	if v < 0 || v >= 1<<31 {
		return 0, fmt.Errorf("%s %q is %g: a size must be in [0, 2^31)", e.field, e.src, v)
	}
	return int(v), nil
}

// taskSize is e.size for a task-only expression.
func (sk *specKernel) taskSize(e *sizeExpr, t features.Task) (n int, err error) {
	sk.with(t, nil, func(vars []float64) { n, err = e.size(vars) })
	return n, err
}

// taskValue is e.eval for a task-only expression.
func (sk *specKernel) taskValue(e *sizeExpr, t features.Task) (v float64, err error) {
	sk.with(t, nil, func(vars []float64) { v, err = e.eval(vars) })
	return v, err
}

func (sk *specKernel) checkTask(t features.Task) error {
	for i, v := range t {
		if v <= 0 {
			return fmt.Errorf("%w: %s = %d, want > 0", ErrTask, sk.taskNames[i], v)
		}
	}
	total := 0
	for _, a := range sk.argList {
		if a.size == nil {
			continue
		}
		n, err := sk.argSize(a, t)
		if err != nil {
			return fmt.Errorf("%w: %w", ErrTask, err)
		}
		if b := n * a.lanes * a.elem.Size; b > maxSpecArgBytes-total {
			return fmt.Errorf("%w: argument %s needs %d bytes; the arguments may take 2 GiB in all", ErrTask, a.name, b)
		} else {
			total += b
		}
		if (a.kind == Buffer || a.kind == ImageBuffer) && n == 0 {
			return fmt.Errorf("%w: argument %s has size 0", ErrTask, a.name)
		}
		if len(a.data) > 0 && len(a.data) != n*a.lanes*a.elem.Size {
			return fmt.Errorf("%w: argument %s has %d bytes of data for %d elements of %d bytes", ErrTask, a.name, len(a.data), n*a.lanes, a.elem.Size)
		}
	}
	return nil
}

// options are the spec's CompilerOptions and a -D for every parameter, as
// Kernel Tuner defines them, then for each implied macro the source names
// (which makes the options, and so the program, depend on the shape when
// a grid size is among them).
func (sk *specKernel) options(t features.Task, c features.Config) string {
	var b strings.Builder
	b.WriteString(sk.compilerOpts)
	defineText := func(name, v string) {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString("-D" + name + "=" + v)
	}
	define := func(name string, v int) { defineText(name, strconv.Itoa(v)) }
	for i, v := range c {
		if l := sk.labels[i]; l != nil && v >= 0 && v < len(l) {
			defineText(sk.params[i], l[v]) // a string parameter's text
			continue
		}
		define(sk.params[i], v)
	}
	if len(sk.implied) == 0 {
		return b.String()
	}
	x, err := sk.extents(t, c)
	for _, name := range sk.implied {
		if name == "kernel_tuner" {
			define(name, 1)
			continue
		}
		if err != nil {
			continue // Geometry reports it
		}
		d := int(name[len(name)-1] - 'x')
		local, groups := 1, 1
		if d < x.l.Dims {
			local, groups = x.l.Local[d], x.l.Global[d]/x.l.Local[d]
		}
		if strings.HasPrefix(name, "block") {
			define(name, local)
		} else {
			define(name, groups)
		}
	}
	return b.String()
}

// unused returns the parameters of more than one value that neither source
// nor a size, launch or fill expression names.
func (sk *specKernel) unused(source string) []string {
	texts := []string{source}
	for d := 0; d < sk.dims; d++ {
		texts = append(texts, sk.global[d].src, sk.local[d].src)
		for _, e := range sk.griddiv[d] {
			texts = append(texts, e.src)
		}
	}
	if sk.shared != nil {
		texts = append(texts, sk.shared.src)
	}
	for _, a := range sk.argList {
		for _, e := range []*sizeExpr{a.size, a.value} {
			if e != nil {
				texts = append(texts, e.src)
			}
		}
	}
	var out []string
	for i, name := range sk.params {
		if len(sk.space.Params[i].Values) < 2 {
			continue
		}
		word := regexp.MustCompile(`\b` + name + `\b`)
		if !slices.ContainsFunc(texts, word.MatchString) {
			out = append(out, name)
		}
	}
	return out
}

// Choices are a string or float parameter's values as the kernel gets
// them ("fast", "0.5"), which configurations number 0, 1, ... in this
// order: T1's "Type": "string", or "float" of values not all integers.
type Choices struct {
	Labels []string
	// Numeric marks a float parameter's: its labels are numbers, which
	// conditions and sizes read, and which compare as numbers (1.50 is 1.5).
	Numeric bool
}

// ParseChoices reads a string (numeric false) or float parameter's values:
// a JSON list, or a string holding a Python list of literals. A string
// reaches the kernel as -D NAME=value, so it must be one word.
func ParseChoices(raw json.RawMessage, numeric bool) (Choices, error) {
	c := Choices{Numeric: numeric}
	var text string
	switch err := json.Unmarshal(raw, &text); {
	case err == nil:
		read := features.PythonStrings
		if numeric {
			read = features.PythonNumbers
		}
		if c.Labels, err = read(strings.TrimSpace(text)); err != nil {
			return c, err
		}
	case numeric:
		var list []json.Number
		if json.Unmarshal(raw, &list) != nil {
			return c, fmt.Errorf("%s is not a list of numbers", raw)
		}
		for _, n := range list {
			c.Labels = append(c.Labels, n.String())
		}
	default:
		if json.Unmarshal(raw, &c.Labels) != nil {
			return c, fmt.Errorf("%s is not a list of strings", raw)
		}
	}
	limit := maxSpecValues
	if numeric {
		limit = maxFloatValues // each condition naming it grows by a comparison a value
	}
	switch {
	case len(c.Labels) == 0:
		return c, fmt.Errorf("no values")
	case len(c.Labels) > limit:
		return c, fmt.Errorf("%d values, the limit is %d", len(c.Labels), limit)
	}
	for i, l := range c.Labels {
		if v, err := strconv.ParseFloat(l, 64); numeric && (err != nil || math.IsInf(v, 0) || math.IsNaN(v)) {
			return c, fmt.Errorf("value %s is not a finite number", l)
		}
		if !numeric && (l == "" || strings.ContainsAny(l, " \t\n\r\"'\\")) {
			return c, fmt.Errorf("value %q is not one word: it reaches the kernel as -D NAME=value", l)
		}
		if c.Index(l) < i {
			return c, fmt.Errorf("value %s is listed twice", l)
		}
	}
	return c, nil
}

// Index returns the place of v among the labels (compared as numbers for a
// float parameter's), or -1.
func (c Choices) Index(v string) int {
	if !c.Numeric {
		return slices.Index(c.Labels, v)
	}
	x, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return -1
	}
	return slices.IndexFunc(c.Labels, func(l string) bool { y, err := strconv.ParseFloat(l, 64); return err == nil && y == x })
}

// DefaultIndex returns the place of a T1 Default among the labels: a JSON
// string or number, quotes around it ignored; -1 when it is missing or none
// of them.
func (c Choices) DefaultIndex(def json.RawMessage) int {
	t := bytes.TrimSpace(def)
	var s string
	if json.Unmarshal(t, &s) != nil {
		s = string(t) // a JSON number, or null
	}
	return c.Index(strings.Trim(s, `'" `))
}

// maxFloatValues bounds a float parameter's values: each condition naming
// it grows by a comparison a value.
const maxFloatValues = 256

// usable returns strs less the strings that number differently in two
// parameters (marked -1).
func usable(strs map[string]int) map[string]int {
	out := make(map[string]int, len(strs))
	for k, v := range strs {
		if v >= 0 {
			out[k] = v
		}
	}
	return out
}

// impliedMacros are the macros Kernel Tuner defines for every kernel
// besides its parameters.
var impliedMacros = []string{"block_size_x", "block_size_y", "block_size_z", "grid_size_x", "grid_size_y", "grid_size_z", "kernel_tuner"}

// implies returns the implied macros that source names as a word and that
// are not among names (the parameters and problem sizes).
func implies(source string, names []string) []string {
	var out []string
	for _, m := range impliedMacros {
		if !slices.Contains(names, m) && regexp.MustCompile(`\b`+m+`\b`).MatchString(source) {
			out = append(out, m)
		}
	}
	return out
}

// extents are the launch of a configuration and what the geometry features
// need besides: the elements its groups cover and the size asked for.
type extents struct {
	l       Launch
	covered [3]float64 // elements the groups cover in each dimension
	asked   [3]float64 // GlobalSize's value in each dimension
}

func (sk *specKernel) geometry(t features.Task, c features.Config) (Launch, error) {
	x, err := sk.extents(t, c)
	return x.l, err
}

func (sk *specKernel) extents(t features.Task, c features.Config) (x extents, err error) {
	sk.with(t, c, func(vars []float64) { x, err = sk.extentsOf(vars) })
	return x, err
}

// extentsOf is extents over vars already filled.
func (sk *specKernel) extentsOf(vars []float64) (extents, error) {
	var x extents
	x.l.Dims = sk.dims
	for d := 0; d < sk.dims; d++ {
		g, err := sk.global[d].size(vars)
		if err != nil {
			return x, err
		}
		l, err := sk.local[d].size(vars)
		if err != nil {
			return x, err
		}
		if l <= 0 {
			return x, fmt.Errorf("%s %q is %d: a work-group size must be >= 1", sk.local[d].field, sk.local[d].src, l)
		}
		x.asked[d] = float64(g)
		var groups int
		switch {
		case len(sk.griddiv[d]) > 0:
			div := 1
			for i := range sk.griddiv[d] {
				v, err := sk.griddiv[d][i].size(vars)
				if err != nil {
					return x, err
				}
				if v <= 0 {
					return x, fmt.Errorf("%s %q is %d: a grid divisor must be >= 1", sk.griddiv[d][i].field, sk.griddiv[d][i].src, v)
				}
				div *= v
			}
			groups = (g + div - 1) / div
			x.covered[d] = float64(groups * div)
		case sk.cudaGlobal:
			groups = g
			x.covered[d] = float64(g * l)
			x.asked[d] = x.covered[d]
		default:
			groups = (g + l - 1) / l
			x.covered[d] = float64(groups * l)
		}
		if groups <= 0 {
			return x, fmt.Errorf("%s %q is %d: the launch has no work-groups", sk.global[d].field, sk.global[d].src, g)
		}
		x.l.Local[d], x.l.Global[d] = l, groups*l
	}
	if sk.shared != nil {
		n, err := sk.shared.size(vars)
		if err != nil {
			return x, err
		}
		x.l.LocalMemBytes = n
	}
	for _, a := range sk.argList {
		if a.kind == LocalMem {
			n, err := a.size.size(vars)
			if err != nil {
				return x, err
			}
			x.l.LocalMemBytes += n * a.lanes * a.elem.Size
		}
	}
	return x, nil
}

// args builds the arguments of a task. A Random fill draws uniformly from
// [0, FillValue) (FillValue 1 when not given; integers are truncated), from
// the argument's RandomSeed when the spec gives one, else from rng.
func (sk *specKernel) args(t features.Task, rng *rand.Rand) []Arg {
	out := make([]Arg, len(sk.argList))
	for i, a := range sk.argList {
		arg := Arg{Name: a.name, Kind: a.kind, Elem: a.elem, Output: a.output}
		switch a.kind {
		case Scalar, LocalMem:
			// The reference configuration's; ConfigArgs gives another's.
			arg = sk.configArg(a, t, sk.ref)
		case Buffer:
			n, _ := sk.argSize(a, t)
			arg.Bytes = make([]byte, n*a.lanes*a.elem.Size)
			sk.fillArg(a, t, rng, arg.Bytes)
		case Image2D, Image3D, Image2DArray, ImageBuffer:
			n, _ := sk.argSize(a, t)
			arg.Bytes = make([]byte, n*a.lanes*a.elem.Size)
			sk.fillArg(a, t, rng, arg.Bytes)
			arg.Channels, arg.ChannelType = a.lanes, a.channel
			arg.Width, arg.Height, arg.Depth = n, 1, 1
			if a.height != nil {
				dims, _ := sk.imageDims(a, t)
				arg.Width, arg.Height = dims[0], dims[1]
				if len(dims) == 3 {
					arg.Depth = dims[2]
				}
			}
		}
		out[i] = arg
	}
	return out
}

// checkDevice keeps a kernel that reads images off a device without them.
func (sk *specKernel) checkDevice(_ features.Config, p features.Platform) error {
	if p.ImageSupport {
		return nil
	}
	for _, a := range sk.argList {
		if a.kind.Image() {
			return fmt.Errorf("%w: argument %s is an image, and the device has no image support", ErrDevice, a.name)
		}
	}
	return nil
}

// fillArg fills bytes, a Vector's or an image's elements on t, as the
// spec says: from its data file, Random, or Constant.
func (sk *specKernel) fillArg(a specArg, t features.Task, rng *rand.Rand, bytes []byte) {
	n := len(bytes) / a.elem.Size
	v := 0.0
	if a.value != nil {
		v, _ = sk.taskValue(a.value, t)
	}
	switch a.fill {
	case "BinaryRaw":
		copy(bytes, a.data)
	case "Random":
		r := rng
		if a.seed != nil {
			r = rand.New(rand.NewPCG(uint64(*a.seed), 0))
		}
		if a.value == nil {
			v = 1
		}
		for j := 0; j < n; j++ {
			a.elem.Put(bytes, j, r.Float64()*v)
		}
	default:
		if v != 0 {
			for j := 0; j < n; j++ {
				a.elem.Put(bytes, j, v)
			}
		}
	}
}

// imageDims returns the sides of a 2D or 3D image (or an array of 2D
// images) on t: width and height in pixels and, for a 3D one, its depth
// (an array's images).
func (sk *specKernel) imageDims(a specArg, t features.Task) ([]int, error) {
	var dims []int
	n := 1
	for _, e := range []*sizeExpr{a.size, a.height, a.depth} {
		if e == nil {
			break
		}
		d, err := sk.taskSize(e, t)
		if err != nil {
			return nil, err
		}
		if d > maxSpecArgBytes || n*d > maxSpecArgBytes {
			return nil, fmt.Errorf("image %s of %s pixels is too large", a.name, SidesText(append(dims, d)))
		}
		dims, n = append(dims, d), n*max(d, 1)
	}
	if slices.Min(dims) <= 0 {
		return nil, fmt.Errorf("image %s is %s pixels", a.name, SidesText(dims))
	}
	return dims, nil
}

// SidesText writes an image's sides in pixels as "640 x 480".
func SidesText(sides []int) string {
	text := make([]string, len(sides))
	for i, v := range sides {
		text[i] = strconv.Itoa(v)
	}
	return strings.Join(text, " x ")
}

// argSize returns the elements of a Buffer or LocalMem argument on t (an
// image's pixels): for a size that depends on the parameters, the largest
// over the space, so that one allocation serves every configuration.
func (sk *specKernel) argSize(a specArg, t features.Task) (int, error) {
	if a.height != nil {
		dims, err := sk.imageDims(a, t)
		n := 1
		for _, d := range dims {
			n *= d
		}
		return n, err
	}
	if !a.perConfig {
		return sk.taskSize(a.size, t)
	}
	most := 0
	var err error
	sk.with(t, nil, func(vars []float64) {
		sk.space.Each(func(c features.Config) bool {
			for i, v := range c {
				vars[len(t)+i] = float64(v)
			}
			var n int
			if n, err = a.size.size(vars); err != nil {
				return false
			}
			most = max(most, n)
			return true
		})
	})
	return most, err
}

// configArg is a Scalar's or LocalMem's argument for (t, c).
func (sk *specKernel) configArg(a specArg, t features.Task, c features.Config) Arg {
	arg := Arg{Name: a.name, Kind: a.kind, Elem: a.elem}
	sk.with(t, c, func(vars []float64) {
		if a.kind == Scalar {
			v, _ := a.value.eval(vars)
			arg.Bytes = make([]byte, a.elem.Size)
			a.elem.Put(arg.Bytes, 0, v)
			return
		}
		n, _ := a.size.size(vars)
		arg.Len = n * a.lanes * a.elem.Size
	})
	return arg
}

// ConfigArgNames returns the names of the arguments ConfigValues gives,
// in argument order; nil when no argument depends on the configuration.
func (k *Kernel) ConfigArgNames() []string {
	sk, ok := k.impl.(*specKernel)
	if !ok {
		return nil
	}
	var out []string
	for _, a := range sk.argList {
		if a.perConfig && a.kind != Buffer {
			out = append(out, a.name)
		}
	}
	return out
}

// ConfigArgs returns the arguments of a spec kernel whose value depends on
// the configuration (a scalar's FillValue or a local buffer's Size over the
// tuning parameters), by their index among Args, for (t, c); nil when none
// do, and for a kernel that is not from a spec.
func (k *Kernel) ConfigArgs(t features.Task, c features.Config) map[int]Arg {
	sk, ok := k.impl.(*specKernel)
	if !ok {
		return nil
	}
	var out map[int]Arg
	for i, a := range sk.argList {
		if a.perConfig && a.kind != Buffer {
			if out == nil {
				out = map[int]Arg{}
			}
			out[i] = sk.configArg(a, t, c)
		}
	}
	return out
}

// ConfigValues returns, by argument name, the values that ConfigArgs sets
// for (t, c): a scalar's value, a local buffer's size in bytes. A launch
// plan carries them, so that a caller sets those arguments as collect
// did; nil when no argument depends on the configuration.
func (k *Kernel) ConfigValues(t features.Task, c features.Config) map[string]float64 {
	args := k.ConfigArgs(t, c)
	if args == nil {
		return nil
	}
	out := make(map[string]float64, len(args))
	for _, a := range args {
		if a.Kind == Scalar {
			out[a.Name] = a.Elem.At(a.Bytes, 0)
		} else {
			out[a.Name] = float64(a.Len)
		}
	}
	return out
}

// want is nil: a spec kernel's outputs are verified against its reference
// configuration's (Kernel.Expected gives what the spec itself expects).
func (sk *specKernel) want(features.Task, []Arg) []float32 { return nil }

func (sk *specKernel) work(features.Task) (flops, bytes float64) { return 0, 0 }

// SpecExpected returns, for each argument of a spec kernel's task, the
// output the spec's ReferenceArguments expect; nil where the spec gives
// none, and nil for a kernel that is not from a spec.
func (k *Kernel) SpecExpected(t features.Task) [][]byte {
	sk, ok := k.impl.(*specKernel)
	if !ok {
		return nil
	}
	out := make([][]byte, len(sk.argList))
	for i, a := range sk.argList {
		if a.reference == nil {
			continue
		}
		n, _ := sk.argSize(a, t) // an image's pixels
		n *= a.lanes
		b := make([]byte, n*a.elem.Size)
		if a.reference.data != nil {
			copy(b, a.reference.data)
		} else {
			v, _ := sk.taskValue(a.reference.value, t)
			for j := 0; j < n; j++ {
				a.elem.Put(b, j, v)
			}
		}
		out[i] = b
	}
	return out
}

// VerifyTolerance returns the absolute and relative tolerances outputs are
// compared with (Elem.Close): a spec's, else Tolerance relative.
func (k *Kernel) VerifyTolerance() (atol, rtol float64) {
	if sk, ok := k.impl.(*specKernel); ok {
		return sk.atol, sk.rtol
	}
	return 0, k.Tolerance
}

// ParamLabels returns what each value of the i-th tuning parameter stands
// for, value j's text at j, and whether the texts are numbers (a float
// parameter's), for a kernel spec's string and float parameters, which
// configurations number 0, 1, ... in the spec's order. It returns nil for
// a parameter whose values are the numbers themselves, as every parameter
// of augur's own kernels is, and for i out of range. The slice is the
// caller's own.
func (k *Kernel) ParamLabels(i int) (labels []string, numeric bool) {
	sk, ok := k.impl.(*specKernel)
	if !ok || i < 0 || i >= len(sk.labels) || sk.labels[i] == nil {
		return nil, false
	}
	return slices.Clone(sk.labels[i]), sk.numbers[sk.params[i]] != nil
}

// BundleParamLabels returns, for a bundle that carries a kernel spec, what
// the values of its string and float parameters stand for (ParamLabels,
// one slice a parameter, nil for the others); nil for a bundle with no
// spec, or one whose spec no longer parses.
func BundleParamLabels(b *features.Bundle) [][]string {
	if len(b.KernelSpec) == 0 {
		return nil
	}
	k, err := ParseSpec("the bundle's kernel spec", b.KernelSpec, b.KernelSource, b.SpecFiles)
	if err != nil {
		return nil
	}
	out := make([][]string, len(b.Params))
	for i := range out {
		out[i], _ = k.ParamLabels(i)
	}
	return out
}

// BundleConditions returns the conditions of the kernel spec a bundle
// carries as the spec writes them (its string parameters' values by their
// text, where the bundle's constraints number them); nil for a bundle
// with no spec, or one that does not parse.
func BundleConditions(b *features.Bundle) []string {
	var f t1Spec
	if len(b.KernelSpec) == 0 || json.Unmarshal(b.KernelSpec, &f) != nil {
		return nil
	}
	var out []string
	for _, c := range f.ConfigurationSpace.Conditions {
		out = append(out, c.Expression)
	}
	return out
}

// FormatConfig writes c as Space.Format does, but with each string
// parameter's value as its text (MODE=fast) rather than its number.
func (k *Kernel) FormatConfig(c features.Config) string {
	sk, ok := k.impl.(*specKernel)
	if !ok || !slices.ContainsFunc(sk.labels, func(l []string) bool { return l != nil }) {
		return k.Space.Format(c)
	}
	var b strings.Builder
	for i, p := range k.Space.Params {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(p.Name + "=")
		switch l := sk.labels[i]; {
		case i >= len(c):
		case l != nil && c[i] >= 0 && c[i] < len(l):
			b.WriteString(l[c[i]])
		default:
			b.WriteString(strconv.Itoa(c[i]))
		}
	}
	return b.String()
}

// NamedConfig returns c by parameter name, as a JSON report prints it:
// each value the number itself, a spec's string parameter's value as its
// text ("mul") and a float parameter's as its number (0.5) rather than the
// place either has among the parameter's values.
func (k *Kernel) NamedConfig(c features.Config) map[string]any {
	sk, _ := k.impl.(*specKernel)
	out := make(map[string]any, len(c))
	for i, p := range k.Space.Params {
		if i >= len(c) {
			break
		}
		out[p.Name] = c[i]
		if sk == nil || i >= len(sk.labels) || sk.labels[i] == nil || c[i] < 0 || c[i] >= len(sk.labels[i]) {
			continue
		}
		text := sk.labels[i][c[i]]
		out[p.Name] = text
		if sk.numbers[p.Name] != nil {
			if f, err := strconv.ParseFloat(text, 64); err == nil {
				out[p.Name] = f
			}
		}
	}
	return out
}

// ParseConfig reads a configuration as FormatConfig writes it ("WG=8,
// MODE=fast"): a spec's string and float parameters by their values' texts
// (a float compared as a number, 1.50 is 1.5), or by their numbers 0, 1,
// ... as data holds them; every other parameter as Space.Parse reads it.
func (k *Kernel) ParseConfig(text string) (features.Config, error) {
	sk, ok := k.impl.(*specKernel)
	if !ok {
		return k.Space.Parse(text)
	}
	pairs := strings.Split(text, ",")
	for j, pair := range pairs {
		name, value, found := strings.Cut(pair, "=")
		i := slices.IndexFunc(k.Space.Params, func(p features.Param) bool { return p.Name == strings.TrimSpace(name) })
		if !found || i < 0 || i >= len(sk.labels) || sk.labels[i] == nil {
			continue
		}
		value = strings.TrimSpace(value)
		at := slices.Index(sk.labels[i], value)
		if f, err := strconv.ParseFloat(value, 64); at < 0 && err == nil && sk.numbers[k.Space.Params[i].Name] != nil {
			at = slices.IndexFunc(sk.labels[i], func(l string) bool { g, err := strconv.ParseFloat(l, 64); return err == nil && g == f })
		}
		if at >= 0 {
			pairs[j] = name + "=" + strconv.Itoa(at)
		}
	}
	return k.Space.Parse(strings.Join(pairs, ","))
}

// How a configuration's outputs are verified against the reference's (see
// SpecExtension.Verify).
const (
	VerifyOutputs = "outputs"
	VerifySum     = "sum"
	VerifyNone    = "none"
)

// VerifyRule returns how a configuration's outputs are compared with the
// reference configuration's: VerifyOutputs, VerifySum or VerifyNone, as
// the spec's Augur.Verify says; VerifyOutputs for augur's own kernels.
func (k *Kernel) VerifyRule() string {
	if sk, ok := k.impl.(*specKernel); ok {
		return sk.verify
	}
	return VerifyOutputs
}

// FromSpec reports whether the kernel was read from a spec file: its
// outputs are then verified against its reference configuration's rather
// than a Go implementation's (Want is nil).
func (k *Kernel) FromSpec() bool {
	_, ok := k.impl.(*specKernel)
	return ok
}

// ParseValues reads a parameter's values or default: a JSON integer, a
// JSON list of them, or a string holding an integer or a Python expression
// of a list (features.PythonValues: "[16, 32]", "[2**i for i in range(6)]",
// "[1, 2] + list(range(32, 1025, 32))"), as the benchmark hub's T1 files
// write them.
func ParseValues(raw json.RawMessage) ([]int, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil, fmt.Errorf("missing")
	}
	var text string
	if json.Unmarshal(raw, &text) == nil {
		t := strings.TrimSpace(text)
		if n, err := strconv.Atoi(t); err == nil {
			return []int{n}, nil // a Default written as a string
		}
		out, err := features.PythonValues(t)
		if err != nil {
			return nil, err
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("no values in %q", text)
		}
		return out, nil
	}
	if n, err := jsonInteger(raw); err == nil {
		return []int{n}, nil
	}
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, fmt.Errorf("%s is not a list of integers", raw)
	}
	out := make([]int, 0, len(list))
	for _, v := range list {
		n, err := jsonInteger(v)
		if err != nil {
			return nil, fmt.Errorf("value %s is not an integer", v)
		}
		out = append(out, n)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no values")
	}
	return out, nil
}

// jsonInteger reads a JSON number that is an integer, or a string holding
// one.
func jsonInteger(raw json.RawMessage) (int, error) {
	switch string(bytes.TrimSpace(raw)) {
	case "true": // a bool parameter's value, as Python's True
		return 1, nil
	case "false":
		return 0, nil
	}
	var f float64
	if err := json.Unmarshal(raw, &f); err != nil {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return 0, fmt.Errorf("%s is not a number", raw)
		}
		n, err := strconv.Atoi(strings.TrimSpace(s))
		return n, err
	}
	if f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return 0, fmt.Errorf("%s is not an integer", raw)
	}
	return int(f), nil
}

// jsonExpr reads an expression field: a string, or a number.
func jsonExpr(raw json.RawMessage) (string, error) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if strings.TrimSpace(s) == "" {
			return "", fmt.Errorf("empty expression")
		}
		return s, nil
	}
	var f float64
	if err := json.Unmarshal(raw, &f); err != nil {
		return "", fmt.Errorf("%s is neither an expression string nor a number", raw)
	}
	return strconv.FormatFloat(f, 'g', -1, 64), nil
}

// truthy reads Output: 1, true or "1".
func truthy(raw json.RawMessage) bool {
	switch strings.Trim(string(bytes.TrimSpace(raw)), `"`) {
	case "1", "true", "True":
		return true
	}
	return false
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// Attach copies a spec kernel's spec, source and data files into b, so that
// the runtime rebuilds the kernel, and its launch plans, from the bundle
// alone. It fails when b's models were trained on another version of the
// kernel. A kernel not from a spec leaves b as it is.
func (k *Kernel) Attach(b *features.Bundle) error {
	if !k.FromSpec() {
		return nil
	}
	if v := k.Version(); b.KernelVersion != v {
		return fmt.Errorf("datasets: the bundle's models were trained on %s version %s; the spec and source give %s: collect again with this spec", k.Name, b.KernelVersion, v)
	}
	b.KernelSpec, b.KernelSource, b.SpecFiles = k.Spec, k.Source, k.SpecFiles
	return nil
}

// compactJSON returns raw in a canonical form (objects' keys sorted, no
// insignificant space, no HTML escapes), so that the spec a bundle carries,
// which the bundle's writer re-encodes, hashes as the file did.
func compactJSON(raw []byte) []byte {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return append([]byte(nil), raw...)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return append([]byte(nil), raw...)
	}
	return bytes.TrimSpace(b.Bytes())
}
