package datasets

import (
	_ "embed"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/augur-tuning/augur/features"
)

//go:embed median.cl
var medianSource string

// Limits of the median shapes that CheckTask accepts.
const (
	medianMinSide   = 16
	medianMaxSide   = 16384
	medianMinFilter = 3
	medianMaxFilter = 7
)

// Positions of median's task features and arguments.
const (
	medianWidth = iota
	medianHeight
	medianFilter
)

const medianArgIn = 2 // the input image as a buffer; 3 holds it as an image

// medianParams are the parameters of one configuration, by name; the
// fields follow the order of Median's space.
type medianParams struct {
	xwg, ywg, xppt, yppt, img, lmem, alg, larr int
}

func medianParamsOf(c features.Config) medianParams {
	return medianParams{c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]}
}

// medianSizes are Table 1's values of the work-group sizes and pixels per
// work-item.
var medianSizes = []int{1, 2, 4, 6, 8, 12, 16, 24, 32, 48, 64, 128}

// Median returns the median filter of Falch and Elster (2017, Table 1): the
// median of the filter x filter window around each pixel of a width x
// height image, the border repeated. Pixels are the integers 0 to 255, as
// floats.
//
// The space has the paper's parameters and values: Xwg, Ywg (work-group
// size) and Xppt, Yppt (pixels per work-item) in {1, 2, 4, 6, 8, 12, 16, 24,
// 32, 48, 64, 128}, IMG (read the input through image memory), LMEM (stage
// the tile in local memory), ALG (0 sorting, 1 histogram) and LARR (the
// sort or histogram array in local memory), all 0 or 1: 331,776
// configurations, every one valid, as in the paper's Table 4. What a device
// cannot run (work-groups over its limit, tiles or arrays over its local
// memory, image memory on a device without images) is pruned per device by
// collect; CheckDevice covers the images.
//
// Width and height are kernel arguments; the filter and the configuration
// are build options.
func Median() *Kernel { return medianDefinition().build() }

// median is the median family's behaviour.
type median struct{}

var (
	_ family        = median{}
	_ deviceChecker = median{}
)

// medianParamNames are the names of median's parameters, in Config order.
var medianParamNames = [...]string{"Xwg", "Ywg", "Xppt", "Yppt", "IMG", "LMEM", "ALG", "LARR"}

func medianDefinition() definition {
	params := make([]features.Param, len(medianParamNames))
	for i, name := range medianParamNames {
		if i < 4 {
			params[i] = features.Param{Name: name, Values: slices.Clone(medianSizes)}
		} else {
			params[i] = features.Param{Name: name, Values: []int{0, 1}}
		}
	}
	return definition{
		params: params,
		kernel: Kernel{
			Name:      "median",
			Doc:       "median filter (sort or histogram) with a repeated border, after Falch and Elster",
			Source:    medianSource,
			Entry:     "median",
			TaskNames: []string{"width", "height", "filter"},
			// The paper's default 3072 x 3072 and smaller images for CPUs,
			// with each of its filter sizes.
			Tasks: []features.Task{
				{512, 512, 3},
				{512, 512, 7},
				{1024, 1024, 5},
				{1920, 1080, 3},
				{2048, 2048, 5},
				{3072, 3072, 5},
			},
			// A plain configuration: 8 x 8 work-items, a pixel each, global
			// memory and private sorting, which every OpenCL device runs.
			Reference: features.Config{8, 8, 1, 1, 0, 0, 0, 0},
			// Every algorithm selects one of the input values: exact.
			Tolerance: 0,
			Derived:   medianDerived{},
			impl:      median{},
		},
	}
}

// checkTask accepts images of 16 to 16384 pixels a side and the paper's
// odd filters of 3 to 7 pixels a side.
func (median) checkTask(t features.Task) error {
	for i, name := range []string{"width", "height"} {
		if v := t[i]; v < medianMinSide || v > medianMaxSide {
			return fmt.Errorf("%w: median: %s must be in [%d, %d], got %d", ErrTask, name, medianMinSide, medianMaxSide, v)
		}
	}
	if v := t[medianFilter]; v < medianMinFilter || v > medianMaxFilter || v%2 == 0 {
		return fmt.Errorf("%w: median: filter must be odd and in [%d, %d], got %d", ErrTask, medianMinFilter, medianMaxFilter, v)
	}
	return nil
}

// checkDevice keeps image memory off devices without images.
func (median) checkDevice(c features.Config, p features.Platform) error {
	if medianParamsOf(c).img == 1 && !p.ImageSupport {
		return fmt.Errorf("%w: median: IMG=1 needs image support, %s has none", ErrDevice, p.Name)
	}
	return nil
}

// options writes the filter and every parameter as a definition; the
// image size stays out so that programs are shared between image sizes.
func (median) options(t features.Task, c features.Config) string {
	var b strings.Builder
	b.WriteString("-D FS=")
	b.WriteString(strconv.Itoa(t[medianFilter]))
	for i, name := range medianParamNames {
		b.WriteString(" -D ")
		b.WriteString(strings.ToUpper(name))
		b.WriteByte('=')
		b.WriteString(strconv.Itoa(c[i]))
	}
	return b.String()
}

func (median) geometry(t features.Task, c features.Config) (Launch, error) {
	g := medianShape(t, medianParamsOf(c))
	return Launch{
		Dims:          2,
		Global:        [3]int{g.groupsX * g.lx, g.groupsY * g.ly, 1},
		Local:         [3]int{g.lx, g.ly, 1},
		LocalMemBytes: g.localMem,
	}, nil
}

// medianGeom is the launch of one (task, configuration), unchecked: the
// geometry and the derived features share it.
type medianGeom struct {
	tx, ty           int // pixels of one work-group in x and y
	lx, ly           int // work-items of one work-group
	groupsX, groupsY int
	tileMem, arrMem  int // bytes of local memory: the tile, the arrays
	localMem         int
}

func medianShape(t features.Task, p medianParams) medianGeom {
	var g medianGeom
	f := t[medianFilter]
	g.lx, g.ly = p.xwg, p.ywg
	g.tx, g.ty = p.xwg*p.xppt, p.ywg*p.yppt
	if p.lmem == 1 {
		g.tileMem = 4 * (g.tx + f - 1) * (g.ty + f - 1)
	}
	if p.larr == 1 {
		if p.alg == 0 {
			g.arrMem = 4 * f * f * g.lx * g.ly
		} else {
			g.arrMem = 256 * g.lx * g.ly // one uchar count a value
		}
	}
	g.localMem = g.tileMem + g.arrMem
	g.groupsX = ceilDiv(max(t[medianWidth], 1), max(g.tx, 1))
	g.groupsY = ceilDiv(max(t[medianHeight], 1), max(g.ty, 1))
	return g
}

func (median) args(t features.Task, rng *rand.Rand) []Arg {
	w, h := t[medianWidth], t[medianHeight]
	a := make([]float32, w*h)
	for i := range a {
		a[i] = float32(rng.IntN(256))
	}
	return []Arg{
		{Name: "width", Kind: Int32, Int: int32(w)},
		{Name: "height", Kind: Int32, Int: int32(h)},
		{Name: "src", Kind: Input, Data: a},
		// The same pixels; the kernel reads one or the other.
		{Name: "srcImg", Kind: Image2D, Data: a, Width: w, Height: h},
		{Name: "dst", Kind: Output, Len: w * h},
	}
}

// want counts the window's values (they are integers 0 to 255) and walks
// the counts to the middle one: linear in the window, unlike a sort.
func (median) want(t features.Task, args []Arg) []float32 {
	w, h, f := t[medianWidth], t[medianHeight], t[medianFilter]
	hf := f / 2
	a := args[medianArgIn].Data
	out := make([]float32, w*h)
	var counts [256]int
	for y := range h {
		for x := range w {
			counts = [256]int{}
			for j := range f {
				yy := min(max(y+j-hf, 0), h-1)
				for i := range f {
					xx := min(max(x+i-hf, 0), w-1)
					counts[int(a[yy*w+xx])&255]++
				}
			}
			acc, mid := 0, f*f/2
			for v, n := range counts {
				acc += n
				if acc > mid {
					out[y*w+x] = float32(v)
					break
				}
			}
		}
	}
	return out
}

// work counts one operation for each window value of each pixel (a
// median has no arithmetic to count; the comparisons or counts grow with
// the window) and the image read and written once.
func (median) work(t features.Task) (flops, bytes float64) {
	w, h, f := float64(t[medianWidth]), float64(t[medianHeight]), float64(t[medianFilter])
	return w * h * f * f, 4 * 2 * w * h
}

// medianDerived computes median's derived features.
type medianDerived struct{}

// medianDerivedNames are the derived features, in the order Derive writes
// them. Change medianDerivedID with any change here or in Derive.
var medianDerivedNames = []string{
	"tile_x", "tile_y", "tile", "wg_items",
	"groups_x", "groups_y", "groups", "items",
	"waves", "last_wave_fill", "items_per_cu",
	"pad_waste_x", "pad_waste_y", "pad_waste",
	"local_mem", "local_mem_frac", "groups_per_cu_by_local_mem",
	"pixels_per_item", "window", "ops_per_pixel", "loads_per_pixel", "pixels",
}

const medianDerivedID = "median/1"

func (medianDerived) ID() string { return medianDerivedID }

func (medianDerived) Names() []string { return append([]string(nil), medianDerivedNames...) }

// Derive writes the features for (t, c) on the platform pv. A platform
// vector of zeros (no device known) counts one compute unit and no local
// memory limit.
func (medianDerived) Derive(dst []float64, t features.Task, c features.Config, pv []float64) {
	p := medianParamsOf(c)
	g := medianShape(t, p)
	w, h, f := float64(t[medianWidth]), float64(t[medianHeight]), float64(t[medianFilter])
	cu, localBytes := 1.0, 0.0
	if len(pv) > max(platCU, platLocalKiB) {
		cu = max(pv[platCU], 1)
		localBytes = pv[platLocalKiB] * 1024
	}
	tx, ty := float64(g.tx), float64(g.ty)
	wgItems := float64(g.lx * g.ly)
	groups := float64(g.groupsX * g.groupsY)
	waves := groups / cu
	lastFill := waves / math.Ceil(waves)
	padX := float64(g.groupsX)*tx/w - 1
	padY := float64(g.groupsY)*ty/h - 1
	lmem := float64(g.localMem)
	lmemFrac, byLmem := 0.0, 64.0
	if localBytes > 0 && lmem > 0 {
		lmemFrac = lmem / localBytes
		byLmem = math.Min(math.Floor(localBytes/lmem), 64)
	}
	window := f * f
	// Compare-exchanges of the partial sort, or the histogram's clear,
	// counts and walk.
	ops := (math.Floor(window/2) + 1) * (window - 1 - math.Floor(window/2)/2)
	if p.alg == 1 {
		ops = 256 + window + 256
	}
	loads := window
	if p.lmem == 1 {
		loads = (tx + f - 1) * (ty + f - 1) / (tx * ty)
	}
	v := [...]float64{
		tx, ty, tx * ty, wgItems,
		float64(g.groupsX), float64(g.groupsY), groups, groups * wgItems,
		waves, lastFill, groups * wgItems / cu,
		padX, padY, (1+padX)*(1+padY) - 1,
		lmem, lmemFrac, byLmem,
		float64(p.xppt * p.yppt), window, ops, loads, w * h,
	}
	copy(dst, v[:])
}
