package search_test

import (
	"fmt"

	"github.com/augur-tuning/augur/search"
)

// Random search's median best over a space of 10 configurations, of which
// 8 ran (times in milliseconds) and 2 failed: with 1 measurement the
// median draw is the 5th fastest; with 3, the second fastest.
func ExampleRandomMedian() {
	times := []float64{1, 2, 3, 4, 5, 6, 7, 8}
	for _, k := range []int{1, 3, 10} {
		fmt.Printf("%d measurements: %g ms\n", k, search.RandomMedian(times, 10, k))
	}
	// Output:
	// 1 measurements: 5 ms
	// 3 measurements: 2 ms
	// 10 measurements: 1 ms
}
