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

// constant is a Refitter whose model predicts the mean target: the
// simplest correction of a prior.
type constant struct{}

type meanModel float64

func (constant) Refit(x []float64, nFeatures int, y []float64) (predict.Predictor, error) {
	s := 0.0
	for _, v := range y {
		s += v / float64(len(y))
	}
	return meanModel(s), nil
}

func (m meanModel) Predict([]float64) float64 { return float64(m) }

// ExamplePriorSearch tunes a space of 100 configurations, one feature
// each, whose log-speedup peaks at configuration 70, from a prior that
// knows the shape of the curve but not its level.
func ExamplePriorSearch() {
	var x, prior, truth []float64
	for i := range 100 {
		v := -math.Abs(float64(i-70)) / 20
		x, prior, truth = append(x, float64(i)), append(prior, v+1), append(truth, v)
	}
	measure := func(idx []int) ([]float64, error) {
		out := make([]float64, len(idx))
		for j, i := range idx {
			out[j] = truth[i]
		}
		return out, nil
	}
	ps := predict.PriorSpace{X: x, NumFeatures: 1, Prior: prior}
	r, err := predict.PriorSearch{Budget: 20}.Run(ps, constant{}, measure)
	if err != nil {
		panic(err)
	}
	fmt.Println(r.Best, math.Exp(r.LogSpeedup), r.Order[0], len(r.Order) <= 20)
	// Output: 70 1 70 true
}
