package search_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/search"
)

// byFirstValue is a failure model that predicts a configuration to fail
// when every measured configuration with its first value failed.
type byFirstValue struct{ ran, failed map[int]int }

func (m byFirstValue) Observe(c features.Config, failed bool) bool {
	if failed {
		m.failed[c[0]]++
	} else {
		m.ran[c[0]]++
	}
	return true
}

func (m byFirstValue) PFail(c features.Config) float64 {
	if m.failed[c[0]] > 0 && m.ran[c[0]] == 0 {
		return 1
	}
	return 0
}

// ExampleFirstStage draws a first stage of 64 from a space of 256 where
// work-groups of 8 or more fail, and those of 12 or more are known to
// break the device's limits: the stage passes over what is known or
// learnt to fail, and measures fewer configurations than the uniform
// sample it stands for.
func ExampleFirstStage() {
	var valid []features.Config
	var pruned []bool
	for wg := range 16 {
		for unroll := range 16 {
			valid = append(valid, features.Config{wg, unroll})
			pruned = append(pruned, wg >= 12)
		}
	}
	order := rand.New(rand.NewPCG(1, 2)).Perm(len(valid))
	model := byFirstValue{ran: map[int]int{}, failed: map[int]int{}}
	res, err := search.FirstStage{Size: 64}.Run(valid, order, pruned, model, func(idx []int) ([]bool, error) {
		failed := make([]bool, len(idx))
		for j, i := range idx {
			failed[j] = valid[i][0] >= 8
		}
		return failed, nil
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("measured %d of 64: %d ran, %d failed; %d known to fail, %d predicted to fail\n",
		res.Measured, res.Measured-res.Failed, res.Failed, res.Pruned, res.Passed)
	// Output: measured 41 of 64: 32 ran, 9 failed; 16 known to fail, 7 predicted to fail
}
