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
