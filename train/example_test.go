package train_test

import (
	"bufio"
	"fmt"
	"log"
	"strings"

	"github.com/dmitryikh/leaves"

	"github.com/augur-tuning/augur/train"
)

// ExampleFitGBRT fits boosted trees to a step in one feature, writes them in
// LightGBM format, and loads them with leaves, as the runtime does.
func ExampleFitGBRT() {
	var x, y []float64
	for i := 0; i < 200; i++ {
		wg := float64(int(1) << (i % 7)) // work-group sizes 1 .. 64
		x = append(x, wg)
		if wg >= 16 {
			y = append(y, 1) // e^1: 2.7 times faster than the reference
		} else {
			y = append(y, 0)
		}
	}
	e, err := train.FitGBRT(x, 1, y, train.GBRTOptions{})
	if err != nil {
		log.Fatal(err)
	}
	var text strings.Builder
	if err := e.WriteLightGBM(&text, []string{"param.wg"}); err != nil {
		log.Fatal(err)
	}
	lg, err := leaves.LGEnsembleFromReader(bufio.NewReader(strings.NewReader(text.String())), true)
	if err != nil {
		log.Fatal(err)
	}
	for _, wg := range []float64{4, 8, 16, 64} {
		fmt.Printf("wg=%-2v train %.3f leaves %.3f\n", wg, e.Predict([]float64{wg}), lg.PredictSingle([]float64{wg}, 0))
	}
	// Output:
	// wg=4  train 0.000 leaves 0.000
	// wg=8  train 0.000 leaves 0.000
	// wg=16 train 1.000 leaves 1.000
	// wg=64 train 1.000 leaves 1.000
}
