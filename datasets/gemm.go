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

//go:embed gemm.cl
var gemmSource string

// Limits and steps of the GEMM shapes that CheckTask accepts: M and N are
// multiples of the largest MWG and NWG (128) and K of the largest KWG
// (32), so that every configuration of the space tiles every shape.
const (
	gemmStepMN = 128
	gemmStepK  = 32
	gemmMax    = 8192
)

// Positions of gemm's task features and arguments.
const (
	gemmM = iota
	gemmN
	gemmK
)

const (
	gemmArgA     = 5
	gemmArgB     = 6
	gemmArgCin   = 7
	gemmArgAlpha = 3
	gemmArgBeta  = 4
)

// gemmAlpha and gemmBeta are the scalars of every measured run: exact in
// float32, and beta not 0 so that the kernel reads C as a library call
// with beta != 0 does.
const (
	gemmAlpha = 1.5
	gemmBeta  = 0.5
)

// gemmParams are the parameters of one configuration, by name; the fields
// follow the order of GEMM's space.
type gemmParams struct {
	mwg, nwg, kwg, mdimc, ndimc, mdima, ndimb, kwi, vwm, vwn, strm, strn, sa, sb int
}

func gemmParamsOf(c features.Config) gemmParams {
	return gemmParams{c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8], c[9], c[10], c[11], c[12], c[13]}
}

// GEMM returns the matrix-multiplication family of CLTune's case study
// (Nugteren & Codreanu 2015, section VI; CLBlast's xgemm): C = alpha *
// A^T B + beta * C in single precision, A stored K x M, B K x N and C
// N x M (M contiguous). C is read from one buffer and written to another
// so that runs repeat.
//
// The space is CLTune's exactly (samples/gemm/gemm.cc, table IV): MWG,
// NWG in {16,32,64,128}, KWG in {16,32}, MDIMC, NDIMC, MDIMA, NDIMB in
// {8,16,32}, KWI in {2,8}, VWM, VWN in {1,2,4,8} and STRM, STRN, SA, SB in
// {0,1}, under CLTune's seven constraints (KWI divides KWG; MDIMC*VWM and
// MDIMA*VWM divide MWG; NDIMC*VWN and NDIMB*VWN divide NWG; KWG is a
// multiple of KDIMA = MDIMC*NDIMC/MDIMA and of KDIMB = MDIMC*NDIMC/NDIMB):
// 1,327,104 raw and 241,600 valid configurations, the count CLTune's paper
// reports at 2048^3. CLTune also dropped what the device could not run
// (work-groups over 1024 items, local memory over 32 KiB in
// gemm_search_methods.cc), which removes none of them: the largest
// work-group is 32 x 32 and the largest tiles take 32 KiB. Here those
// limits are collect's business, per device.
//
// The shape must be a multiple of every tile: M and N multiples of 128, K
// a multiple of 32, each at most 8192, as CLTune assumed and CLBlast
// arranges by padding. So every configuration runs on every shape and
// the kernel's loops carry no bounds tests. M, N, K, alpha and beta are
// kernel arguments and the configuration is build options, so one
// program serves every shape.
func GEMM() *Kernel { return gemmDefinition().build() }

// gemm is the gemm family's behaviour.
type gemm struct{}

var _ family = gemm{}

// gemmParamNames are the names of gemm's parameters, in Config order.
var gemmParamNames = [...]string{"MWG", "NWG", "KWG", "MDIMC", "NDIMC", "MDIMA", "NDIMB", "KWI", "VWM", "VWN", "STRM", "STRN", "SA", "SB"}

func gemmDefinition() definition {
	return definition{
		params: []features.Param{
			{Name: "MWG", Values: []int{16, 32, 64, 128}},
			{Name: "NWG", Values: []int{16, 32, 64, 128}},
			{Name: "KWG", Values: []int{16, 32}},
			{Name: "MDIMC", Values: []int{8, 16, 32}},
			{Name: "NDIMC", Values: []int{8, 16, 32}},
			{Name: "MDIMA", Values: []int{8, 16, 32}},
			{Name: "NDIMB", Values: []int{8, 16, 32}},
			{Name: "KWI", Values: []int{2, 8}},
			{Name: "VWM", Values: []int{1, 2, 4, 8}},
			{Name: "VWN", Values: []int{1, 2, 4, 8}},
			{Name: "STRM", Values: []int{0, 1}},
			{Name: "STRN", Values: []int{0, 1}},
			{Name: "SA", Values: []int{0, 1}},
			{Name: "SB", Values: []int{0, 1}},
		},
		// CLTune's constraints, in its order; "int(x / y)" is C's
		// integer division, since "/" divides in floating point here.
		constraints: []string{
			"KWG % KWI == 0",
			"MWG % (MDIMC * VWM) == 0",
			"NWG % (NDIMC * VWN) == 0",
			"MWG % (MDIMA * VWM) == 0",
			"NWG % (NDIMB * VWN) == 0",
			"KWG % int(MDIMC * NDIMC / MDIMA) == 0",
			"KWG % int(MDIMC * NDIMC / NDIMB) == 0",
		},
		kernel: Kernel{
			Name:      "gemm",
			Doc:       "single-precision GEMM C = alpha A^T B + beta C, after CLTune and CLBlast's xgemm",
			Source:    gemmSource,
			Entry:     "gemm",
			TaskNames: []string{"M", "N", "K"},
			Tasks: []features.Task{
				{256, 256, 256},
				{512, 512, 512},
				{1024, 1024, 1024},
				{2048, 2048, 2048},
				{1024, 256, 512},
				{256, 1024, 2048},
				{4096, 128, 256},
			},
			// A plain configuration: 8 x 8 work-items of 2 x 2 values,
			// no local memory, no vectors, no strides, which every
			// OpenCL device runs.
			Reference: features.Config{16, 16, 16, 8, 8, 8, 8, 2, 1, 1, 0, 0, 0, 0},
			// Inputs are non-negative, so a float32 sum of K <= 8192
			// products in any order lies within K * 2^-24 < 5e-4 of the
			// exact value, relatively.
			Tolerance: 1e-3,
			Derived:   gemmDerived{},
			impl:      gemm{},
		},
	}
}

// checkTask accepts M and N in multiples of 128 and K in multiples of 32,
// each at most 8192.
func (gemm) checkTask(t features.Task) error {
	for i, name := range []string{"M", "N", "K"} {
		step := gemmStepMN
		if i == gemmK {
			step = gemmStepK
		}
		if v := t[i]; v < step || v > gemmMax || v%step != 0 {
			return fmt.Errorf("%w: gemm: %s must be a multiple of %d in [%d, %d], got %d", ErrTask, name, step, step, gemmMax, v)
		}
	}
	return nil
}

// options writes every parameter as a definition; the shape stays out so
// that programs are shared between shapes.
func (gemm) options(_ features.Task, c features.Config) string {
	var b strings.Builder
	for i, name := range gemmParamNames {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString("-D ")
		b.WriteString(name)
		b.WriteByte('=')
		b.WriteString(strconv.Itoa(c[i]))
	}
	return b.String()
}

// geometry launches MDIMC x NDIMC work-items a work-group and one
// work-group a MWG x NWG tile of C.
func (gemm) geometry(t features.Task, c features.Config) (Launch, error) {
	p := gemmParamsOf(c)
	return Launch{
		Dims:          2,
		Global:        [3]int{t[gemmM] / p.mwg * p.mdimc, t[gemmN] / p.nwg * p.ndimc, 1},
		Local:         [3]int{p.mdimc, p.ndimc, 1},
		LocalMemBytes: gemmLocalMem(p),
	}, nil
}

// gemmLocalMem is the local memory of a configuration in bytes: the
// KWG x MWG tile of A when SA is 1 and the KWG x NWG tile of B when SB is
// 1. CLTune's own formula divides each tile by its vector width, which
// counts vectors, not floats.
func gemmLocalMem(p gemmParams) int {
	return 4 * p.kwg * (p.sa*p.mwg + p.sb*p.nwg)
}

func (gemm) args(t features.Task, rng *rand.Rand) []Arg {
	m, n, k := t[gemmM], t[gemmN], t[gemmK]
	fill := func(size int) []float32 {
		x := make([]float32, size)
		for i := range x {
			x[i] = rng.Float32()
		}
		return x
	}
	return []Arg{
		{Name: "M", Kind: Int32, Int: int32(m)},
		{Name: "N", Kind: Int32, Int: int32(n)},
		{Name: "K", Kind: Int32, Int: int32(k)},
		{Name: "alpha", Kind: Float32, Float: gemmAlpha},
		{Name: "beta", Kind: Float32, Float: gemmBeta},
		{Name: "A", Kind: Input, Data: fill(k * m)},
		{Name: "B", Kind: Input, Data: fill(k * n)},
		{Name: "Cin", Kind: Input, Data: fill(n * m)},
		{Name: "C", Kind: Output, Len: n * m},
	}
}

// want computes C in float64 and rounds once. It runs over k in the outer
// loop so that the inner loop reads A and writes a row of sums in order.
func (gemm) want(t features.Task, args []Arg) []float32 {
	m, n, k := t[gemmM], t[gemmN], t[gemmK]
	a, b, cin := args[gemmArgA].Data, args[gemmArgB].Data, args[gemmArgCin].Data
	alpha, beta := float64(args[gemmArgAlpha].Float), float64(args[gemmArgBeta].Float)
	out := make([]float32, n*m)
	acc := make([]float64, m)
	for j := 0; j < n; j++ {
		clear(acc)
		for p := 0; p < k; p++ {
			bv := float64(b[p*n+j])
			for i, av := range a[p*m : (p+1)*m] {
				acc[i] += float64(av) * bv
			}
		}
		for i, s := range acc {
			out[j*m+i] = float32(alpha*s + beta*float64(cin[j*m+i]))
		}
	}
	return out
}

func (gemm) work(t features.Task) (flops, bytes float64) {
	m, n, k := float64(t[gemmM]), float64(t[gemmN]), float64(t[gemmK])
	return 2 * m * n * k, 4 * (m*k + n*k + 2*m*n)
}

// gemmDerived computes gemm's derived features.
type gemmDerived struct{}

// gemmDerivedNames are the derived features, in the order Derive writes
// them. Change gemmDerivedID with any change here or in Derive.
var gemmDerivedNames = []string{
	"mwi", "nwi", "outputs_per_item", "wg_items", "tile", "kdima", "kdimb",
	"groups_m", "groups_n", "groups", "items", "k_steps",
	"waves", "last_wave_fill", "items_per_cu",
	"local_mem", "local_mem_frac", "groups_per_cu_by_local_mem",
	"global_loads_per_item", "local_loads_per_item", "flops_per_global_load",
	"a_reads", "b_reads", "vectors_m", "vectors_n", "registers",
	"flops", "m_over_n", "k_over_mn",
}

const gemmDerivedID = "gemm/1"

func (gemmDerived) ID() string { return gemmDerivedID }

func (gemmDerived) Names() []string { return append([]string(nil), gemmDerivedNames...) }

// Derive writes the features for (t, c) on the platform pv. A platform
// vector of zeros (no device known) counts one compute unit and no local
// memory limit. Loads count floats, per step of KWG in K.
func (gemmDerived) Derive(dst []float64, t features.Task, c features.Config, pv []float64) {
	p := gemmParamsOf(c)
	m, n, k := float64(t[gemmM]), float64(t[gemmN]), float64(t[gemmK])
	cu, localBytes := 1.0, 0.0
	if len(pv) > max(platCU, platLocalKiB) {
		cu = max(pv[platCU], 1)
		localBytes = pv[platLocalKiB] * 1024
	}
	mwg, nwg, kwg := float64(p.mwg), float64(p.nwg), float64(p.kwg)
	mwi, nwi := float64(p.mwg/p.mdimc), float64(p.nwg/p.ndimc)
	wgItems := float64(p.mdimc * p.ndimc)
	groupsM, groupsN := math.Ceil(m/mwg), math.Ceil(n/nwg)
	groups := groupsM * groupsN
	waves := groups / cu
	lastFill := waves / math.Ceil(waves)
	lmem := float64(gemmLocalMem(p))
	lmemFrac, byLmem := 0.0, 64.0
	if localBytes > 0 && lmem > 0 {
		lmemFrac = lmem / localBytes
		byLmem = math.Min(math.Floor(localBytes/lmem), 64)
	}
	// Global loads of one work-item per KWG step: its share of a staged
	// tile, or every value of A (B) its own outputs need.
	loadA, loadB := mwi*kwg, nwi*kwg
	localLoads := 0.0
	aReads, bReads := float64(p.ndimc), float64(p.mdimc) // times each value is read
	if p.sa == 1 {
		loadA = mwg * kwg / wgItems
		localLoads += mwi * kwg
		aReads = 1
	}
	if p.sb == 1 {
		loadB = nwg * kwg / wgItems
		localLoads += nwi * kwg
		bReads = 1
	}
	flopsItem := 2 * mwi * nwi * kwg
	v := [...]float64{
		mwi, nwi, mwi * nwi, wgItems, mwg * nwg,
		float64(p.mdimc * p.ndimc / p.mdima), float64(p.mdimc * p.ndimc / p.ndimb),
		groupsM, groupsN, groups, groups * wgItems, k / kwg,
		waves, lastFill, groups * wgItems / cu,
		lmem, lmemFrac, byLmem,
		loadA + loadB, localLoads, flopsItem / (loadA + loadB),
		aReads * groupsN, bReads * groupsM,
		mwi / float64(p.vwm), nwi / float64(p.vwn), mwi*nwi + mwi + nwi,
		2 * m * n * k, m / n, k / math.Sqrt(m*n),
	}
	copy(dst, v[:])
}
