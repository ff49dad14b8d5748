package eval_test

import (
	"fmt"

	"github.com/augur-tuning/augur/eval"
)

// Example replays search strategies on the whole conv2d space recorded on
// an NVIDIA H200, with no device.
func Example() {
	rep, err := eval.Evaluate("../testdata/h200", eval.Options{Kernel: "conv2d", Seeds: 5, Budgets: []int{6400},
		TwoStageSeeds: 1, Thresholds: []float64{0.01}})
	if err != nil {
		panic(err)
	}
	fmt.Println(len(rep.Shapes), "shapes,", rep.Rows, "rows")
	for _, s := range rep.Strategies {
		if s.Strategy == "random" {
			// A random search as large as the space finds every optimum.
			fmt.Printf("random search, budget %d: %.0f%% of the optimum\n", s.Budget, s.Median)
		}
	}
	// Output:
	// 6 shapes, 38400 rows
	// random search, budget 6400: 100% of the optimum
}

// ExampleTable3 replays Garvey and Abdelrahman's grouped heuristics,
// their oracles and random sampling over the whole conv2d space recorded
// on PoCL, with the local-memory variant playing the data loading
// technique, fixed at that of each shape's fastest recorded
// configuration.
func ExampleTable3() {
	roles, err := eval.KernelRoles("conv2d")
	if err != nil {
		panic(err)
	}
	rep, err := eval.Table3("../testdata/pocl", eval.Table3Options{Kernel: "conv2d", Technique: roles.Technique, Dims: roles.Dims})
	if err != nil {
		panic(err)
	}
	for _, r := range rep.Devices[0].Rows {
		fmt.Printf("%-9s %-13s speedup %.2f, %3.0f configurations compiled, best on %d of %d\n",
			r.Group, r.Strategy, r.Speedup, r.Configs, r.BestCount, rep.Devices[0].Kernels)
	}
	// Output:
	// baseline  random        speedup 1.00, 970 configurations compiled, best on 2 of 2
	// oracle    dimensions    speedup 0.91, 216 configurations compiled, best on 1 of 2
	// oracle    optimizations speedup 0.58, 203 configurations compiled, best on 0 of 2
	// oracle    hybrid        speedup 0.92, 238 configurations compiled, best on 1 of 2
	// heuristic dimensions    speedup 0.91,  77 configurations compiled, best on 1 of 2
	// heuristic optimizations speedup 0.58,  75 configurations compiled, best on 0 of 2
	// heuristic hybrid        speedup 0.92,  92 configurations compiled, best on 1 of 2
}
