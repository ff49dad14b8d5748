package opencl_test

import (
	"math/rand/v2"
	"testing"

	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/features"
)

// TestStencilDevice runs every pattern in every dimensionality it has,
// with orientations along each axis and radii 0 to 5, on small arrays (one
// whose sides no tile divides), and compares every output with the Go
// reference. Stencil j runs under techniques j%4 and (j+2)%4, which gives
// every pattern and every dimensionality all four data-loading
// techniques. The configurations are drawn at random from those the
// device runs on each array.
func TestStencilDevice(t *testing.T) {
	k := datasets.Stencil()
	r := newFamilyRig(t, k)
	const (
		dense = iota
		star
		diamond
		noCorners
		thumbtack
	)
	// pattern, dims, radius, orient; the large dense 3D stencils are left
	// to the collections, since their compile alone takes seconds.
	stencils := [][4]int{
		{dense, 1, 0, 0},
		{dense, 1, 3, 0},
		{dense, 1, 5, 1},
		{dense, 1, 2, 2},
		{star, 2, 1, 2},
		{dense, 2, 2, 1},
		{diamond, 2, 3, 0},
		{noCorners, 2, 2, 2},
		{thumbtack, 3, 1, 0},
		{thumbtack, 3, 2, 1},
		{thumbtack, 3, 4, 2},
		{star, 3, 5, 0},
		{dense, 3, 1, 0},
		{diamond, 3, 2, 0},
		{noCorners, 3, 1, 0},
	}
	sizes := [][3]int{{32, 32, 32}, {48, 19, 13}}
	all := k.Space.All()
	tech := k.Space.Param("technique")
	rng := rand.New(rand.NewPCG(4, 11))
	var cases []familyCase
	for i, s := range stencils {
		n := sizes[i%len(sizes)]
		task := features.Task{s[0], s[1], s[2], s[3], n[0], n[1], n[2]}
		for _, technique := range []int{i % 4, (i + 2) % 4} {
			var fit []features.Config
			for _, c := range all {
				if c[tech] != technique {
					continue
				}
				if r.pruned(familyCase{task, c}) == nil {
					fit = append(fit, c)
				}
			}
			if len(fit) == 0 {
				t.Logf("%v: no configuration with technique=%d runs on this device", task, technique)
				continue
			}
			cases = append(cases, familyCase{task, fit[rng.IntN(len(fit))]})
		}
	}
	cases = append(cases, familyCase{features.Task{dense, 1, 1, 0, 64, 16, 16}, k.Reference})
	covered := runFamily(t, r, cases)
	want := []string{"technique"}
	if !r.plat.ImageSupport {
		t.Log("the device has no images: technique=3 is not run")
		want = nil
	}
	checkCoverage(t, k.Space, covered, want...)
}
