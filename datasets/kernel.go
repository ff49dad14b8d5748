package datasets

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"

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
)

// Arg is one kernel argument, in the order of the kernel's signature.
type Arg struct {
	Name string
	Kind ArgKind
	Data []float32 // Input: the contents
	Len  int       // Output: the number of floats
	Int  int32     // Int32: the value
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
// features.
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

	// CheckTask returns an error naming what is wrong with a shape.
	// Derived computes the family's derived implementation features, which
	// train and the runtime add to every feature vector; nil for none.
	Derived features.Deriver

	CheckTask func(t features.Task) error
	// Options returns the compiler options ("-D NAME=value ...") for a
	// configuration on a task. Two (task, config) pairs with the same
	// options share one compiled program.
	Options func(t features.Task, c features.Config) string
	// Geometry returns the launch geometry, or an error when the
	// configuration cannot run this task (e.g. the image is not a multiple
	// of the tile); such a configuration is recorded as invalid.
	Geometry func(t features.Task, c features.Config) (Launch, error)
	// Args returns the kernel arguments for a task, inputs filled with
	// pseudo-random data from rng.
	Args func(t features.Task, rng *rand.Rand) []Arg
	// Want computes the expected contents of the Output argument with a
	// plain-Go implementation.
	Want func(t features.Task, args []Arg) []float32
	// Flops and Bytes count the arithmetic and the minimum global memory
	// traffic of one run on a task.
	Flops func(t features.Task) float64
	Bytes func(t features.Task) float64
}

// Version identifies the kernel's source and space: the first 12 hex digits
// of a SHA-256 over both. Datasets and bundles record it, so that data from
// another version of a kernel is never mixed in silently.
func (k *Kernel) Version() string {
	h := sha256.New()
	h.Write([]byte(k.Source))
	sp, _ := json.Marshal(struct {
		P []features.Param
		C []string
		T []string
	}{k.Space.Params, k.Space.Constraints, k.TaskNames})
	h.Write(sp)
	return hex.EncodeToString(h.Sum(nil))[:12]
}

// Kernels returns every kernel family, sorted by name.
func Kernels() []*Kernel {
	ks := []*Kernel{Conv2D()}
	sort.Slice(ks, func(i, j int) bool { return ks[i].Name < ks[j].Name })
	return ks
}

// Lookup returns the named kernel family.
func Lookup(name string) (*Kernel, error) {
	var names []string
	for _, k := range Kernels() {
		if k.Name == name {
			return k, nil
		}
		names = append(names, k.Name)
	}
	return nil, fmt.Errorf("datasets: unknown kernel %q (have %s)", name, strings.Join(names, ", "))
}

// Deriver returns the derived-feature definitions of the kernel family
// name, or nil when augur has none for it (an imported kernel). It builds
// no tuning space, so the runtime can call it cheaply.
func Deriver(name string) features.Deriver {
	switch name {
	case "conv2d":
		return conv2dDerived{}
	}
	return nil
}

// TaskChecker returns the task constraints of the kernel family name (the
// function Kernel.CheckTask holds), or nil when augur does not know it. It
// builds no tuning space, so the runtime can call it cheaply.
func TaskChecker(name string) func(features.Task) error {
	switch name {
	case "conv2d":
		return checkConv2DTask
	}
	return nil
}
