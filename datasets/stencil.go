package datasets

import (
	_ "embed"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/augur-tuning/augur/features"
)

//go:embed stencil.cl
var stencilSource string

// Positions of the stencil family's task features.
const (
	stencilPattern = iota
	stencilDims
	stencilRadius
	stencilOrient
	stencilNX
	stencilNY
	stencilNZ
)

// The stencil patterns (task feature pattern) of the paper's Figure 1.
const (
	stencilDense = iota
	stencilStar
	stencilDiamond
	stencilNoCorners
	stencilThumbtack
)

// stencilPatternNames are the patterns by code.
var stencilPatternNames = [...]string{"dense", "star", "diamond", "no-corners", "thumbtack"}

// The data-loading techniques (parameter technique) of section 6.1.
const (
	stencilGlobal = iota
	stencilGlobalVec
	stencilLocal
	stencilImage
)

// Limits of the stencil shapes that CheckTask accepts. The array bound
// keeps every index of the padded input within an int32 and a 1D image
// buffer within 2^28 texels, below NVIDIA's image limit.
const (
	stencilMaxRadius   = 5
	stencilMaxElements = 1 << 27 // 512^3
)

// Positions of the stencil family's arguments.
const (
	stencilArgIn = 3 // the padded input; 4 holds it as an image buffer
)

// stencilParams are the parameters of one configuration, by name; the
// fields follow the order of Stencil's space.
type stencilParams struct {
	wx, wy, wz, bx, cx, cy, cz, tech int
}

func stencilParamsOf(c features.Config) stencilParams {
	return stencilParams{c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]}
}

// stencilParamNames are the names of the stencil family's parameters, in
// Config order, and the definitions they become (technique is TECH).
var stencilParamNames = [...]string{"WX", "WY", "WZ", "BX", "CX", "CY", "CZ", "technique"}

// Stencil returns the synthetic stencil family of Garvey and Abdelrahman
// (2018, sections 3, 4 and 7.1): a weighted sum over a stencil's points
// of a 3D float array, out[z][y][x] = sum of w * in[z+dz][y+dy][x+dx], one
// output element for each of the nx x ny x nz input elements.
//
// The task names the stencil and the array: pattern (0 dense, 1 star,
// 2 diamond, 3 no-corners, 4 thumbtack), dims (1 to 3), radius (0 to 5),
// orient and nx, ny, nz. orient places a stencil inside the 3D array:
// the axis (0 x, 1 y, 2 z) a 1D stencil lies along, the axis normal to a
// 2D stencil's plane, or the axis of a thumbtack's pin; it is 0 where
// nothing is oriented (radius 0, symmetric 3D patterns). The patterns, in
// the stencil's own axes u:
//
//   - dense: every point with |u_i| <= radius;
//   - star: the points on the axes, at most one u_i non-zero;
//   - diamond: sum |u_i| <= radius;
//   - no-corners: dense less the 2^dims corners, where every |u_i| =
//     radius (in 1D, a line);
//   - thumbtack (3D only): a 2D star head normal to the pin axis and a
//     pin of radius points on the positive side of that axis. The paper
//     draws it without defining it; this is our reading.
//
// Radius 0 is the single centre point whatever the pattern. Each point's
// weight k/256, k in [1, 255], is fixed by a hash of the stencil's
// description and the point, so that the weights are pseudo-random,
// non-zero, the same in every run, and known at compile time, as in the
// paper. StencilSuite lists the paper's 104 stencils (Table 2).
//
// The input carries the stencil's halo (the paper copies boundary data
// into place beforehand), so every output element is computed and no
// load is bounds-tested.
//
// The space has the paper's optimizations (section 4, Table 1) in powers
// of two: work-group size WX in {16, ..., 128}, WY in {1, ..., 16}, WZ in
// {1, ..., 8}; block merging in x with vector loads and stores of BX
// floats (the paper's BX = VX) in {1, 2, 4, 8}; cyclic merging CX, CY, CZ
// in {1, 2, 4}; and technique, the data-loading technique of section 6.1
// (0 global, 1 global_vec, 2 local, 3 image). Its constraints are section
// 4.7's restrictions: BX is above 1 exactly with global_vec (vectors
// only with global loads, and global_vec without them is global); the
// products WX*BX*CX, WY*CY and WZ*CZ are at most 256, the paper's array
// side. Two bounds keep the space small and every configuration
// runnable: work-groups of at most 1024 work-items, every GPU's limit,
// and at most 4 cyclically merged outputs a work-item (CX*CY*CZ), which
// keeps the unrolled code of the largest stencil (1,331 points) within
// seconds of compiling on PoCL. Block merging in y and z is left out, as
// in the paper. WX starts at 16, for coalescing, as in section 8.3.4, and
// WY and WZ stay within that section's bound of 32 (at 16 and 8).
// That leaves 34,560 raw and 3,016 valid configurations: 590 each for
// global, local and image and 1,246 for global_vec.
//
// Geometry rejects, per task, a configuration whose tile (WX*BX*CX,
// WY*CY, WZ*CZ) exceeds the array on some axis, section 4.7's bound for
// arrays other than 256^3 (at 64^3, 1,914 configurations remain), and a
// BX that does not divide nx, so that a vector never straddles rows.
//
// The stencil, the halo and the configuration are build options; nx, ny
// and nz are arguments, so one program serves every array size.
func Stencil() *Kernel { return stencilDefinition().build() }

// stencil is the stencil family's behaviour.
type stencil struct{}

var (
	_ family        = stencil{}
	_ deviceChecker = stencil{}
)

func stencilDefinition() definition {
	return definition{
		params: []features.Param{
			{Name: "WX", Values: []int{16, 32, 64, 128}},
			{Name: "WY", Values: []int{1, 2, 4, 8, 16}},
			{Name: "WZ", Values: []int{1, 2, 4, 8}},
			{Name: "BX", Values: []int{1, 2, 4, 8}},
			{Name: "CX", Values: []int{1, 2, 4}},
			{Name: "CY", Values: []int{1, 2, 4}},
			{Name: "CZ", Values: []int{1, 2, 4}},
			{Name: "technique", Values: []int{stencilGlobal, stencilGlobalVec, stencilLocal, stencilImage}},
		},
		constraints: []string{
			"(technique == 1) == (BX > 1)",
			"WX * WY * WZ <= 1024",
			"CX * CY * CZ <= 4",
			"WX * BX * CX <= 256",
			"WY * CY <= 256",
			"WZ * CZ <= 256",
		},
		kernel: Kernel{
			Name:      "stencil",
			Doc:       "synthetic 1D/2D/3D stencils on a 3D array (dense, star, diamond, no-corners, thumbtack), after Garvey and Abdelrahman",
			Source:    stencilSource,
			Entry:     "stencil",
			TaskNames: []string{"pattern", "dims", "radius", "orient", "nx", "ny", "nz"},
			// A few of the paper's kernels at its array size, from a
			// 1D line to a 3D block: one of each pattern, several
			// orientations.
			Tasks: []features.Task{
				{stencilStar, 3, 1, 0, 256, 256, 256},
				{stencilDense, 1, 2, 1, 256, 256, 256},
				{stencilStar, 2, 2, 2, 256, 256, 256},
				{stencilDiamond, 2, 3, 0, 256, 256, 256},
				{stencilNoCorners, 3, 1, 0, 256, 256, 256},
				{stencilThumbtack, 3, 2, 2, 256, 256, 256},
				{stencilDense, 3, 2, 0, 256, 256, 256},
			},
			// The naive kernel of the paper's Algorithm 2: global loads,
			// no merging, in a 32 x 4 x 2 work-group that every device
			// runs.
			Reference: features.Config{32, 4, 2, 1, 1, 1, 1, stencilGlobal},
			// Sums of up to 1,331 products of non-negative values, summed
			// in float32 in any order (and possibly fused): the relative
			// error is at most 1,330 half-ulps, 8e-5.
			Tolerance:   1e-4,
			Derived:     stencilDerived{},
			GroupParams: []string{"WX", "WY", "WZ"},
			impl:        stencil{},
		},
	}
}

// StencilSuite returns the paper's 104 stencil kernels (Table 2) on an
// nx x ny x nz array, as tasks of the stencil family: for each radius 1 to
// 5, every orientation of the 1D dense line, of the 2D star, dense,
// diamond and no-corners stencils, and of the thumbtack, and the 3D star,
// dense, diamond and no-corners; plus the radius-0 point. A 2D diamond and
// no-corners of radius 1 are the 2D star, and a 3D diamond of radius 1 is
// the 3D star, so those are left out, as in the paper. The paper's arrays
// are 256 x 256 x 256.
func StencilSuite(nx, ny, nz int) []features.Task {
	out := []features.Task{{stencilDense, 1, 0, 0, nx, ny, nz}}
	add := func(pattern, dims, r, orient int) {
		out = append(out, features.Task{pattern, dims, r, orient, nx, ny, nz})
	}
	for r := 1; r <= stencilMaxRadius; r++ {
		for o := range 3 {
			add(stencilDense, 1, r, o)
		}
		for _, p := range []int{stencilStar, stencilDense, stencilDiamond, stencilNoCorners} {
			if r == 1 && (p == stencilDiamond || p == stencilNoCorners) {
				continue
			}
			for o := range 3 {
				add(p, 2, r, o)
			}
		}
		for o := range 3 {
			add(stencilThumbtack, 3, r, o)
		}
		for _, p := range []int{stencilStar, stencilDense, stencilDiamond, stencilNoCorners} {
			if r == 1 && p == stencilDiamond {
				continue
			}
			add(p, 3, r, 0)
		}
	}
	return out
}

// StencilGroups names the stencil family's tuning parameters in the
// groups of the paper's grouped searches (section 6.2): byDim by the
// dimension they act on, x (WX, BX, CX), y (WY, CY) and z (WZ, CZ), in the
// order the group-by-dimension heuristic tunes them; byOpt by the
// optimization, work-group size (WX, WY, WZ), block merging (BX) and
// cyclic merging (CX, CY, CZ), in the order the group-by-optimization
// heuristic tunes them. technique is in neither: the paper predicts it
// first and fixes it for the search. The hybrid heuristic is byDim
// followed by the work-group group with its product held. Each call
// returns new slices.
func StencilGroups() (byDim, byOpt [][]string) {
	byDim = [][]string{{"WX", "BX", "CX"}, {"WY", "CY"}, {"WZ", "CZ"}}
	byOpt = [][]string{{"WX", "WY", "WZ"}, {"BX"}, {"CX", "CY", "CZ"}}
	return byDim, byOpt
}

func (stencil) checkTask(t features.Task) error {
	limits := [...]struct {
		i, lo, hi int
	}{
		{stencilPattern, stencilDense, stencilThumbtack},
		{stencilDims, 1, 3},
		{stencilRadius, 0, stencilMaxRadius},
		{stencilOrient, 0, 2},
		{stencilNX, 1, stencilMaxElements},
		{stencilNY, 1, stencilMaxElements},
		{stencilNZ, 1, stencilMaxElements},
	}
	names := [...]string{"pattern", "dims", "radius", "orient", "nx", "ny", "nz"}
	for _, l := range limits {
		if v := t[l.i]; v < l.lo || v > l.hi {
			return fmt.Errorf("%w: stencil: %s must be in [%d, %d], got %d", ErrTask, names[l.i], l.lo, l.hi, v)
		}
	}
	if n := t[stencilNX] * t[stencilNY] * t[stencilNZ]; n > stencilMaxElements {
		return fmt.Errorf("%w: stencil: nx*ny*nz must be at most %d, got %d", ErrTask, stencilMaxElements, n)
	}
	p := t[stencilPattern]
	if p == stencilThumbtack && t[stencilDims] != 3 {
		return fmt.Errorf("%w: stencil: a thumbtack has dims 3, got %d", ErrTask, t[stencilDims])
	}
	if t[stencilOrient] != 0 && !stencilOriented(t) {
		return fmt.Errorf("%w: stencil: a %dD %s of radius %d has no orientation, so orient must be 0, got %d",
			ErrTask, t[stencilDims], stencilPatternNames[p], t[stencilRadius], t[stencilOrient])
	}
	return nil
}

// stencilOriented reports whether orient places the stencil: whether it
// is not a single point nor a symmetric 3D pattern.
func stencilOriented(t features.Task) bool {
	if t[stencilRadius] == 0 {
		return false
	}
	return t[stencilDims] < 3 || t[stencilPattern] == stencilThumbtack
}

// checkDevice allows technique image only on devices with images.
func (stencil) checkDevice(c features.Config, p features.Platform) error {
	if q := stencilParamsOf(c); q.tech == stencilImage && !p.ImageSupport {
		return fmt.Errorf("%w: stencil: technique=3 (image) needs image support, %s has none", ErrDevice, p.Name)
	}
	return nil
}

// stencilAxes returns the array axes (0 x, 1 y, 2 z) of the stencil's own
// axes u_0 ... u_{dims-1}: a 1D stencil lies along orient; a 2D one spans
// the two other axes, in order; a 3D one spans all three, its first axis
// being orient, the thumbtack's pin.
func stencilAxes(t features.Task) [3]int {
	o := t[stencilOrient]
	switch t[stencilDims] {
	case 1:
		return [3]int{o, -1, -1}
	case 2:
		a, b := (o+1)%3, (o+2)%3
		return [3]int{min(a, b), max(a, b), -1}
	}
	return [3]int{o, (o + 1) % 3, (o + 2) % 3}
}

// stencilIn reports whether the point u (in the stencil's own axes, each
// coordinate in [-r, r]) belongs to the pattern.
func stencilIn(pattern, dims, r int, u [3]int) bool {
	if r == 0 {
		return true
	}
	nonZero, l1, atR := 0, 0, 0
	for _, v := range u[:dims] {
		a := max(v, -v)
		if a != 0 {
			nonZero++
		}
		l1 += a
		if a == r {
			atR++
		}
	}
	switch pattern {
	case stencilStar:
		return nonZero <= 1
	case stencilDiamond:
		return l1 <= r
	case stencilNoCorners:
		return dims == 1 || atR < dims
	case stencilThumbtack:
		// u[0] is the pin's axis: the head at u[0] = 0 is a star, the pin
		// rises on the positive side only.
		if u[0] == 0 {
			return u[1] == 0 || u[2] == 0
		}
		return u[0] > 0 && u[1] == 0 && u[2] == 0
	}
	return true // dense
}

// stencilPoint is one point of a stencil: its offset in the array and its
// weight k/256.
type stencilPoint struct {
	d [3]int // dx, dy, dz
	k int
}

// stencilPoints enumerates the task's stencil, z slowest and x fastest,
// with its weights.
func stencilPoints(t features.Task) []stencilPoint {
	pattern, dims, r := t[stencilPattern], t[stencilDims], t[stencilRadius]
	axes := stencilAxes(t)
	// The ranges of dz, dy, dx.
	var lo, hi [3]int
	for i := range dims {
		lo[axes[i]], hi[axes[i]] = -r, r
	}
	var out []stencilPoint
	for dz := lo[2]; dz <= hi[2]; dz++ {
		for dy := lo[1]; dy <= hi[1]; dy++ {
			for dx := lo[0]; dx <= hi[0]; dx++ {
				d := [3]int{dx, dy, dz}
				var u [3]int
				for i := range dims {
					u[i] = d[axes[i]]
				}
				if stencilIn(pattern, dims, r, u) {
					out = append(out, stencilPoint{d, stencilWeight(t, d)})
				}
			}
		}
	}
	return out
}

// stencilWeight is the weight of the point d of the task's stencil, in
// 256ths: a SplitMix64 hash of the stencil's description and d, mapped to
// [1, 255]. The array size stays out, so that a stencil is the same
// function on every array.
func stencilWeight(t features.Task, d [3]int) int {
	h := uint64(0x243f6a8885a308d3)
	for _, v := range [...]int{t[stencilPattern], t[stencilDims], t[stencilRadius], t[stencilOrient], d[0], d[1], d[2]} {
		h ^= uint64(v + 16)
		h += 0x9e3779b97f4a7c15
		h = (h ^ h>>30) * 0xbf58476d1ce4e5b9
		h = (h ^ h>>27) * 0x94d049bb133111eb
		h ^= h >> 31
	}
	return 1 + int(h%255)
}

// stencilShape is the task's stencil summarised without enumerating it,
// so that Derive allocates nothing: the closed forms are checked against
// stencilPoints by the tests.
type stencilShape struct {
	points int
	// haloM and haloP are the most negative and most positive offsets on
	// each axis, as non-negative numbers: the halo below and above.
	haloM, haloP [3]int
	uniqueDim    int // 0 none, 1 + the axis that differs
}

func stencilShapeOf(t features.Task) stencilShape {
	pattern, dims, r := t[stencilPattern], t[stencilDims], t[stencilRadius]
	var s stencilShape
	side := 2*r + 1
	switch {
	case r == 0:
		s.points = 1
	case pattern == stencilStar:
		s.points = 2*r*dims + 1
	case pattern == stencilDiamond && dims == 2:
		s.points = 2*r*r + 2*r + 1
	case pattern == stencilDiamond && dims == 3:
		s.points = side * (2*r*r + 2*r + 3) / 3
	case pattern == stencilNoCorners && dims > 1:
		s.points = ipow(side, dims) - 1<<dims
	case pattern == stencilThumbtack:
		s.points = 5*r + 1
	default: // dense, and every pattern in 1D
		s.points = ipow(side, dims)
	}
	axes := stencilAxes(t)
	for i := range dims {
		s.haloM[axes[i]], s.haloP[axes[i]] = r, r
	}
	if pattern == stencilThumbtack {
		s.haloM[axes[0]] = 0
	}
	if stencilOriented(t) {
		s.uniqueDim = 1 + t[stencilOrient]
	}
	return s
}

func ipow(b, e int) int {
	n := 1
	for range e {
		n *= b
	}
	return n
}

// options writes the configuration, the halo and the stencil's terms;
// nx, ny and nz stay out so that programs are shared between array sizes.
func (stencil) options(t features.Task, c features.Config) string {
	p := stencilParamsOf(c)
	s := stencilShapeOf(t)
	var b strings.Builder
	def := func(name string, v int) {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString("-D ")
		b.WriteString(name)
		b.WriteByte('=')
		b.WriteString(strconv.Itoa(v))
	}
	for i, name := range stencilParamNames[:7] {
		def(name, c[i])
	}
	def("TECH", p.tech)
	for a, axis := range [...]string{"X", "Y", "Z"} {
		def("H"+axis+"M", s.haloM[a])
		def("H"+axis+"P", s.haloP[a])
	}
	// The terms: no spaces, which would split the option.
	b.WriteString(" -D TERMS=")
	for _, pt := range stencilPoints(t) {
		fmt.Fprintf(&b, "T(%d,%d,%d,%d)", pt.d[0], pt.d[1], pt.d[2], pt.k)
	}
	return b.String()
}

func (stencil) geometry(t features.Task, c features.Config) (Launch, error) {
	p := stencilParamsOf(c)
	g := stencilLaunchOf(t, p)
	n := [3]int{t[stencilNX], t[stencilNY], t[stencilNZ]}
	for a, axis := range [...]string{"x", "y", "z"} {
		if g.tile[a] > n[a] {
			return Launch{}, fmt.Errorf("%w: stencil: the work-group's tile is %d elements in %s, more than the array's %d (section 4.7)", ErrConfig, g.tile[a], axis, n[a])
		}
	}
	if n[0]%p.bx != 0 {
		return Launch{}, fmt.Errorf("%w: stencil: BX=%d does not divide nx=%d, so the vectors would straddle rows", ErrConfig, p.bx, n[0])
	}
	return Launch{
		Dims:          3,
		Global:        [3]int{g.groups[0] * p.wx, g.groups[1] * p.wy, g.groups[2] * p.wz},
		Local:         [3]int{p.wx, p.wy, p.wz},
		LocalMemBytes: g.localMem,
	}, nil
}

// stencilLaunch is the launch of one (task, configuration), unchecked:
// the geometry and the derived features share it.
type stencilLaunch struct {
	tile     [3]int // outputs of one work-group on each axis
	staged   [3]int // the tile and its halo, on each axis
	groups   [3]int
	localMem int // bytes; 0 unless technique is local
}

func stencilLaunchOf(t features.Task, p stencilParams) stencilLaunch {
	s := stencilShapeOf(t)
	var g stencilLaunch
	g.tile = [3]int{p.wx * p.bx * p.cx, p.wy * p.cy, p.wz * p.cz}
	n := [3]int{t[stencilNX], t[stencilNY], t[stencilNZ]}
	for a := range 3 {
		g.staged[a] = g.tile[a] + s.haloM[a] + s.haloP[a]
		g.groups[a] = ceilDiv(max(n[a], 1), max(g.tile[a], 1))
	}
	if p.tech == stencilLocal {
		g.localMem = 4 * g.staged[0] * g.staged[1] * g.staged[2]
	}
	return g
}

// stencilPadded returns the padded input's size on each axis.
func stencilPadded(t features.Task) [3]int {
	s := stencilShapeOf(t)
	return [3]int{
		s.haloM[0] + t[stencilNX] + s.haloP[0],
		s.haloM[1] + t[stencilNY] + s.haloP[1],
		s.haloM[2] + t[stencilNZ] + s.haloP[2],
	}
}

func (stencil) args(t features.Task, rng *rand.Rand) []Arg {
	pd := stencilPadded(t)
	in := make([]float32, pd[0]*pd[1]*pd[2])
	for i := range in {
		in[i] = rng.Float32()
	}
	nx, ny, nz := t[stencilNX], t[stencilNY], t[stencilNZ]
	return []Arg{
		{Name: "nx", Kind: Int32, Int: int32(nx)},
		{Name: "ny", Kind: Int32, Int: int32(ny)},
		{Name: "nz", Kind: Int32, Int: int32(nz)},
		{Name: "in", Kind: Input, Data: in},
		// The same values; the kernel reads one or the other.
		{Name: "img", Kind: ImageBuffer, Data: in},
		{Name: "out", Kind: Output, Len: nx * ny * nz},
	}
}

// want computes the output in float64 and rounds once. It adds one term
// at a time over whole rows, so that the inner loop runs over contiguous
// memory with no bounds arithmetic. The z planes are shared among
// GOMAXPROCS goroutines, joined before it returns: the paper's largest
// stencil on its 256^3 array is 22 billion multiply-adds, half a minute
// on one core. Each element's terms are summed in the same order
// whatever the split, so the result does not depend on it.
func (stencil) want(t features.Task, args []Arg) []float32 {
	nx, ny, nz := t[stencilNX], t[stencilNY], t[stencilNZ]
	s := stencilShapeOf(t)
	pd := stencilPadded(t)
	in := args[stencilArgIn].Data
	pts := stencilPoints(t)
	out := make([]float32, nx*ny*nz)
	planes := func(z0, z1 int) {
		acc := make([]float64, (z1-z0)*ny*nx)
		for _, pt := range pts {
			w := float64(pt.k) / 256
			for z := z0; z < z1; z++ {
				for y := range ny {
					src := in[((z+s.haloM[2]+pt.d[2])*pd[1]+y+s.haloM[1]+pt.d[1])*pd[0]+s.haloM[0]+pt.d[0]:][:nx]
					dst := acc[((z-z0)*ny+y)*nx:][:nx]
					for x, v := range src {
						dst[x] += w * float64(v)
					}
				}
			}
		}
		for i, v := range acc {
			out[z0*ny*nx+i] = float32(v)
		}
	}
	workers := min(runtime.GOMAXPROCS(0), nz)
	var wg sync.WaitGroup
	for i := range workers {
		wg.Go(func() { planes(i*nz/workers, (i+1)*nz/workers) })
	}
	wg.Wait()
	return out
}

// work counts a multiply and an add a point for every output element, as
// the paper does (section 8.3.8), and the padded input read once and the
// output written once.
func (stencil) work(t features.Task) (flops, bytes float64) {
	n := float64(t[stencilNX]) * float64(t[stencilNY]) * float64(t[stencilNZ])
	pd := stencilPadded(t)
	in := float64(pd[0]) * float64(pd[1]) * float64(pd[2])
	return 2 * float64(stencilShapeOf(t).points) * n, 4 * (in + n)
}

// stencilDerived computes the stencil family's derived features.
type stencilDerived struct{}

// stencilDerivedNames are the derived features, in the order Derive
// writes them: first the static features of section 6.1 (the stencil's
// size in points, its density in its bounding box, the unique dimension,
// 0 for none and 1 to 3 for x to z, and the multiplies and adds per
// element, with the halo on each axis), then the implementation's. Change
// stencilDerivedID with any change here or in Derive.
var stencilDerivedNames = []string{
	"points", "density", "unique_dim", "muls", "adds",
	"halo_x", "halo_y", "halo_z", "elements",
	"tile_x", "tile_y", "tile_z", "tile", "wg_items", "outputs_per_item", "vector_width",
	"groups_x", "groups_y", "groups_z", "groups", "items",
	"waves", "last_wave_fill", "items_per_cu", "pad_waste",
	"local_mem", "local_mem_frac", "groups_per_cu_by_local_mem",
	"halo_overhead", "loads_per_output",
}

const stencilDerivedID = "stencil/1"

func (stencilDerived) ID() string { return stencilDerivedID }

func (stencilDerived) Names() []string { return append([]string(nil), stencilDerivedNames...) }

var _ features.TaskDeriver = stencilDerived{}

// stencilTaskFeatures is how many of stencilDerivedNames depend on the task
// alone: the static features and the array's size, which the technique
// classifier takes.
const stencilTaskFeatures = 9

// TaskNames implements features.TaskDeriver.
func (stencilDerived) TaskNames() []string {
	return append([]string(nil), stencilDerivedNames[:stencilTaskFeatures]...)
}

// DeriveTask implements features.TaskDeriver: the stencil's size in
// points, its density in its bounding box, its unique dimension, the
// multiplies and adds per element, the halo on each axis and the array's
// elements.
func (stencilDerived) DeriveTask(dst []float64, t features.Task) {
	s := stencilShapeOf(t)
	var halo [3]float64
	box := 1.0
	for a := range 3 {
		halo[a] = float64(s.haloM[a] + s.haloP[a])
		box *= halo[a] + 1
	}
	points := float64(s.points)
	elements := float64(t[stencilNX]) * float64(t[stencilNY]) * float64(t[stencilNZ])
	v := [stencilTaskFeatures]float64{points, points / box, float64(s.uniqueDim), points, points - 1,
		halo[0], halo[1], halo[2], elements}
	copy(dst, v[:])
}

// Derive writes the features for (t, c) on the platform pv. A platform
// vector of zeros (no device known) counts one compute unit and no local
// memory limit.
func (d stencilDerived) Derive(dst []float64, t features.Task, c features.Config, pv []float64) {
	d.DeriveTask(dst, t)
	p := stencilParamsOf(c)
	g := stencilLaunchOf(t, p)
	cu, localBytes := 1.0, 0.0
	if len(pv) > max(platCU, platLocalKiB) {
		cu = max(pv[platCU], 1)
		localBytes = pv[platLocalKiB] * 1024
	}
	points := dst[0]
	elements := dst[stencilTaskFeatures-1]
	tile := float64(g.tile[0] * g.tile[1] * g.tile[2])
	staged := float64(g.staged[0] * g.staged[1] * g.staged[2])
	wgItems := float64(p.wx * p.wy * p.wz)
	groups := float64(g.groups[0] * g.groups[1] * g.groups[2])
	waves := groups / cu
	lastFill := waves / math.Ceil(waves)
	lmem := float64(g.localMem)
	lmemFrac, byLmem := 0.0, 64.0
	if localBytes > 0 && lmem > 0 {
		lmemFrac = lmem / localBytes
		byLmem = math.Min(math.Floor(localBytes/lmem), 64)
	}
	// Global memory loads an output element issues: every point, a
	// vector of BX points, or its share of the staged tile.
	loads := points / float64(p.bx)
	if p.tech == stencilLocal {
		loads = staged / tile
	}
	v := [...]float64{
		float64(g.tile[0]), float64(g.tile[1]), float64(g.tile[2]), tile, wgItems, float64(p.bx * p.cx * p.cy * p.cz), float64(p.bx),
		float64(g.groups[0]), float64(g.groups[1]), float64(g.groups[2]), groups, groups * wgItems,
		waves, lastFill, groups * wgItems / cu, groups*tile/elements - 1,
		lmem, lmemFrac, byLmem,
		staged/tile - 1, loads,
	}
	copy(dst[stencilTaskFeatures:], v[:])
}
