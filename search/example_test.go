package search_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/search"
)

func Example() {
	s, _ := features.NewSpace([]features.Param{
		{Name: "wg", Values: []int{8, 16, 32, 64}},
		{Name: "wpt", Values: []int{1, 2, 4, 8}},
	}, []string{"wg * wpt <= 128"})
	// A made-up objective that peaks at wg=32, wpt=4.
	obj := func(c features.Config) (float64, error) {
		return -float64((c[0]-32)*(c[0]-32) + (c[1]-4)*(c[1]-4)), nil
	}
	res, _ := search.Run(search.HillClimb{Start: features.Config{8, 1}}, s, obj, rand.New(rand.NewPCG(1, 2)), search.Settings{})
	fmt.Println(s.Format(res.Best), res.Evals)
	// Output: wg=32,wpt=4 76
}
