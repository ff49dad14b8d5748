package features

import "testing"

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
