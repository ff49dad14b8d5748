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
	return writeModel(w, &e.model, featureNames)
}

// gbrtParams is the parameters section of a boosted model fitted with o.
func gbrtParams(o GBRTOptions) []param {
	leaves := o.MaxLeaves
	if leaves == 0 {
		leaves = 1 << o.MaxDepth
	}
	return []param{{"boosting", "gbdt"}, {"objective", "regression"},
		{"num_iterations", strconv.Itoa(o.Trees)}, {"learning_rate", ftoa(o.LearningRate)},
		{"max_depth", strconv.Itoa(o.MaxDepth)}, {"num_leaves", strconv.Itoa(leaves)},
		{"min_data_in_leaf", strconv.Itoa(o.MinLeaf)}, {"max_bin", strconv.Itoa(o.MaxBins)},
		{"bagging_fraction", ftoa(o.Subsample)}, {"feature_fraction", ftoa(o.ColSample)},
		{"lambda_l2", ftoa(o.L2)}, {"early_stopping_round", strconv.Itoa(o.EarlyStop)}}
}

// param is one line of the parameters section.
type param struct{ key, value string }

// newModel returns the model of trees, every learner's one fitted form:
// one regression output, the trees summed, or averaged (a forest, marked
// average_output, which makes leaves and LightGBM average the trees
// instead of summing them). lo and hi are every feature's range in the
// training data, for feature_infos. The feature names are placeholders
// until writeModel names them: a model is fitted to columns, and named
// when written.
func newModel(trees []lightgbm.Tree, lo, hi []float64, average bool, params []param) lightgbm.Model {
	nf := len(lo)
	infos := make([]string, nf)
	names := make([]string, nf)
	for f := range infos {
		names[f] = "f" + strconv.Itoa(f)
		if lo[f] == hi[f] {
			infos[f] = "none" // LightGBM's mark for a feature it cannot split
		} else {
			infos[f] = "[" + ftoa(lo[f]) + ":" + ftoa(hi[f]) + "]"
		}
	}
	m := lightgbm.Model{
		Version:             "v3",
		NumClass:            1,
		NumTreePerIteration: 1,
		MaxFeatureIdx:       nf - 1,
		Objective:           "regression",
		Average:             average,
		FeatureNames:        names,
		FeatureInfos:        infos,
		Trees:               trees,
		Params:              make([]lightgbm.Param, len(params)),
	}
	for i, p := range params {
		m.Params[i] = lightgbm.Param{Key: p.key, Value: p.value}
	}
	return m
}

// setTargetRange records in m the least and the greatest of the targets y
// it was fitted to (lightgbm.ParamTargetRange), so that predictions
// beyond what the model saw can be clamped and flagged where it is
// loaded. y must be finite and not empty, as checkData has it.
func setTargetRange(m *lightgbm.Model, y []float64) error {
	if err := m.SetTargetRange(slices.Min(y), slices.Max(y)); err != nil {
		return fmt.Errorf("train: %w", err)
	}
	return nil
}

// writeModel writes m, its features named featureNames, through
// lightgbm.Model.Write, the one writer of the format.
func writeModel(w io.Writer, m *lightgbm.Model, featureNames []string) error {
	if nf := m.NumFeatures(); len(featureNames) != nf {
		return fmt.Errorf("train: %d feature names for a model of %d features", len(featureNames), nf)
	}
	named := *m
	named.FeatureNames = slices.Clone(featureNames)
	return named.Write(w)
}

// ftoa writes v in the shortest form that parses back to v.
func ftoa(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
