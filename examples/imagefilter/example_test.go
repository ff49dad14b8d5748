package imagefilter_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"

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

// Example_tune times the model's first 3 candidates at the first call for a
// shape, keeps the fastest in a wisdom file, and answers from the file
// afterwards, in this Filter and in the next one opened on the file.
func Example_tune() {
	devs, err := opencl.Devices()
	if err != nil {
		fmt.Println(err)
		return
	}
	dir, err := os.MkdirTemp("", "imagefilter")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "conv2d.wisdom")

	k := datasets.Conv2D()
	s := features.Task{256, 192, 3, 3}
	args := k.Args(s, rand.New(rand.NewPCG(1, 2)))
	img, filter := args[2].Data, args[3].Data
	apply := func(f *imagefilter.Filter) string {
		out, pick, err := f.Apply(context.Background(), img, s[0], s[1], filter, s[2], s[3])
		if err != nil {
			return err.Error()
		}
		return fmt.Sprintf("from the wisdom: %v, matches the Go reference: %v", pick.Source == runtime.SourceWisdom, near(out, k.Want(s, args), k.Tolerance))
	}
	f, err := imagefilter.Open(devs[0], imagefilter.Options{Tune: 3, WisdomPath: path})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("first call:", apply(f))
	fmt.Println("second call:", apply(f))
	f.Close()

	w, err := runtime.OpenWisdom(path, runtime.WisdomOptions{KernelVersion: k.Version()})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("timings in the file:", len(w.Records()))
	w.Close()

	g, err := imagefilter.Open(devs[0], imagefilter.Options{Tune: 3, WisdomPath: path})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer g.Close()
	fmt.Println("next filter:", apply(g))
	// Output:
	// first call: from the wisdom: false, matches the Go reference: true
	// second call: from the wisdom: true, matches the Go reference: true
	// timings in the file: 3
	// next filter: from the wisdom: true, matches the Go reference: true
}
