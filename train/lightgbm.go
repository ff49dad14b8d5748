package train

import (
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/augur-tuning/augur/predict/lightgbm"
)

// WriteLightGBM writes e in LightGBM's text model format, version v3, which
// github.com/dmitryikh/leaves loads (LGEnsembleFromReader) and LightGBM
// itself reads. featureNames name the columns of the vectors Predict takes;
// they may hold neither spaces nor '='.
//
// Numbers are written in the shortest form that reads back to the same
// float64, so that leaves predicts exactly what Predict does.
func (e *Ensemble) WriteLightGBM(w io.Writer, featureNames []string) error {
	o := e.opts
	leaves := o.MaxLeaves
	if leaves == 0 {
		leaves = 1 << o.MaxDepth
	}
	params := []param{{"boosting", "gbdt"}, {"objective", "regression"},
		{"num_iterations", strconv.Itoa(o.Trees)}, {"learning_rate", ftoa(o.LearningRate)},
		{"max_depth", strconv.Itoa(o.MaxDepth)}, {"num_leaves", strconv.Itoa(leaves)},
		{"min_data_in_leaf", strconv.Itoa(o.MinLeaf)}, {"max_bin", strconv.Itoa(o.MaxBins)},
		{"bagging_fraction", ftoa(o.Subsample)}, {"feature_fraction", ftoa(o.ColSample)},
		{"lambda_l2", ftoa(o.L2)}, {"early_stopping_round", strconv.Itoa(o.EarlyStop)}}
	return writeLightGBM(w, featureNames, e.trees, e.lo, e.hi, o.LearningRate, false, params)
}

// param is one line of the parameters section.
type param struct{ key, value string }

// writeLightGBM writes trees in LightGBM's text format through package
// lightgbm, which owns the format. A forest (average) is marked
// average_output, which makes leaves and LightGBM average the trees instead
// of summing them.
func writeLightGBM(w io.Writer, featureNames []string, trees []tree, lo, hi []float64, shrinkage float64, average bool, params []param) error {
	m, err := lightGBMModel(featureNames, trees, lo, hi, shrinkage, average, params)
	if err != nil {
		return err
	}
	return m.Write(w)
}

// lightGBMModel converts trees to a lightgbm.Model of one regression
// output. lo and hi are every feature's range in the training data.
func lightGBMModel(featureNames []string, trees []tree, lo, hi []float64, shrinkage float64, average bool, params []param) (*lightgbm.Model, error) {
	nf := len(lo)
	if len(featureNames) != nf {
		return nil, fmt.Errorf("train: %d feature names for a model of %d features", len(featureNames), nf)
	}
	infos := make([]string, nf)
	for f := range infos {
		if lo[f] == hi[f] {
			infos[f] = "none" // LightGBM's mark for a feature it cannot split
		} else {
			infos[f] = "[" + ftoa(lo[f]) + ":" + ftoa(hi[f]) + "]"
		}
	}
	m := &lightgbm.Model{
		Version:             "v3",
		NumClass:            1,
		NumTreePerIteration: 1,
		MaxFeatureIdx:       nf - 1,
		Objective:           "regression",
		Average:             average,
		FeatureNames:        slices.Clone(featureNames),
		FeatureInfos:        infos,
		Trees:               make([]lightgbm.Tree, len(trees)),
		Params:              make([]lightgbm.Param, len(params)),
	}
	for i := range trees {
		m.Trees[i] = trees[i].lightGBM(shrinkage)
	}
	for i, p := range params {
		m.Params[i] = lightgbm.Param{Key: p.key, Value: p.value}
	}
	return m, nil
}

// lightGBM converts t. Every split is numerical with default left and no
// missing-value rule (decision_type 2): a NaN counts as 0, as in predict.
// The per-node arrays are empty rather than nil for a one-leaf tree, so
// that their lines are written, empty, as LightGBM writes them.
func (t *tree) lightGBM(shrinkage float64) lightgbm.Tree {
	decision := make([]int8, len(t.feature))
	for k := range decision {
		decision[k] = 2
	}
	return lightgbm.Tree{
		NumLeaves:     len(t.leafValue),
		SplitFeature:  nonNil(t.feature),
		SplitGain:     nonNil(t.gain),
		Threshold:     nonNil(t.threshold),
		DecisionType:  decision,
		LeftChild:     nonNil(t.left),
		RightChild:    nonNil(t.right),
		LeafValue:     nonNil(t.leafValue),
		LeafCount:     nonNil(t.leafCount),
		InternalValue: nonNil(t.internalValue),
		InternalCount: nonNil(t.internalCount),
		Shrinkage:     shrinkage,
	}
}

// nonNil returns a copy of s that is not nil, even when s is empty.
func nonNil[T any](s []T) []T { return append(make([]T, 0, len(s)), s...) }

// ftoa writes v in the shortest form that parses back to v.
func ftoa(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
