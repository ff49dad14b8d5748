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

//go:embed fbcorr.cl
var fbcorrSource string

// Positions of fbcorr's task features.
const (
	fbcorrR = iota
	fbcorrC
	fbcorrD
	fbcorrF
	fbcorrH
	fbcorrW
)

// Positions of fbcorr's arguments.
const (
	fbcorrArgX  = 2 // the image as a buffer; 3 holds it as an image buffer
	fbcorrArgFb = 4 // the filterbank, padded with zero filters
)

// Limits of the fbcorr shapes that CheckTask accepts. The sides keep
// mul24's operands (rows times columns) within 24 bits.
const (
	fbcorrMaxSide   = 8192
	fbcorrMaxFilter = 16
	fbcorrMaxDepth  = 512
	fbcorrMaxBank   = 512
)

// fbcorrPadFilters is the multiple the filterbank argument is padded to
// with zero filters: the largest group of filters a work-item computes
// short of "all" (n_output_4s 2).
const fbcorrPadFilters = 8

// fbcorrMaxRRegInf and fbcorrAllOutputs encode the paper's "inf" and
// "all" in the integer values of maxrreg and n_output_4s.
const (
	fbcorrMaxRRegInf = 0
	fbcorrAllOutputs = 0
)

// fbcorrParams are the parameters of one configuration, by name; the
// fields follow the order of Fbcorr's space.
type fbcorrParams struct {
	bh, bw, nfr, n4, spill, imul, pad, tex, maxrreg, fastMath int
}

func fbcorrParamsOf(c features.Config) fbcorrParams {
	return fbcorrParams{c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8], c[9]}
}

// Fbcorr returns the filterbank correlation of Bergstra, Pinto and Cox
// (2012, sections 3 to 5): an R x C image of depth D correlated ("valid")
// with F filters of H x W x D, giving (R-H+1) x (C-W+1) x F.
//
// The space has the paper's ten parameters and values: block_h, block_w
// in {4, 8, 16, 32, 64, 128}; n_filter_r in {1, 2}; n_output_4s in {0 = all,
// 1, 2}; spill, imul_fast (mul24), pad_shared, use_tex1d (image memory for
// the input) in {0, 1}; maxrreg in {8, 16, 20, 24, 28, 32, 0 = inf}, passed
// as -cl-nv-maxrregcount; fast_math (-cl-fast-relaxed-math) in {0, 1}:
// 48,384 configurations, every one valid. maxrreg is an NVIDIA option, so
// CheckDevice allows only inf elsewhere, and use_tex1d only on devices
// with images; collect prunes the rest per device, with the work-groups
// and local memory the device cannot hold.
//
// R and C are kernel arguments; D, F, H, W and the configuration are
// build options.
func Fbcorr() *Kernel { return fbcorrDefinition().build() }

// fbcorr is the fbcorr family's behaviour.
type fbcorr struct{}

var (
	_ family        = fbcorr{}
	_ deviceChecker = fbcorr{}
)

func fbcorrDefinition() definition {
	return definition{
		params: []features.Param{
			{Name: "block_h", Values: []int{4, 8, 16, 32, 64, 128}},
			{Name: "block_w", Values: []int{4, 8, 16, 32, 64, 128}},
			{Name: "n_filter_r", Values: []int{1, 2}},
			{Name: "n_output_4s", Values: []int{fbcorrAllOutputs, 1, 2}},
			{Name: "spill", Values: []int{0, 1}},
			{Name: "imul_fast", Values: []int{0, 1}},
			{Name: "pad_shared", Values: []int{0, 1}},
			{Name: "use_tex1d", Values: []int{0, 1}},
			{Name: "maxrreg", Values: []int{8, 16, 20, 24, 28, 32, fbcorrMaxRRegInf}},
			{Name: "fast_math", Values: []int{0, 1}},
		},
		kernel: Kernel{
			Name:      "fbcorr",
			Doc:       "filterbank correlation (valid) of a deep image, after Bergstra, Pinto and Cox",
			Source:    fbcorrSource,
			Entry:     "fbcorr",
			TaskNames: []string{"R", "C", "D", "F", "H", "W"},
			// Points of the paper's task space (fbcorrTaskSpace), the
			// smallest arithmetic first.
			Tasks: []features.Task{
				{256, 256, 16, 32, 5, 5},
				{256, 256, 64, 16, 3, 3},
				{512, 512, 4, 64, 7, 7},
				{512, 512, 32, 32, 5, 5},
				{1024, 1024, 8, 8, 9, 9},
				{2048, 2048, 1, 64, 3, 3},
			},
			// Pinto and Cox's recommendation (section 4.1): 8 x 8 blocks, one
			// filter row, all outputs, no spill, mul24, padded shared memory,
			// texture fetches, no register limit, no fast math.
			Reference: features.Config{8, 8, 1, fbcorrAllOutputs, 0, 1, 1, 1, fbcorrMaxRRegInf, 0},
			Grid:      fbcorrGrid(),
			// Sums of up to 16 x 16 x 512 products of non-negative values;
			// fast math may contract them into fused multiply-adds.
			Tolerance: 1e-4,
			Derived:   fbcorrDerived{},
			impl:      fbcorr{},
		},
	}
}

// fbcorrGrid is Pinto and Cox's grid (Bergstra et al., section 4.1): every
// combination of n_filter_r, n_output_4s, spill and pad_shared for the
// blocks (block_h, block_w) = (16, 8), (16, 16) and (32, 8), the other
// parameters as in the reference; 72 points after the reference, 73 in all.
func fbcorrGrid() []features.Config {
	ref := features.Config{8, 8, 1, fbcorrAllOutputs, 0, 1, 1, 1, fbcorrMaxRRegInf, 0}
	out := []features.Config{ref}
	for _, b := range [][2]int{{16, 8}, {16, 16}, {32, 8}} {
		for _, rows := range []int{1, 2} {
			for _, n4 := range []int{fbcorrAllOutputs, 1, 2} {
				for _, spill := range []int{0, 1} {
					for _, pad := range []int{0, 1} {
						c := ref.Clone()
						c[0], c[1], c[2], c[3], c[4], c[6] = b[0], b[1], rows, n4, spill, pad
						out = append(out, c)
					}
				}
			}
		}
	}
	return out
}

// fbcorrTaskSpace returns the paper's task space (section 5): R = C in
// {256, ..., 4096}, H = W in {3, 5, 7, 9, 11}, D and F in {1, 4, 8, ...,
// 256}, restricted to correlations of 1 to 50 GFLOP (10^9), in that
// order of nesting. It has 602 shapes, the paper's count.
func fbcorrTaskSpace() []features.Task {
	depths := []int{1, 4, 8, 16, 32, 64, 128, 256}
	var out []features.Task
	for _, r := range []int{256, 512, 1024, 2048, 4096} {
		for _, h := range []int{3, 5, 7, 9, 11} {
			for _, d := range depths {
				for _, f := range depths {
					t := features.Task{r, r, d, f, h, h}
					if g := fbcorrFlops(t) / 1e9; g >= 1 && g <= 50 {
						out = append(out, t)
					}
				}
			}
		}
	}
	return out
}

func (fbcorr) checkTask(t features.Task) error {
	limits := [...]struct {
		i, lo, hi int
	}{
		{fbcorrR, 1, fbcorrMaxSide}, {fbcorrC, 1, fbcorrMaxSide},
		{fbcorrD, 1, fbcorrMaxDepth}, {fbcorrF, 1, fbcorrMaxBank},
		{fbcorrH, 1, fbcorrMaxFilter}, {fbcorrW, 1, fbcorrMaxFilter},
	}
	names := [...]string{"R", "C", "D", "F", "H", "W"}
	for _, l := range limits {
		if v := t[l.i]; v < l.lo || v > l.hi {
			return fmt.Errorf("%w: fbcorr: %s must be in [%d, %d], got %d", ErrTask, names[l.i], l.lo, l.hi, v)
		}
	}
	if t[fbcorrR] < t[fbcorrH] || t[fbcorrC] < t[fbcorrW] {
		return fmt.Errorf("%w: fbcorr: the image (%d x %d) must be at least the filter (%d x %d)", ErrTask, t[fbcorrR], t[fbcorrC], t[fbcorrH], t[fbcorrW])
	}
	return nil
}

// checkDevice allows maxrreg other than inf only on NVIDIA's platform,
// whose compiler alone takes -cl-nv-maxrregcount, and use_tex1d only on
// devices with images.
func (fbcorr) checkDevice(c features.Config, p features.Platform) error {
	q := fbcorrParamsOf(c)
	if q.maxrreg != fbcorrMaxRRegInf && !isNVIDIA(p) {
		return fmt.Errorf("%w: fbcorr: maxrreg=%d needs NVIDIA's OpenCL platform (-cl-nv-maxrregcount); %s offers only inf (0)", ErrDevice, q.maxrreg, p.PlatformName)
	}
	if q.tex == 1 && !p.ImageSupport {
		return fmt.Errorf("%w: fbcorr: use_tex1d=1 needs image support, %s has none", ErrDevice, p.Name)
	}
	return nil
}

// fbcorrN4 is the number of float4 accumulators of a work-item.
func fbcorrN4(t features.Task, p fbcorrParams) int {
	if p.n4 == fbcorrAllOutputs {
		return ceilDiv(max(t[fbcorrF], 1), 4)
	}
	return p.n4
}

// options writes the shape's compile-time sizes, the kernel's definitions
// and the compiler flags; R and C stay out so that programs are shared
// between image sizes.
func (fbcorr) options(t features.Task, c features.Config) string {
	p := fbcorrParamsOf(c)
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
	def("H", t[fbcorrH])
	def("W", t[fbcorrW])
	def("D", t[fbcorrD])
	def("F", t[fbcorrF])
	def("BH", p.bh)
	def("BW", p.bw)
	def("NFR", p.nfr)
	def("N4", fbcorrN4(t, p))
	def("SPILL", p.spill)
	def("IMUL", p.imul)
	def("PAD", p.pad)
	def("TEX", p.tex)
	if p.maxrreg != fbcorrMaxRRegInf {
		b.WriteString(" -cl-nv-maxrregcount=")
		b.WriteString(strconv.Itoa(p.maxrreg))
	}
	if p.fastMath == 1 {
		b.WriteString(" -cl-fast-relaxed-math")
	}
	return b.String()
}

func (fbcorr) geometry(t features.Task, c features.Config) (Launch, error) {
	g := fbcorrShape(t, fbcorrParamsOf(c))
	return Launch{
		Dims:          3,
		Global:        [3]int{g.groupsX * g.bw, g.groupsY * g.bh, g.passes},
		Local:         [3]int{g.bw, g.bh, 1},
		LocalMemBytes: g.localMem,
	}, nil
}

// fbcorrGeom is the launch of one (task, configuration), unchecked: the
// geometry and the derived features share it.
type fbcorrGeom struct {
	outR, outC       int
	bh, bw           int
	n4               int
	passes           int // groups of 4 * n4 filters: the NDRange's third dimension
	rowPasses        int // staging passes over the filter rows
	groupsX, groupsY int
	localMem         int
}

func fbcorrShape(t features.Task, p fbcorrParams) fbcorrGeom {
	var g fbcorrGeom
	g.outR, g.outC = max(t[fbcorrR]-t[fbcorrH]+1, 1), max(t[fbcorrC]-t[fbcorrW]+1, 1)
	g.bh, g.bw = p.bh, p.bw
	g.n4 = fbcorrN4(t, p)
	g.passes = ceilDiv(max(t[fbcorrF], 1), 4*g.n4)
	g.rowPasses = ceilDiv(max(t[fbcorrH], 1), p.nfr)
	g.groupsX = ceilDiv(g.outC, p.bw)
	g.groupsY = ceilDiv(g.outR, p.bh)
	tile := (p.bh + p.nfr - 1) * (p.bw + t[fbcorrW] - 1) * (t[fbcorrD] + p.pad)
	g.localMem = 4 * tile
	if p.spill == 1 {
		g.localMem += 4 * p.bh * p.bw
	}
	return g
}

func (fbcorr) args(t features.Task, rng *rand.Rand) []Arg {
	r, c, d, f, h, w := t[fbcorrR], t[fbcorrC], t[fbcorrD], t[fbcorrF], t[fbcorrH], t[fbcorrW]
	x := make([]float32, r*c*d)
	for i := range x {
		x[i] = rng.Float32()
	}
	// Zero filters past F, so that a work-item's last group of filters
	// reads inside the buffer whatever n_output_4s is.
	fp := ceilDiv(f, fbcorrPadFilters) * fbcorrPadFilters
	fb := make([]float32, fp*h*w*d)
	for i := range f * h * w * d {
		fb[i] = rng.Float32()
	}
	return []Arg{
		{Name: "R", Kind: Int32, Int: int32(r)},
		{Name: "C", Kind: Int32, Int: int32(c)},
		{Name: "X", Kind: Input, Data: x},
		// The same values; the kernel reads one or the other.
		{Name: "Ximg", Kind: ImageBuffer, Data: x},
		{Name: "Fb", Kind: Input, Data: fb},
		{Name: "Z", Kind: Output, Len: (r - h + 1) * (c - w + 1) * f},
	}
}

// want computes Z in float64 and rounds once. For each output row it
// accumulates image row r+h against filter row h, so that the innermost
// loop runs over contiguous filter channels.
func (fbcorr) want(t features.Task, args []Arg) []float32 {
	r, c, d, f, h, w := t[fbcorrR], t[fbcorrC], t[fbcorrD], t[fbcorrF], t[fbcorrH], t[fbcorrW]
	or, oc := r-h+1, c-w+1
	x, fb := args[fbcorrArgX].Data, args[fbcorrArgFb].Data
	hwd := h * w * d
	out := make([]float32, or*oc*f)
	acc := make([]float64, f)
	for y := range or {
		for col := range oc {
			clear(acc)
			for hh := range h {
				for ww := range w {
					px := x[((y+hh)*c+col+ww)*d:][:d]
					fo := (hh*w + ww) * d
					for k := range f {
						fk := fb[k*hwd+fo:][:d]
						var s float64
						for dd, v := range px {
							s += float64(v) * float64(fk[dd])
						}
						acc[k] += s
					}
				}
			}
			o := out[(y*oc+col)*f:][:f]
			for k, v := range acc {
				o[k] = float32(v)
			}
		}
	}
	return out
}

func (fbcorr) work(t features.Task) (flops, bytes float64) {
	return fbcorrFlops(t), fbcorrBytes(t)
}

// fbcorrFlops is the paper's Eq. 5: 2 F H W D (R-H+1) (C-W+1).
func fbcorrFlops(t features.Task) float64 {
	r, c, d, f, h, w := float64(t[fbcorrR]), float64(t[fbcorrC]), float64(t[fbcorrD]), float64(t[fbcorrF]), float64(t[fbcorrH]), float64(t[fbcorrW])
	return 2 * f * h * w * d * (r - h + 1) * (c - w + 1)
}

// fbcorrBytes is the paper's lower bound, Eq. 6: the image and the
// filterbank read once, the result written once.
func fbcorrBytes(t features.Task) float64 {
	r, c, d, f, h, w := float64(t[fbcorrR]), float64(t[fbcorrC]), float64(t[fbcorrD]), float64(t[fbcorrF]), float64(t[fbcorrH]), float64(t[fbcorrW])
	return 4*r*c*d + 4*f*h*w*d + 4*(r-h+1)*(c-w+1)*f
}

// fbcorrDerived computes fbcorr's derived features.
type fbcorrDerived struct{}

// fbcorrDerivedNames are the derived features, in the order Derive writes
// them. Change fbcorrDerivedID with any change here or in Derive.
var fbcorrDerivedNames = []string{
	"out_rows", "out_cols", "wg_items", "outputs_per_item", "filter_passes", "row_passes",
	"groups_x", "groups_y", "groups", "items",
	"waves", "last_wave_fill", "items_per_cu",
	"pad_waste_x", "pad_waste_y", "pad_waste", "filter_waste",
	"local_mem", "local_mem_frac", "groups_per_cu_by_local_mem",
	"stage_loads_per_output", "reg_limit",
	"gflop", "intensity", "image_bytes",
	"bank_ways", "stage_loads_per_fma", "acc_regs_frac",
}

const fbcorrDerivedID = "fbcorr/2"

func (fbcorrDerived) ID() string { return fbcorrDerivedID }

func (fbcorrDerived) Names() []string { return append([]string(nil), fbcorrDerivedNames...) }

// fbcorrRegCap is the register file a thread may use on NVIDIA's devices,
// the meaning of maxrreg inf.
const fbcorrRegCap = 255

// Derive writes the features for (t, c) on the platform pv. A platform
// vector of zeros (no device known) counts one compute unit and no local
// memory limit.
func (fbcorrDerived) Derive(dst []float64, t features.Task, c features.Config, pv []float64) {
	p := fbcorrParamsOf(c)
	g := fbcorrShape(t, p)
	cu, localBytes := 1.0, 0.0
	if len(pv) > max(platCU, platLocalKiB) {
		cu = max(pv[platCU], 1)
		localBytes = pv[platLocalKiB] * 1024
	}
	outR, outC := float64(g.outR), float64(g.outC)
	wgItems := float64(g.bh * g.bw)
	groups := float64(g.groupsX * g.groupsY * g.passes)
	waves := groups / cu
	lastFill := waves / math.Ceil(waves)
	padX := float64(g.groupsX*g.bw)/outC - 1
	padY := float64(g.groupsY*g.bh)/outR - 1
	f := float64(max(t[fbcorrF], 1))
	filterWaste := float64(g.passes*4*g.n4)/f - 1
	lmem := float64(g.localMem)
	lmemFrac, byLmem := 0.0, 64.0
	if localBytes > 0 && lmem > 0 {
		lmemFrac = lmem / localBytes
		byLmem = math.Min(math.Floor(localBytes/lmem), 64)
	}
	// Image values staged per output pixel, over all passes.
	d, w := float64(t[fbcorrD]), float64(t[fbcorrW])
	staged := float64(g.rowPasses*g.passes) * float64(p.bh+p.nfr-1) * (float64(p.bw) + w - 1) * d / wgItems
	regs := float64(p.maxrreg)
	if p.maxrreg == fbcorrMaxRRegInf {
		regs = fbcorrRegCap
	}
	// The kernel runs far below the device's arithmetic peak (on the
	// H100, bench/RESULTS.md session 19): for each staged value it reads
	// from local memory (bank_ways times over when lanes collide on a
	// bank) it issues four filter loads and four multiply-adds a float4
	// of accumulators, so what a configuration adds to the multiply-adds
	// decides its speed. Staging is another overhead: image values a
	// work-item loads into local memory per multiply-add it then does (D
	// cancels). The accumulators a work-item holds per register the
	// compiler may use tell where maxrreg forces spills.
	fmas := float64(4*g.n4*g.passes) * float64(t[fbcorrH]) * w * d
	flops := fbcorrFlops(t)
	ways := float64(fbcorrBankWays(t, p))
	v := [...]float64{
		outR, outC, wgItems, float64(4 * g.n4), float64(g.passes), float64(g.rowPasses),
		float64(g.groupsX), float64(g.groupsY), groups, groups * wgItems,
		waves, lastFill, groups * wgItems / cu,
		padX, padY, (1+padX)*(1+padY) - 1, filterWaste,
		lmem, lmemFrac, byLmem,
		staged, regs,
		flops / 1e9, flops / fbcorrBytes(t), 4 * float64(t[fbcorrR]*t[fbcorrC]) * d,
		ways, staged / fmas, float64(4*g.n4) / regs,
	}
	copy(dst, v[:])
}

// GPUs' local memory serves a warp's lanes from 32 banks of four bytes;
// lanes that fall on one bank at different addresses are served one
// after another. NVIDIA's warps and AMD's half-wavefronts have 32 lanes.
const (
	fbcorrBanks = 32
	fbcorrWarp  = 32
)

// fbcorrBankWays is the bank conflict of the inner loop's local-memory
// read: the most lanes of one warp that read one bank at once. Lane
// (lx, ly) of a work-group reads the staged pixel (ly + hh, lx + w),
// channel d, at float (((ly + hh) * TW + lx + w) * DP + d): the lanes
// differ by DP floats along a row and by TW * DP between rows, so
// channels D without the pad put every lane of a row on the same few
// banks (D = 32: all on one), and pad_shared (DP = D + 1) spreads them.
// Every lane reads a different float, so no read is a broadcast; the
// offsets hh, w and d move every lane alike and do not change the count.
func fbcorrBankWays(t features.Task, p fbcorrParams) int {
	tw := p.bw + t[fbcorrW] - 1
	dp := t[fbcorrD] + p.pad
	var perBank [fbcorrBanks]int
	ways, lanes := 0, min(fbcorrWarp, p.bh*p.bw)
	// Lanes run along a row (lx), then to the next (ly). The addresses
	// are stepped rather than multiplied: Choose derives every candidate
	// it scores.
	for row, lane := 0, 0; lane < lanes; row += tw * dp {
		for a := row; a < row+p.bw*dp && lane < lanes; a += dp {
			b := a & (fbcorrBanks - 1) // a >= 0, and the banks a power of two
			perBank[b]++
			ways = max(ways, perBank[b])
			lane++
		}
	}
	return ways
}
