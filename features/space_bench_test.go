package features

import (
	"testing"

	"github.com/expr-lang/expr"
)

// gemmParams and gemmConstraints copy CLTune's GEMM space (the gemm family
// in datasets), so that the speed of NewSpace is measured on the largest
// space augur ships without importing datasets.
var gemmParams = []Param{
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
}

var gemmConstraints = []string{
	"KWG % KWI == 0",
	"MWG % (MDIMC * VWM) == 0",
	"NWG % (NDIMC * VWN) == 0",
	"MWG % (MDIMA * VWM) == 0",
	"NWG % (NDIMB * VWN) == 0",
	"KWG % int(MDIMC * NDIMC / MDIMA) == 0",
	"KWG % int(MDIMC * NDIMC / NDIMB) == 0",
}

func BenchmarkNewSpaceGEMM(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		s, err := NewSpace(gemmParams, gemmConstraints)
		if err != nil {
			b.Fatal(err)
		}
		if s.Len() == 0 {
			b.Fatal("empty space")
		}
	}
}

// BenchmarkConstraintEval evaluates one untabulated constraint, the
// benchmark hub's hotspot's shared-memory bound (23 nodes), as expr's VM
// runs it and as Calc's closures do; NewSpace uses Calc where it compiles.
func BenchmarkConstraintEval(b *testing.B) {
	const c = "(block_size_x * tile_size_x + temporal_tiling_factor * 2) * (block_size_y * tile_size_y + temporal_tiling_factor * 2) * (2 + sh_power) * 4 <= 49152"
	names := []string{"block_size_x", "tile_size_x", "temporal_tiling_factor", "block_size_y", "tile_size_y", "sh_power"}
	b.Run("vm", func(b *testing.B) {
		env := map[string]any{}
		for _, n := range names {
			env[n] = 3
		}
		prog, err := expr.Compile(c, exprOptions(expr.Env(env), expr.AsBool())...)
		if err != nil {
			b.Fatal(err)
		}
		for i := 0; b.Loop(); i++ {
			env["sh_power"] = i & 1
			run(prog, env)
		}
	})
	b.Run("calc", func(b *testing.B) {
		k, err := CompileCalc(c, names)
		if err != nil {
			b.Fatal(err)
		}
		v := []float64{3, 3, 3, 3, 3, 3}
		for i := 0; b.Loop(); i++ {
			v[5] = float64(i & 1)
			k.Eval(v)
		}
	})
}
