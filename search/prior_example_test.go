package search_test

import (
	"fmt"
	"math"

	"github.com/augur-tuning/augur/search"
)

// constant is a Refitter whose model predicts the mean target: the
// simplest correction of a prior.
type constant struct{}

type meanModel float64

func (constant) Refit(x []float64, nFeatures int, y []float64) (search.Predictor, error) {
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
	ps := search.PriorSpace{X: x, NumFeatures: 1, Prior: prior}
	r, err := search.PriorSearch{Budget: 20}.Run(ps, constant{}, measure)
	if err != nil {
		panic(err)
	}
	fmt.Println(r.Best, math.Exp(r.LogSpeedup), r.Order[0], len(r.Order) <= 20)
	// Output: 70 1 70 true
}
