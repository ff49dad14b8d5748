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

// ExampleFitForest fits a random forest to a noisy step and reads the
// trees' spread as the model's uncertainty, then loads the forest with
// leaves, which averages the trees because the file says average_output.
func ExampleFitForest() {
	var x, y []float64
	for i := 0; i < 400; i++ {
		wg := float64(int(1) << (i % 7)) // work-group sizes 1 .. 64
		v := 0.0
		if wg >= 16 {
			v = 1 + 0.5*float64(i%3-1) // noisy where the step is up
		}
		x, y = append(x, wg), append(y, v)
	}
	f, err := train.FitForest(x, 1, y, train.ForestOptions{Trees: 50, Seed: 1})
	if err != nil {
		log.Fatal(err)
	}
	var text strings.Builder
	if err := f.WriteLightGBM(&text, []string{"param.wg"}); err != nil {
		log.Fatal(err)
	}
	lg, err := leaves.LGEnsembleFromReader(bufio.NewReader(strings.NewReader(text.String())), true)
	if err != nil {
		log.Fatal(err)
	}
	for _, wg := range []float64{4, 32} {
		mean, std := f.PredictSpread([]float64{wg})
		fmt.Printf("wg=%-2v mean %.1f spread>0 %v leaves %.1f\n", wg, mean, std > 0, lg.PredictSingle([]float64{wg}, 0))
	}
	// Output:
	// wg=4  mean 0.0 spread>0 false leaves 0.0
	// wg=32 mean 1.0 spread>0 true leaves 1.0
}

// ExampleImportances ranks the features of a model by the error their
// splits remove, from the model's LightGBM text, as 'augur inspect' does.
func ExampleImportances() {
	var x, y []float64
	for i := 0; i < 500; i++ {
		wg, unroll := float64(i%8), float64(i%5)
		x, y = append(x, wg, unroll), append(y, wg*wg+0.1*unroll)
	}
	e, err := train.FitGBRT(x, 2, y, train.GBRTOptions{})
	if err != nil {
		log.Fatal(err)
	}
	var text strings.Builder
	if err := e.WriteLightGBM(&text, []string{"param.wg", "param.unroll"}); err != nil {
		log.Fatal(err)
	}
	imp, err := train.Importances(text.String())
	if err != nil {
		log.Fatal(err)
	}
	for _, im := range imp {
		fmt.Printf("%s used: %v\n", im.Feature, im.Splits > 0)
	}
	// Output:
	// param.wg used: true
	// param.unroll used: true
}

// ExampleClassForestOptions fits augur's random-forest classifier to a
// made-up rule (class 1 above a width of 1000, class 0 below), writes it as
// a LightGBM multiclass model, and reads the probabilities back with
// leaves, whose raw scores are the forest's class probabilities.
func ExampleClassForestOptions() {
	var x []float64
	var y []int
	for w := 100; w <= 4000; w += 100 {
		x = append(x, float64(w))
		if w > 1000 {
			y = append(y, 1)
		} else {
			y = append(y, 0)
		}
	}
	f, err := train.ClassForestOptions{Trees: 20, Seed: 1}.FitClasses(x, 1, y, 2)
	if err != nil {
		log.Fatal(err)
	}
	var text strings.Builder
	if err := f.WriteLightGBM(&text, []string{"task.width"}); err != nil {
		log.Fatal(err)
	}
	lg, err := leaves.LGEnsembleFromReader(bufio.NewReader(strings.NewReader(text.String())), false)
	if err != nil {
		log.Fatal(err)
	}
	p := make([]float64, 2)
	for _, w := range []float64{300, 3000} {
		if err := lg.Predict([]float64{w}, 0, p); err != nil {
			log.Fatal(err)
		}
		fmt.Printf("width %v: class %d, leaves' probabilities %.2f\n", w, f.Class([]float64{w}), p)
	}
	// Output:
	// width 300: class 0, leaves' probabilities [1.00 0.00]
	// width 3000: class 1, leaves' probabilities [0.00 1.00]
}
