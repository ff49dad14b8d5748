package datasets

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"

	"github.com/augur-tuning/augur/features"
)

// ArgKind says how collect passes a kernel argument.
type ArgKind int

const (
	// Input is a read-only global float buffer filled from Arg.Data.
	Input ArgKind = iota
	// Output is a write-only global float buffer of Arg.Len floats; it is
	// read back and compared with the reference implementation's result.
	Output
	// Int32 is a scalar int argument holding Arg.Int.
	Int32
	// Image2D is a 2D image (image2d_t) of single-channel floats
	// (CL_R, CL_FLOAT), Arg.Width x Arg.Height, filled row by row from
	// Arg.Data; or, when Arg.Bytes is set, of pixels of Arg.Channels (1 or
	// 4: CL_R or CL_RGBA) values of Arg.Elem (float: CL_FLOAT; uint8:
	// CL_UNORM_INT8), as a spec's image is. It is read-only unless
	// Arg.Output marks it written: collect then creates it write-only,
	// reads it back and compares it as an output Buffer. On a device without image support collect binds a dummy
	// buffer instead, which the kernel declares in place of the image when
	// __IMAGE_SUPPORT__ is not defined; the family's CheckDevice keeps any
	// configuration that reads the image off such a device.
	Image2D
	// ImageBuffer is a 1D image buffer (image1d_buffer_t) of single-channel
	// floats over Arg.Data (or pixels of Arg.Bytes, as an Image2D's),
	// bound like Image2D: read-only, or, marked Output, write-only and
	// read back through the buffer it views.
	ImageBuffer
	// Float32 is a scalar float argument holding Arg.Float.
	Float32
	// Buffer is a global buffer of any element type (Arg.Elem) holding
	// Arg.Bytes, as a kernel spec declares its vectors. When Arg.Output is
	// set, collect restores Arg.Bytes before each configuration, reads the
	// buffer back after its first run and compares it with the reference
	// configuration's.
	Buffer
	// Scalar is a by-value argument of type Arg.Elem whose little-endian
	// bytes are Arg.Bytes.
	Scalar
	// LocalMem is a __local buffer of Arg.Len bytes.
	LocalMem
	// Image3D is a 3D image (image3d_t) of Arg.Width x Arg.Height x
	// Arg.Depth pixels of Arg.Bytes, as an Image2D's, filled row by row
	// and slice by slice; read-only, or write-only and read back as an
	// output Image2D is, on a device with cl_khr_3d_image_writes.
	Image3D
	// Image2DArray is an array of Arg.Depth 2D images (image2d_array_t)
	// of Arg.Width x Arg.Height pixels each, held and bound as an Image3D
	// is (writing one needs no extension).
	Image2DArray
)

// Image reports whether an argument of kind k is an image.
func (k ArgKind) Image() bool {
	return k == Image2D || k == Image3D || k == Image2DArray || k == ImageBuffer
}

// Arg is one kernel argument, in the order of the kernel's signature.
type Arg struct {
	Name string
	Kind ArgKind
	Data []float32 // Input, Image2D, ImageBuffer: the contents
	Len  int       // Output: the number of floats
	Int  int32     // Int32: the value
	// Float is a Float32 argument's value.
	Float float32
	// Width and Height are a 2D or 3D image's size in pixels, Depth an
	// Image3D's depth or an Image2DArray's number of images.
	Width, Height, Depth int
	// Channels are the values a pixel of an image of Bytes holds: 1 (0
	// means 1) or 4.
	Channels int
	// Elem is a Buffer's or Scalar's element type, or an image's lane
	// type; Bytes its contents.
	Elem  Elem
	Bytes []byte
	// ChannelType is an image of Bytes' OpenCL channel data type, without
	// CL_: "FLOAT", "UNORM_INT8" (read_imagef reads 0 to 1),
	// "UNSIGNED_INT8" (read_imageui reads 0 to 255), "SIGNED_INT32"...
	// "" is Elem's default: FLOAT for float, UNORM_INT8 for uint8.
	ChannelType string
	// Output marks a Buffer or an Image2D that the kernel writes and
	// collect verifies.
	Output bool
}

// Launch is the NDRange of one configuration on one task.
type Launch struct {
	Dims   int    // 1, 2 or 3
	Global [3]int // total work-items in each dimension, a multiple of Local
	Local  [3]int // work-group size in each dimension
	// LocalMemBytes is the local memory the configuration allocates
	// statically, so that collect can prune it against the device's limit
	// before compiling.
	LocalMemBytes int
	// ConstantMemBytes is the __constant memory the kernel's arguments
	// take, pruned likewise.
	ConstantMemBytes int
}

// WorkGroupSize is the number of work-items in one work-group.
func (l Launch) WorkGroupSize() int {
	n := 1
	for d := 0; d < l.Dims; d++ {
		n *= l.Local[d]
	}
	return n
}

// Kernel is one kernel family: everything collect needs to compile, run and
// verify a configuration on a task, and everything train needs to name its
// features. Its fields are data; its behaviour (CheckTask, Options,
// Geometry, Args, Want, Flops, Bytes) is methods, backed by the family's
// code for augur's own families (Lookup, Conv2D) and by Funcs for a family
// defined elsewhere (Define).
type Kernel struct {
	Name string
	// Doc is a one-line description.
	Doc string
	// Source is the OpenCL C source; configurations and tasks reach it
	// as preprocessor definitions (see Options).
	Source string
	// Entry is the name of the __kernel function.
	Entry string
	Space *features.Space
	// TaskNames are the shape features, in Task order.
	TaskNames []string
	// Tasks are the shapes collected when none are given.
	Tasks []features.Task
	// Reference is the configuration speedups are measured against: a
	// plain, portable choice that is valid on every device.
	Reference features.Config
	// Tolerance is the largest relative difference from the reference
	// implementation that verification accepts.
	Tolerance float64
	// Derived computes the family's derived implementation features, which
	// train and the runtime add to every feature vector; nil for none.
	Derived features.Deriver
	// Grid is a hand-chosen set of configurations the kernel's authors
	// advocate searching empirically (fbcorr: Pinto and Cox's 73 points),
	// the reference first; nil when they give none. `augur collect
	// --sample grid` measures it; search.List walks it.
	Grid []features.Config
	// GroupParams are the parameters that set only the extent of a work
	// group: with every other parameter the same, a smaller value of each
	// gives each work-item the same work and a work group no more items,
	// local memory or registers than a larger one. The runtime, which
	// keeps to configurations that ran in training, may then also pick one
	// that differs from such a configuration only in smaller values of
	// these. Empty where a family's work-group parameters also change the
	// work per item (as a tile size divided among the items does).
	GroupParams []string
	// Spec is the kernel spec file (the T1 tuning format) a kernel read by
	// ReadSpec comes from, byte for byte, and SpecFiles the data files it
	// names (BinaryRaw fills), by name; nil for augur's own families. A
	// bundle carries both with the source, so that the runtime rebuilds
	// the kernel (ParseSpec) and its launch plan.
	Spec      []byte
	SpecFiles map[string][]byte
	// Warnings say, one line each, where a kernel read from a spec departs
	// from the spec as written (a Default that breaks a condition); the
	// commands print them. Nil for augur's own families.
	Warnings []string

	impl family // nil for a Kernel literal: no behaviour beyond its data
}

// family is the behaviour of one kernel family. Kernel's methods check
// what is common to every family (lengths, the configuration's place in
// the space) before they call it.
type family interface {
	checkTask(t features.Task) error
	options(t features.Task, c features.Config) string
	// geometry may assume that t passed checkTask and c is in the space.
	geometry(t features.Task, c features.Config) (Launch, error)
	args(t features.Task, rng *rand.Rand) []Arg
	want(t features.Task, args []Arg) []float32
	work(t features.Task) (flops, bytes float64)
}

// CheckTask returns an error wrapping ErrTask that names what is wrong
// with a shape: a length other than len(TaskNames), or a value outside the
// family's constraints.
func (k *Kernel) CheckTask(t features.Task) error {
	if len(t) != len(k.TaskNames) {
		return fmt.Errorf("%w: %s: shape has %d features, want %d (%s)", ErrTask, k.Name, len(t), len(k.TaskNames), strings.Join(k.TaskNames, ", "))
	}
	if k.impl == nil {
		return nil
	}
	return k.impl.checkTask(t)
}

// Options returns the compiler options ("-D NAME=value ...") for a
// configuration on a task. Two (task, config) pairs with the same options
// share one compiled program. A kernel with no behaviour gives "".
func (k *Kernel) Options(t features.Task, c features.Config) string {
	if k.impl == nil {
		return ""
	}
	return k.impl.options(t, c)
}

// Geometry returns the launch geometry, or an error when the configuration
// cannot run this task: the shape fails CheckTask (ErrTask), the
// configuration is not in the space (ErrConfig), or the family cannot
// launch it (e.g. the image is not a multiple of the tile); collect records
// such a configuration as invalid.
func (k *Kernel) Geometry(t features.Task, c features.Config) (Launch, error) {
	if err := k.CheckTask(t); err != nil {
		return Launch{}, err
	}
	if err := k.Space.Check(c); err != nil {
		return Launch{}, fmt.Errorf("%w: %s: %w", ErrConfig, k.Name, err)
	}
	if k.impl == nil {
		return Launch{}, fmt.Errorf("%w: kernel %s defines no launch geometry", ErrNoBehaviour, k.Name)
	}
	return k.impl.geometry(t, c)
}

// Args returns the kernel arguments for a task, inputs filled with
// pseudo-random data from rng; nil for a kernel with no behaviour.
func (k *Kernel) Args(t features.Task, rng *rand.Rand) []Arg {
	if k.impl == nil {
		return nil
	}
	return k.impl.args(t, rng)
}

// Want computes the expected contents of the Output argument with a
// plain-Go implementation; nil for a kernel with no behaviour.
func (k *Kernel) Want(t features.Task, args []Arg) []float32 {
	if k.impl == nil {
		return nil
	}
	return k.impl.want(t, args)
}

// Flops counts the arithmetic of one run on a task; 0 when unknown.
func (k *Kernel) Flops(t features.Task) float64 {
	if k.impl == nil {
		return 0
	}
	f, _ := k.impl.work(t)
	return f
}

// Bytes counts the minimum global memory traffic of one run on a task, in
// bytes; 0 when unknown.
func (k *Kernel) Bytes(t features.Task) float64 {
	if k.impl == nil {
		return 0
	}
	_, b := k.impl.work(t)
	return b
}

// Funcs is the behaviour of a kernel family defined outside this package
// (a test kernel, an experiment) as functions; Define joins it to the
// family's data. A nil function means the default of the method of the
// same name on Kernel. augur's own families are code in this package.
type Funcs struct {
	// CheckTask runs after the length check.
	CheckTask func(t features.Task) error
	Options   func(t features.Task, c features.Config) string
	// Geometry runs after CheckTask and the space check.
	Geometry func(t features.Task, c features.Config) (Launch, error)
	Args     func(t features.Task, rng *rand.Rand) []Arg
	Want     func(t features.Task, args []Arg) []float32
	Flops    func(t features.Task) float64
	Bytes    func(t features.Task) float64
}

// Define returns a kernel family with the data of k and the behaviour f.
func Define(k Kernel, f Funcs) *Kernel {
	k.impl = funcs(f)
	return &k
}

// funcs adapts Funcs to family.
type funcs Funcs

func (f funcs) checkTask(t features.Task) error {
	if f.CheckTask == nil {
		return nil
	}
	return f.CheckTask(t)
}

func (f funcs) options(t features.Task, c features.Config) string {
	if f.Options == nil {
		return ""
	}
	return f.Options(t, c)
}

func (f funcs) geometry(t features.Task, c features.Config) (Launch, error) {
	if f.Geometry == nil {
		return Launch{}, fmt.Errorf("%w: no launch geometry", ErrNoBehaviour)
	}
	return f.Geometry(t, c)
}

func (f funcs) args(t features.Task, rng *rand.Rand) []Arg {
	if f.Args == nil {
		return nil
	}
	return f.Args(t, rng)
}

func (f funcs) want(t features.Task, args []Arg) []float32 {
	if f.Want == nil {
		return nil
	}
	return f.Want(t, args)
}

func (f funcs) work(t features.Task) (flops, bytes float64) {
	if f.Flops != nil {
		flops = f.Flops(t)
	}
	if f.Bytes != nil {
		bytes = f.Bytes(t)
	}
	return flops, bytes
}

// Version identifies the kernel's source and space: the first 12 hex digits
// of a SHA-256 over both. Datasets and bundles record it, so that data from
// another version of a kernel is never mixed in silently.
func (k *Kernel) Version() string {
	return version(k.Source, k.Space.Params, k.Space.Constraints, k.TaskNames, k.Spec)
}

// version hashes a kernel's definition; a spec kernel's also covers the
// spec, whose launch sizes and arguments change what its data mean.
func version(source string, params []features.Param, constraints, taskNames []string, spec []byte) string {
	h := sha256.New()
	h.Write([]byte(source))
	h.Write(spec)
	sp, _ := json.Marshal(struct {
		P []features.Param
		C []string
		T []string
	}{params, constraints, taskNames})
	h.Write(sp)
	return hex.EncodeToString(h.Sum(nil))[:12]
}

// definition is what a family declares before its space is built: the
// Kernel's data fields and behaviour, its parameters and constraints.
type definition struct {
	kernel      Kernel // Space is nil
	params      []features.Param
	constraints []string
}

// families are augur's kernel families by name, sorted. Each builder
// returns a fresh definition, cheap: no space is built.
var families = []struct {
	name   string
	define func() definition
}{
	{"conv2d", conv2dDefinition},
	{"fbcorr", fbcorrDefinition},
	{"gemm", gemmDefinition},
	{"median", medianDefinition},
	{"stencil", stencilDefinition},
}

// Names returns the names of augur's kernel families, sorted.
func Names() []string {
	out := make([]string, len(families))
	for i, f := range families {
		out[i] = f.name
	}
	return out
}

func define(name string) (definition, error) {
	for _, f := range families {
		if f.name == name {
			return f.define(), nil
		}
	}
	return definition{}, fmt.Errorf("%w %q (have %s)", ErrUnknownKernel, name, strings.Join(Names(), ", "))
}

// build compiles the definition's space into its Kernel.
func (d definition) build() *Kernel {
	s, err := features.NewSpace(d.params, d.constraints)
	if err != nil {
		// The definitions are fixed; failing to compile one is a bug here.
		panic("datasets: " + d.kernel.Name + " space: " + err.Error())
	}
	k := d.kernel
	k.Space = s
	return &k
}

// sameSpace reports whether s has exactly the definition's parameters and
// constraints.
func (d definition) sameSpace(s *features.Space) bool {
	if len(s.Params) != len(d.params) || !slices.Equal(s.Constraints, d.constraints) {
		return false
	}
	for i, p := range d.params {
		if s.Params[i].Name != p.Name || !slices.Equal(s.Params[i].Values, p.Values) {
			return false
		}
	}
	return true
}

// Kernels returns every kernel family, sorted by name, each built afresh.
// A caller that looks families up repeatedly holds a Registry instead.
func Kernels() []*Kernel {
	ks := make([]*Kernel, len(families))
	for i, f := range families {
		ks[i] = f.define().build()
	}
	return ks
}

// Lookup returns the named kernel family, built afresh: it builds that
// family's tuning space and no other (about 5 ms for conv2d's 12,288
// configurations). An unknown name gives an error wrapping
// ErrUnknownKernel.
func Lookup(name string) (*Kernel, error) {
	d, err := define(name)
	if err != nil {
		return nil, err
	}
	return d.build(), nil
}

// LookupWithSpace is Lookup for a caller that holds the family's tuning
// space already (a bundle's): when s has the family's parameters and
// constraints, the Kernel shares s and nothing is built; otherwise the
// family builds its own space, and the Kernel's Version differs from the
// one recorded with s.
func LookupWithSpace(name string, s *features.Space) (*Kernel, error) {
	d, err := define(name)
	if err != nil {
		return nil, err
	}
	if s == nil || !d.sameSpace(s) {
		return d.build(), nil
	}
	k := d.kernel
	k.Space = s
	return &k, nil
}

// Registry builds each kernel family on first use and hands out the same
// *Kernel after that, so that repeated look-ups cost a map access. Make one
// with NewRegistry and keep it; it is safe for concurrent use. Callers
// share the Kernels it returns and must not change them.
type Registry struct {
	mu      sync.Mutex
	kernels map[string]*Kernel
}

// NewRegistry returns an empty Registry.
func NewRegistry() *Registry { return &Registry{kernels: map[string]*Kernel{}} }

// Lookup returns the named family, built on the first call.
func (r *Registry) Lookup(name string) (*Kernel, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if k, ok := r.kernels[name]; ok {
		return k, nil
	}
	k, err := Lookup(name)
	if err != nil {
		return nil, err
	}
	r.kernels[name] = k
	return k, nil
}

// Kernels returns every family, sorted by name, building those not built
// yet.
func (r *Registry) Kernels() []*Kernel {
	ks := make([]*Kernel, 0, len(families))
	for _, f := range families {
		k, _ := r.Lookup(f.name) // every listed name is known
		ks = append(ks, k)
	}
	return ks
}

// GroupParams returns the work-group parameters (Kernel.GroupParams) of
// the kernel family name, or an error that names the kernel when augur
// does not know it or it has none. It builds no tuning space.
func GroupParams(name string) ([]string, error) {
	d, err := define(name)
	if err != nil {
		return nil, fmt.Errorf("%w %q: augur knows the work-group parameters of its own families only", ErrUnknownKernel, name)
	}
	if len(d.kernel.GroupParams) == 0 {
		return nil, fmt.Errorf("datasets: kernel %s names no work-group parameters", name)
	}
	return d.kernel.GroupParams, nil
}

// Deriver returns the derived-feature definitions of the kernel family
// name, or nil when augur has none for it (an imported kernel). It builds
// no tuning space.
func Deriver(name string) features.Deriver {
	d, err := define(name)
	if err != nil {
		return nil
	}
	return d.kernel.Derived
}
