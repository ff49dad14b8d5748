package lightgbm_test

import (
	"fmt"
	"strings"

	"github.com/augur-tuning/augur/predict/lightgbm"
)

// Example writes a one-split model, reads it back and predicts with it.
func Example() {
	m := &lightgbm.Model{
		Version: "v3", NumClass: 1, NumTreePerIteration: 1,
		MaxFeatureIdx: 1, Objective: "regression",
		FeatureNames: []string{"task.width", "param.wg"},
		FeatureInfos: []string{"[1:4096]", "[8:64]"},
		Trees: []lightgbm.Tree{{
			NumLeaves:    2,
			SplitFeature: []int32{1}, // param.wg
			Threshold:    []float64{16},
			DecisionType: []int8{2},
			LeftChild:    []int32{^0}, // leaf 0
			RightChild:   []int32{^1}, // leaf 1
			LeafValue:    []float64{-0.25, 0.5},
			Shrinkage:    1,
		}},
	}
	var text strings.Builder
	if err := m.Write(&text); err != nil {
		fmt.Println(err)
		return
	}
	back, err := lightgbm.Parse(text.String())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(back.Regression())
	fmt.Println(back.Predict([]float64{1024, 16}), back.Predict([]float64{1024, 32}))

	// A corrupted child index is reported with its line, never followed.
	_, err = lightgbm.Parse(strings.Replace(text.String(), "left_child=-1", "left_child=0", 1))
	fmt.Println(err)
	// Output:
	// <nil>
	// -0.25 0.5
	// lightgbm: line 18: tree 0: left_child[0] is 0: node 0 is reached twice (a cycle or a shared subtree)
}
