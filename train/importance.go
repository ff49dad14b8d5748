package train

import (
	"bufio"
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
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
// writes it, or LightGBM itself) and returns the importance of every
// feature from the trees' split_feature and split_gain lines, ordered by
// Gain, then Splits, most important first; ties keep column order.
// Reading the text rather than a fitted model works on any bundle.
func Importances(lightGBM string) ([]Importance, error) {
	var imp []Importance
	var feats []int
	sc := bufio.NewScanner(strings.NewReader(lightGBM))
	sc.Buffer(nil, 64<<20) // a deep tree's lines are long
	line := 0
	for sc.Scan() {
		line++
		key, val, ok := strings.Cut(sc.Text(), "=")
		if !ok {
			continue
		}
		switch key {
		case "feature_names":
			if imp != nil {
				return nil, fmt.Errorf("train: LightGBM line %d: second feature_names", line)
			}
			for _, n := range strings.Fields(val) {
				imp = append(imp, Importance{Feature: n})
			}
		case "split_feature":
			feats = feats[:0]
			for _, s := range strings.Fields(val) {
				f, err := strconv.Atoi(s)
				if err != nil || f < 0 || f >= len(imp) {
					return nil, fmt.Errorf("train: LightGBM line %d: split feature %q is not one of %d features", line, s, len(imp))
				}
				feats = append(feats, f)
				imp[f].Splits++
			}
		case "split_gain":
			gains := strings.Fields(val)
			if len(gains) != len(feats) {
				return nil, fmt.Errorf("train: LightGBM line %d: %d split gains for %d splits", line, len(gains), len(feats))
			}
			for i, s := range gains {
				g, err := strconv.ParseFloat(s, 64)
				if err != nil {
					return nil, fmt.Errorf("train: LightGBM line %d: split gain: %w", line, err)
				}
				imp[feats[i]].Gain += g
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("train: read LightGBM model: %w", err)
	}
	if imp == nil {
		return nil, fmt.Errorf("train: LightGBM model has no feature_names line")
	}
	slices.SortStableFunc(imp, func(a, b Importance) int {
		if c := cmp.Compare(b.Gain, a.Gain); c != 0 {
			return c
		}
		return cmp.Compare(b.Splits, a.Splits)
	})
	return imp, nil
}
