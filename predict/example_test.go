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
