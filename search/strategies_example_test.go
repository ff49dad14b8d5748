package search_test

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/search"
)

// exampleSpace is a work-group size and work-per-thread space with a
// made-up objective that peaks at wg=32, wpt=4.
func exampleSpace() (*features.Space, search.Objective) {
	s, _ := features.NewSpace([]features.Param{
		{Name: "wg", Values: []int{8, 16, 32, 64, 128}},
		{Name: "wpt", Values: []int{1, 2, 4, 8, 16}},
	}, []string{"wg * wpt <= 512"})
	obj := func(c features.Config) (float64, error) {
		return -float64((c[0]-32)*(c[0]-32) + (c[1]-4)*(c[1]-4)), nil
	}
	return s, obj
}

func ExampleAnneal() {
	s, obj := exampleSpace()
	res, _ := search.Run(search.Anneal{Temperature: 100}, s, obj, rand.New(rand.NewPCG(1, 2)), search.Settings{Budget: 15})
	fmt.Println(s.Format(res.Best), res.Evals)
	// Output: wg=32,wpt=4 15
}

func ExamplePSO() {
	s, obj := exampleSpace()
	res, _ := search.Run(search.PSO{}, s, obj, rand.New(rand.NewPCG(1, 2)), search.Settings{Budget: 15})
	fmt.Println(s.Format(res.Best), res.Evals)
	// Output: wg=32,wpt=4 15
}

// Grouped search tunes the work-group size first, then the work per
// thread, twice over: 9 evaluations in the first round, 4 new ones in the
// second.
func ExampleGrouped() {
	s, obj := exampleSpace()
	res, _ := search.Run(search.Grouped{
		Groups: [][]string{{"wg"}, {"wpt"}},
		Start:  features.Config{8, 1},
	}, s, obj, nil, search.Settings{})
	fmt.Println(s.Format(res.Best), res.Evals)
	// Output: wg=32,wpt=4 13
}

// A harness runs every strategy with the same number of evaluations: the
// driver, Run, stops each of them at the budget.
func ExampleRun() {
	s, obj := exampleSpace()
	for _, st := range []search.Strategy{search.Random{}, search.HillClimb{}, search.Anneal{Temperature: 100}, search.PSO{}, search.Exhaustive{}} {
		res, _ := search.Run(st, s, obj, rand.New(rand.NewPCG(3, 4)), search.Settings{Budget: 10})
		fmt.Printf("%T: %s after %d evaluations\n", st, s.Format(res.Best), res.Evals)
	}
	// Output:
	// search.Random: wg=32,wpt=4 after 10 evaluations
	// search.HillClimb: wg=32,wpt=1 after 10 evaluations
	// search.Anneal: wg=32,wpt=4 after 10 evaluations
	// search.PSO: wg=32,wpt=4 after 10 evaluations
	// search.Exhaustive: wg=16,wpt=4 after 10 evaluations
}

// Replay runs a strategy over recorded times, with no device: here the
// recording holds three configurations, one of which failed.
func ExampleReplay() {
	s, _ := exampleSpace()
	times := map[string]float64{ // in nanoseconds
		"wg=8,wpt=1":  4000,
		"wg=32,wpt=4": 1000,
		"wg=64,wpt=8": 2000,
	}
	obj, err := search.Replay(s, times, 4000) // wg=8,wpt=1 is the reference
	if err != nil {
		fmt.Println(err)
		return
	}
	res, _ := search.Run(search.Exhaustive{}, s, obj, nil, search.Settings{})
	fmt.Printf("%s: log-speedup %.3f\n", s.Format(res.Best), res.Score)
	_, err = obj(features.Config{16, 2})
	fmt.Println(err)
	// Output:
	// wg=32,wpt=4: log-speedup 1.386
	// search: configuration not recorded: wg=16,wpt=2
}

// Garvey and Abdelrahman's hybrid heuristic on a stencil-like space: the
// work-group and merge factors of each dimension are tuned together, then
// every shape of the work-group's size is tried; the data loading
// technique is held at the value a classifier would predict (Fixed), or
// tried in turn with the best kept (Oracle).
func ExampleHybrid() {
	v := []int{1, 2, 4, 8}
	s, _ := features.NewSpace([]features.Param{
		{Name: "WX", Values: v}, {Name: "WY", Values: v}, {Name: "CX", Values: v}, {Name: "CY", Values: v},
		{Name: "technique", Values: []int{0, 1, 2}},
	}, []string{"WX * WY <= 16"})
	// A made-up objective: a 4x4 work-group, two elements a work-item in
	// x, technique 1.
	obj := func(c features.Config) (float64, error) {
		d := func(x, y int) float64 { return math.Abs(math.Log2(float64(x)) - math.Log2(float64(y))) }
		return -d(c[0], 4) - d(c[1], 4) - d(c[2], 2) - d(c[3], 1) - float64((c[4]-1)*(c[4]-1)), nil
	}
	h, err := search.Hybrid(s, search.Dims{WorkGroup: []string{"WX", "WY"}, Cyclic: []string{"CX", "CY"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, st := range []search.Strategy{
		search.Fixed{Strategy: h, Param: "technique", Value: 2},
		search.Oracle{Strategy: h, Param: "technique"},
	} {
		res, _ := search.Run(st, s, obj, rand.New(rand.NewPCG(1, 2)), search.Settings{})
		fmt.Printf("%T: %s after %d evaluations\n", st, s.Format(res.Best), res.Evals)
	}
	// Output:
	// search.Fixed: WX=4,WY=4,CX=2,CY=1,technique=2 after 40 evaluations
	// search.Oracle: WX=4,WY=4,CX=2,CY=1,technique=1 after 120 evaluations
}

// A device that allows work-groups of 32 items at most: random search with
// Settings.Pruned spends its 10 evaluations on configurations within that
// limit, and the ones over it that it drew cost nothing.
func ExampleSettings_pruned() {
	s, obj := exampleSpace()
	overLimit := func(c features.Config) bool { return c[0] > 32 }
	res, _ := search.Run(search.Random{}, s, obj, rand.New(rand.NewPCG(3, 4)), search.Settings{Budget: 10, Pruned: overLimit})
	fmt.Printf("%s after %d evaluations, %d over the limit passed over\n", s.Format(res.Best), res.Evals, res.Pruned)
	// Output: wg=32,wpt=4 after 10 evaluations, 2 over the limit passed over
}
