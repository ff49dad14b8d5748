package opencl_test

import (
	"context"
	"fmt"

	"github.com/augur-tuning/augur/collect/opencl"
	"github.com/augur-tuning/augur/datasets"
)

// Example builds a kernel on the first device, runs it on four values and
// reads the result back.
func Example() {
	devs, err := opencl.Devices()
	if err != nil {
		fmt.Println(err)
		return
	}
	s, err := devs[0].Open()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()

	p, err := s.Build(`__kernel void axpb(__global const float *x, __global float *y, int b) {
		int i = get_global_id(0);
		y[i] = A * x[i] + b;
	}`, "-D A=3.0f", "axpb")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer p.Release()
	args, err := s.Bind([]datasets.Arg{
		{Name: "x", Kind: datasets.Input, Data: []float32{0, 1, 2, 3}},
		{Name: "y", Kind: datasets.Output, Len: 4},
		{Name: "b", Kind: datasets.Int32, Int: 1},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer args.Release()
	if _, err := s.Run(context.Background(), p, args, datasets.Launch{Dims: 1, Global: [3]int{4}, Local: [3]int{4}}); err != nil {
		fmt.Println(err)
		return
	}
	y := make([]float32, 4)
	if _, err := s.ReadOutput(args, y); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(y)

	_, err = s.Build("__kernel void broken( {}", "", "broken")
	fmt.Println(opencl.KindOf(err))
	// Output:
	// [1 4 7 10]
	// build failed
}
