package datasets

import (
	_ "embed"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/augur-tuning/augur/features"
)

//go:embed conv2d.cl
var conv2dSource string

// Limits of the conv2d shapes that CheckTask accepts.
const (
	conv2dMinSide   = 16
	conv2dMaxSide   = 16384
	conv2dMinFilter = 3
	conv2dMaxFilter = 11
)

// Positions of conv2d's task features and arguments.
const (
	conv2dWidth = iota
	conv2dHeight
	conv2dFilterW
	conv2dFilterH
)

const (
	conv2dArgA = 2 // the input image
	conv2dArgF = 3 // the filter
	conv2dArgB = 4 // the output image
)

// conv2dParams are the parameters of one configuration, by name; the
// fields follow the order of Conv2D's space.
type conv2dParams struct {
	xwg, ywg, xwpt, ywpt, ls, vw, pad, unr int
}

func conv2dParamsOf(c features.Config) conv2dParams {
	return conv2dParams{c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]}
}

// Conv2D returns the 2D convolution family of CLTune's case study
// (Nugteren & Codreanu 2015, section V): the correlation of a width x
// height float image with a filter_w x filter_h filter, the output the size
// of the input, which reads as zero outside its borders.
//
// The space has CLTune's parameters and values: Xwg, Ywg (work-group size
// in {8,16,32,64}), Xwpt, Ywpt (outputs per work-item in {1,2,4,8}), LS
// (local-memory strategy: 0 none, 1 the work-group stages its tile and halo,
// 2 extra halo work-items do the staging), VW (vector width in {1,2,4,8}),
// PAD (local-memory row padding in {0,1}) and UNR (unrolled filter loops in
// {0,1}), under CLTune's constraints "Xwpt % VW == 0" and
// "LS != 0 || PAD == 0": 12,288 raw and 6,400 valid configurations.
// CLTune's paper counts 3,424, because CLTune also dropped what the device
// could not run (work-groups over its limit, tiles over its local memory)
// and, with LS 2, any VW that does not divide twice the half filter size,
// since its halo loads had to be whole vectors. Here device limits are
// collect's business, per device, and the kernel loads a halo of any width,
// so every configuration in the space runs on every shape; only the device
// can reject one.
//
// Width and height are kernel arguments and the filter size and the
// configuration are build options, so one compiled program serves every
// image size with the same filter.
func Conv2D() *Kernel { return conv2dDefinition().build() }

// conv2d is the conv2d family's behaviour.
type conv2d struct{}

var _ family = conv2d{}

func conv2dDefinition() definition {
	return definition{
		params: []features.Param{
			{Name: "Xwg", Values: []int{8, 16, 32, 64}},
			{Name: "Ywg", Values: []int{8, 16, 32, 64}},
			{Name: "Xwpt", Values: []int{1, 2, 4, 8}},
			{Name: "Ywpt", Values: []int{1, 2, 4, 8}},
			{Name: "LS", Values: []int{0, 1, 2}},
			{Name: "VW", Values: []int{1, 2, 4, 8}},
			{Name: "PAD", Values: []int{0, 1}},
			{Name: "UNR", Values: []int{0, 1}},
		},
		constraints: []string{
			"Xwpt % VW == 0",
			"LS != 0 || PAD == 0",
		},
		kernel: Kernel{
			Name:      "conv2d",
			Doc:       "2D convolution (correlation) with a zero-padded border, after CLTune",
			Source:    conv2dSource,
			Entry:     "conv2d",
			TaskNames: []string{"width", "height", "filter_w", "filter_h"},
			Tasks: []features.Task{
				{256, 256, 3, 3},
				{512, 512, 5, 5},
				{1024, 1024, 3, 3},
				{1024, 1024, 7, 7},
				{1920, 1080, 5, 5},
				{2048, 2048, 9, 9},
				{2048, 2048, 11, 11},
			},
			// A plain configuration: 64 work-items, no local memory, no
			// vectors, which every OpenCL device runs.
			Reference: features.Config{8, 8, 1, 1, 0, 1, 0, 0},
			// The inputs are non-negative, so the float32 sums of at most
			// 121 products stay within a few ulp of the exact value
			// whatever the order of summation.
			Tolerance:   1e-4,
			Derived:     conv2dDerived{},
			GroupParams: []string{"Xwg", "Ywg"},
			impl:        conv2d{},
		},
	}
}

func (conv2d) checkTask(t features.Task) error { return checkConv2DTask(t) }

func (conv2d) options(t features.Task, c features.Config) string { return conv2dOptions(t, c) }

func (conv2d) geometry(t features.Task, c features.Config) (Launch, error) {
	return conv2dGeometry(t, c), nil
}

func (conv2d) args(t features.Task, rng *rand.Rand) []Arg { return conv2dArgs(t, rng) }

func (conv2d) want(t features.Task, args []Arg) []float32 { return conv2dWant(t, args) }

func (conv2d) work(t features.Task) (flops, bytes float64) {
	w, h := float64(t[conv2dWidth]), float64(t[conv2dHeight])
	fw, fh := float64(t[conv2dFilterW]), float64(t[conv2dFilterH])
	return 2 * w * h * fw * fh, 4 * (2*w*h + fw*fh)
}

// checkConv2DTask accepts images of 16 to 16384 pixels a side and odd
// filters of 3 to 11 taps a side.
func checkConv2DTask(t features.Task) error {
	if len(t) != 4 {
		return fmt.Errorf("%w: conv2d: shape has %d features, want 4 (width, height, filter_w, filter_h)", ErrTask, len(t))
	}
	for i, name := range []string{"width", "height"} {
		if v := t[i]; v < conv2dMinSide || v > conv2dMaxSide {
			return fmt.Errorf("%w: conv2d: %s must be in [%d, %d], got %d", ErrTask, name, conv2dMinSide, conv2dMaxSide, v)
		}
	}
	for i, name := range []string{"filter_w", "filter_h"} {
		if v := t[2+i]; v < conv2dMinFilter || v > conv2dMaxFilter || v%2 == 0 {
			return fmt.Errorf("%w: conv2d: %s must be odd and in [%d, %d], got %d", ErrTask, name, conv2dMinFilter, conv2dMaxFilter, v)
		}
	}
	return nil
}

// conv2dParamNames are the names of conv2d's parameters, in Config order.
var conv2dParamNames = [...]string{"Xwg", "Ywg", "Xwpt", "Ywpt", "LS", "VW", "PAD", "UNR"}

// conv2dOptions writes the filter size and every parameter as a
// definition; the image size stays out so that programs are shared
// between image sizes.
func conv2dOptions(t features.Task, c features.Config) string {
	var b strings.Builder
	b.WriteString("-D FW=")
	b.WriteString(strconv.Itoa(t[conv2dFilterW]))
	b.WriteString(" -D FH=")
	b.WriteString(strconv.Itoa(t[conv2dFilterH]))
	for i, name := range conv2dParamNames {
		b.WriteString(" -D ")
		b.WriteString(name)
		b.WriteByte('=')
		b.WriteString(strconv.Itoa(c[i]))
	}
	return b.String()
}

// conv2dGeometry mirrors the work-group and local tile sizes that
// conv2d.cl derives from the same definitions; t and c are checked.
func conv2dGeometry(t features.Task, c features.Config) Launch {
	g := conv2dShape(t, conv2dParamsOf(c))
	return Launch{
		Dims:          2,
		Global:        [3]int{g.groupsX * g.lx, g.groupsY * g.ly, 1},
		Local:         [3]int{g.lx, g.ly, 1},
		LocalMemBytes: g.localMem,
		// The filter is a __constant argument.
		ConstantMemBytes: 4 * t[conv2dFilterW] * t[conv2dFilterH],
	}
}

// conv2dGeom is the launch of one (task, configuration), unchecked: the
// geometry and the derived features share it.
type conv2dGeom struct {
	hx, hy           int // the filter's half widths
	tx, ty           int // outputs of one work-group in x and y
	lx, ly           int // work-items of one work-group in x and y
	groupsX, groupsY int
	localMem         int // bytes of local memory a work-group uses
}

func conv2dShape(t features.Task, p conv2dParams) conv2dGeom {
	var g conv2dGeom
	g.hx, g.hy = t[conv2dFilterW]/2, t[conv2dFilterH]/2
	g.tx, g.ty = p.xwg*p.xwpt, p.ywg*p.ywpt
	g.lx, g.ly = p.xwg, p.ywg
	if p.ls == 2 {
		// LS=2 adds work-items that only load the halo.
		g.lx += ceilDiv(2*g.hx, p.xwpt)
		g.ly += ceilDiv(2*g.hy, p.ywpt)
	}
	var tileW, tileH int // the local tile in floats, before padding
	switch p.ls {
	case 1:
		tileW, tileH = g.tx+2*g.hx, g.ty+2*g.hy
	case 2:
		tileW, tileH = g.lx*p.xwpt, g.ly*p.ywpt
	}
	if p.ls != 0 {
		g.localMem = 4 * (tileW + p.pad) * tileH
	}
	g.groupsX = ceilDiv(max(t[conv2dWidth], 1), max(g.tx, 1))
	g.groupsY = ceilDiv(max(t[conv2dHeight], 1), max(g.ty, 1))
	return g
}

// conv2dDerived computes conv2d's derived features. Its loads of a
// configuration without local memory count a load per tap and output, as
// conv2d.cl did before it read a work-item's window once. A version 2 that
// counted the kernel's work as it is now (private floats, global loads,
// a group's input bytes, flops) lowered the held-out picks on three of
// four sets and was removed (bench/RESULTS.md, sessions 14 and 15): a
// bundle recording "conv2d/2" is refused with features.ErrDerived.
type conv2dDerived struct{}

// conv2dDerivedNames are the derived features, in the order Derive writes
// them. Change conv2dDerivedID with any change here or in Derive.
var conv2dDerivedNames = []string{
	"tile_x", "tile_y", "tile", "wg_items", "halo_items",
	"groups_x", "groups_y", "groups", "items",
	"waves", "last_wave_fill", "items_per_cu",
	"pad_waste_x", "pad_waste_y", "pad_waste",
	"local_mem", "local_mem_frac", "groups_per_cu_by_local_mem",
	"outputs_per_item", "loads_per_item", "loads_per_output", "flops_per_load",
	"vector_loads_per_row", "pixels", "filter_area",
}

const conv2dDerivedID = "conv2d/1"

var (
	platCU       = features.PlatformIndex("compute_units")
	platLocalKiB = features.PlatformIndex("local_mem_kib")
)

func (conv2dDerived) ID() string { return conv2dDerivedID }

func (conv2dDerived) Names() []string { return append([]string(nil), conv2dDerivedNames...) }

// Derive writes the features for (t, c) on the platform pv. A platform
// vector of zeros (no device known) counts one compute unit and no local
// memory limit.
func (conv2dDerived) Derive(dst []float64, t features.Task, c features.Config, pv []float64) {
	p := conv2dParamsOf(c)
	g := conv2dShape(t, p)
	w, h := float64(t[conv2dWidth]), float64(t[conv2dHeight])
	fw, fh := float64(t[conv2dFilterW]), float64(t[conv2dFilterH])
	cu, localBytes := 1.0, 0.0
	if len(pv) > max(platCU, platLocalKiB) {
		cu = max(pv[platCU], 1)
		localBytes = pv[platLocalKiB] * 1024
	}
	tx, ty := float64(g.tx), float64(g.ty)
	tile := tx * ty
	wgItems := float64(g.lx * g.ly)
	groups := float64(g.groupsX * g.groupsY)
	waves := groups / cu
	fullWaves := math.Ceil(waves)
	lastFill := waves / fullWaves
	padX := float64(g.groupsX)*tx/w - 1
	padY := float64(g.groupsY)*ty/h - 1
	lmem := float64(g.localMem)
	lmemFrac, byLmem := 0.0, 64.0
	if localBytes > 0 && lmem > 0 {
		lmemFrac = lmem / localBytes
		byLmem = math.Min(math.Floor(localBytes/lmem), 64)
	}
	outputs := float64(p.xwpt * p.ywpt)
	var loadsItem, loadsOut float64
	if p.ls == 0 {
		loadsOut = fw * fh
		loadsItem = outputs * fw * fh
	} else {
		halo := (tx + 2*float64(g.hx)) * (ty + 2*float64(g.hy))
		loadsOut = halo / tile
		loadsItem = halo / wgItems
	}
	v := [...]float64{
		tx, ty, tile, wgItems, wgItems / float64(p.xwg*p.ywg),
		float64(g.groupsX), float64(g.groupsY), groups, groups * wgItems,
		waves, lastFill, groups * wgItems / cu,
		padX, padY, (1+padX)*(1+padY) - 1,
		lmem, lmemFrac, byLmem,
		outputs, loadsItem, loadsOut, fw * fh / loadsOut,
		float64(p.xwpt / p.vw), w * h, fw * fh,
	}
	copy(dst, v[:])
}

func conv2dArgs(t features.Task, rng *rand.Rand) []Arg {
	w, h := t[conv2dWidth], t[conv2dHeight]
	a := make([]float32, w*h)
	for i := range a {
		a[i] = rng.Float32()
	}
	f := make([]float32, t[conv2dFilterW]*t[conv2dFilterH])
	for i := range f {
		f[i] = rng.Float32()
	}
	return []Arg{
		{Name: "width", Kind: Int32, Int: int32(w)},
		{Name: "height", Kind: Int32, Int: int32(h)},
		{Name: "A", Kind: Input, Data: a},
		{Name: "F", Kind: Input, Data: f},
		{Name: "B", Kind: Output, Len: w * h},
	}
}

// conv2dWant computes the output of conv2d in float64 and rounds once,
// so that it is the exact result up to a half ulp. It works a row at a
// time with each filter tap's valid range of x clipped ahead of the loop,
// which keeps the inner loop free of bounds tests.
func conv2dWant(t features.Task, args []Arg) []float32 {
	w, h := t[conv2dWidth], t[conv2dHeight]
	fw, fh := t[conv2dFilterW], t[conv2dFilterH]
	hx, hy := fw/2, fh/2
	a, f := args[conv2dArgA].Data, args[conv2dArgF].Data
	out := make([]float32, w*h)
	acc := make([]float64, w)
	for y := 0; y < h; y++ {
		clear(acc)
		for j := 0; j < fh; j++ {
			yy := y + j - hy
			if yy < 0 || yy >= h {
				continue
			}
			row := a[yy*w : (yy+1)*w]
			for i := 0; i < fw; i++ {
				fv := float64(f[j*fw+i])
				d := i - hx // input column = output column + d
				lo, hi := max(0, -d), min(w, w-d)
				src := row[lo+d : hi+d]
				dst := acc[lo:hi]
				for x, v := range src {
					dst[x] += fv * float64(v)
				}
			}
		}
		for x, v := range acc {
			out[y*w+x] = float32(v)
		}
	}
	return out
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }
