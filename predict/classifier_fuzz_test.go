package predict_test

import (
	"strconv"
	"testing"

	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/predict"
)

// FuzzParseClassifier: any text either is refused with an error or gives
// a classifier that classifies every shape into one of its classes, with
// a probability in [0, 1], without panicking.
func FuzzParseClassifier(f *testing.F) {
	names := features.ClassFeatures([]string{"width", "height"}, nil)
	for _, k := range []int{2, 3} {
		f.Add(classifierTextOver(names, k, "multiclass num_class:"+strconv.Itoa(k)), k)
	}
	f.Add(classifierTextOver(names, 3, "regression"), 3)
	f.Add("", 2)
	f.Fuzz(func(t *testing.T, text string, k int) {
		if k < 2 || k > predict.MaxClasses {
			k = 2
		}
		classes := make([]int, k)
		for i := range classes {
			classes[i] = 10 * (i + 1)
		}
		c, err := predict.ParseClassifier(text, "p", classes, names, nil)
		if err != nil {
			return
		}
		platform := c.PlatformVector(features.Platform{ComputeUnits: 16, ClockMHz: 1000})
		for _, shape := range []features.Task{{0, 0}, {640, 480}, {1 << 20, 3}} {
			if err := c.Check(shape, platform); err != nil {
				t.Fatalf("accepted classifier refuses a shape of its own length: %v", err)
			}
			v, p := c.Class(shape, platform)
			if v%10 != 0 || v < 10 || v > 10*k {
				t.Fatalf("class %d of %v is none of %v", v, shape, classes)
			}
			if !(p >= 0 && p <= 1) {
				t.Fatalf("probability %g of %v outside [0, 1]", p, shape)
			}
		}
	})
}
