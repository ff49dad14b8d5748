package collect_test

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/augur-tuning/augur/collect"
	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/features"
)

// Example_measure times two work-group sizes of a kernel that doubles a
// vector. The second asks for more work-items than any device allows, so
// it is pruned without being compiled.
func Example_measure() {
	space, _ := features.NewSpace([]features.Param{{Name: "WG", Values: []int{16, 1 << 20}}}, nil)
	k := datasets.Define(datasets.Kernel{
		Name:      "double",
		Source:    `__kernel void double_it(__global const float *x, __global float *y) { int i = get_global_id(0); y[i] = 2.0f * x[i]; }`,
		Entry:     "double_it",
		Space:     space,
		TaskNames: []string{"n"},
		Reference: features.Config{16},
		Tolerance: 1e-6,
	}, datasets.Funcs{
		Geometry: func(t features.Task, c features.Config) (datasets.Launch, error) {
			return datasets.Launch{Dims: 1, Global: [3]int{max(t[0], c[0])}, Local: [3]int{c[0]}}, nil
		},
		Args: func(t features.Task, rng *rand.Rand) []datasets.Arg {
			x := make([]float32, t[0])
			for i := range x {
				x[i] = rng.Float32()
			}
			return []datasets.Arg{{Name: "x", Kind: datasets.Input, Data: x}, {Name: "y", Kind: datasets.Output, Len: t[0]}}
		},
		Want: func(_ features.Task, args []datasets.Arg) []float32 {
			y := make([]float32, len(args[0].Data))
			for i, v := range args[0].Data {
				y[i] = 2 * v
			}
			return y
		},
	})
	rows, err := collect.Measure(context.Background(), k, features.Task{4096}, space.All(), collect.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range rows {
		fmt.Printf("%s: %s, log speedup %.1f\n", space.Format(r.Config), r.Status, r.LogSpeedup)
	}
	// Output:
	// WG=16: ok, log speedup 0.0
	// WG=1048576: pruned, log speedup NaN
}
