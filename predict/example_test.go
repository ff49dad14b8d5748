package predict_test

import (
	"fmt"
	"math"
	"os"

	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/predict"
)

func Example() {
	data, err := os.ReadFile("../testdata/conv2d-pocl.augur")
	if err != nil {
		panic(err)
	}
	b, err := features.ReadBundle(data)
	if err != nil {
		panic(err)
	}
	m, err := predict.Load(b, "", datasets.Deriver(b.Kernel))
	if err != nil {
		panic(err)
	}
	space, _ := b.Space()
	task := features.Task{1024, 768, 5, 5}
	ranked := m.Rank(task, space.All())
	best := math.Exp(ranked[0].LogSpeedup)
	fmt.Println(len(ranked) == space.Len(), best >= math.Exp(m.Predict(task, b.Reference)))
	// Output: true true
}

// ExampleScorer_ScoreBatchAbove ranks every configuration that ran in the
// training data and keeps the three best, scoring in full only those that
// can reach the third best of a few scored first.
func ExampleScorer_ScoreBatchAbove() {
	data, err := os.ReadFile("../testdata/conv2d-h200.augur")
	if err != nil {
		panic(err)
	}
	b, err := features.ReadBundle(data)
	if err != nil {
		panic(err)
	}
	m, err := predict.Load(b, "", datasets.Deriver(b.Kernel))
	if err != nil {
		panic(err)
	}
	known := b.Models[0].Known
	sc := m.Scorer(features.Task{1920, 1080, 5, 5})
	// Three configurations' scores: the three best score at least the
	// least of them.
	few, fewOK := make([]float64, 3), make([]bool, 3)
	sc.ScoreBatch(known[:3], few, fewOK)
	floor := min(few[0], few[1], few[2])

	all, allOK := make([]float64, len(known)), make([]bool, len(known))
	sc.ScoreBatch(known, all, allOK)
	above, aboveOK := make([]float64, len(known)), make([]bool, len(known))
	sc.ScoreBatchAbove(known, above, aboveOK, floor)
	same, dropped := 0, 0
	for i := range known {
		switch {
		case above[i] == all[i]:
			same++
		case math.IsInf(above[i], -1) && all[i] < floor:
			dropped++
		}
	}
	fmt.Println(same+dropped == len(known), dropped > 0)
	// Output: true true
}
