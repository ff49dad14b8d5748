package imagefilter_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/augur-tuning/augur/collect/opencl"
	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/examples/imagefilter"
	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/runtime"
)

// Example filters three images on the first OpenCL device (PoCL on a
// development machine) and checks each output against datasets' plain-Go
// conv2d.
func Example() {
	devs, err := opencl.Devices()
	if err != nil {
		fmt.Println(err)
		return
	}
	f, err := imagefilter.New(devs[0])
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()

	k := datasets.Conv2D()
	rng := rand.New(rand.NewPCG(1, 2))
	for _, s := range []features.Task{{640, 480, 5, 5}, {333, 77, 3, 7}, {640, 480, 5, 5}} {
		w, h, fw, fh := s[0], s[1], s[2], s[3]
		args := k.Args(s, rng) // width, height, image, filter, output
		img, filter := args[2].Data, args[3].Data
		out, pick, err := f.Apply(context.Background(), img, w, h, filter, fw, fh)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%dx%d %dx%d: %s, matches the Go reference: %v\n", w, h, fw, fh, pick.Source, near(out, k.Want(s, args), k.Tolerance))
	}
	_, _, err = f.Apply(context.Background(), make([]float32, 64*64), 64, 64, make([]float32, 16), 4, 4)
	fmt.Println("even filter:", errors.Is(err, runtime.ErrShape))
	// Output:
	// 640x480 5x5: model:pocl-cpu-pthread-skylake-avx512-amd-epyc, matches the Go reference: true
	// 333x77 3x7: model:pocl-cpu-pthread-skylake-avx512-amd-epyc, matches the Go reference: true
	// 640x480 5x5: model:pocl-cpu-pthread-skylake-avx512-amd-epyc, matches the Go reference: true
	// even filter: true
}

func near(got, want []float32, tol float64) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if math.Abs(float64(got[i])-float64(want[i])) > tol*math.Max(1, math.Abs(float64(want[i]))) {
			return false
		}
	}
	return true
}
