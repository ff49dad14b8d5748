package train

import (
	"cmp"
	"slices"

	"github.com/augur-tuning/augur/predict/lightgbm"
)

// Importance is how much a model relies on one feature.
type Importance struct {
	Feature string
	// Gain is the reduction of the squared training error (L2 penalized
	// where GBRTOptions.L2 is set) by the splits on the feature, summed
	// over all trees; for a forest, over bootstrap samples.
	Gain float64
	// Splits is the number of splits on the feature in all trees.
	Splits int
}

// Importances reads a model in LightGBM text format (as WriteLightGBM
// writes it, or LightGBM itself for numerical splits) and returns the
// importance of every feature from the trees' split_feature and split_gain,
// ordered by Gain, then Splits, most important first; ties keep column
// order. Reading the text rather than a fitted model works on any bundle.
// The text is read by lightgbm.Parse, so a malformed model is an error
// (a *lightgbm.SyntaxError naming the line); a tree without split_gain
// counts its splits with no gain.
func Importances(lightGBM string) ([]Importance, error) {
	m, err := lightgbm.Parse(lightGBM)
	if err != nil {
		return nil, err
	}
	imp := make([]Importance, len(m.FeatureNames))
	for f, n := range m.FeatureNames {
		imp[f].Feature = n
	}
	for _, t := range m.Trees {
		for i, f := range t.SplitFeature {
			imp[f].Splits++
			if t.SplitGain != nil {
				imp[f].Gain += t.SplitGain[i]
			}
		}
	}
	slices.SortStableFunc(imp, func(a, b Importance) int {
		if c := cmp.Compare(b.Gain, a.Gain); c != 0 {
			return c
		}
		return cmp.Compare(b.Splits, a.Splits)
	})
	return imp, nil
}
