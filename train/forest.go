package train

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strconv"

	"github.com/augur-tuning/augur/predict/lightgbm"
)

// ForestOptions configure a random forest of regression trees (Breiman
// 2001). The zero value of each field means the default in its comment.
type ForestOptions struct {
	// Trees is the number of trees; 0 means 100, at most 100000.
	Trees int
	// MaxDepth is the depth of each tree; 0 means 12, at most 32. Forest
	// trees are grown deep, since averaging, not shrinkage, keeps them
	// from overfitting.
	MaxDepth int
	// MinLeaf is the least number of drawn rows in a leaf; 0 means 5.
	// Above MinLeafScale rows it grows with the rows.
	MinLeaf int
	// MinLeafScale is the number of rows above which MinLeaf scales with
	// the rows: a forest fitted on n > MinLeafScale rows needs MinLeaf x
	// n / MinLeafScale drawn rows a leaf (rounded down), so that its trees
	// are about as fine as on MinLeafScale rows and its size stops
	// growing with the rows (the default selection's forest, 50 trees of
	// depth 14 and 3 rows a leaf, made 1.1M nodes on a million rows,
	// bench/RESULTS.md, session 14). 0 means DefaultSelectRows, the most
	// rows Select scores a candidate on, so that the forest fitted on
	// every row is as fine as the one scored; < 0 means MinLeaf at any
	// size.
	MinLeafScale int
	// Subsample is the size of each tree's bootstrap sample (rows drawn
	// with replacement) as a fraction of the rows; 0 means 1, else in
	// (0, 1].
	Subsample float64
	// ColSample is the fraction of the features drawn at random for every
	// split, at least one, counting only features that take two values or
	// more in the data; 0 means 1 (all of them, as scikit-learn's
	// RandomForestRegressor), else in (0, 1]. The textbook 1/3 was the
	// least accurate setting measured on tuning data (bench/RESULTS.md):
	// on one device only the few tuning parameters vary, so a split saw
	// two or three of them.
	ColSample float64
	// MaxBins is the most histogram bins per feature; 0 means 255, at
	// least 2 (see GBRTOptions.MaxBins).
	MaxBins int
	// Seed draws the bootstrap samples and the features of each split.
	Seed uint64
}

// withDefaults returns o with zero fields set to their defaults, or an
// error naming the first invalid field.
func (o ForestOptions) withDefaults() (ForestOptions, error) {
	if o.Trees == 0 {
		o.Trees = 100
	}
	if o.MaxDepth == 0 {
		o.MaxDepth = 12
	}
	if o.MinLeaf == 0 {
		o.MinLeaf = 5
	}
	if o.MinLeafScale == 0 {
		o.MinLeafScale = DefaultSelectRows
	}
	if o.Subsample == 0 {
		o.Subsample = 1
	}
	if o.ColSample == 0 {
		o.ColSample = 1
	}
	if o.MaxBins == 0 {
		o.MaxBins = 255
	}
	switch {
	case o.Trees < 1 || o.Trees > 100_000:
		return o, fmt.Errorf("train: ForestOptions.Trees must be in [1, 100000], got %d", o.Trees)
	case o.MaxDepth < 1 || o.MaxDepth > 32:
		return o, fmt.Errorf("train: ForestOptions.MaxDepth must be in [1, 32], got %d", o.MaxDepth)
	case o.MinLeaf < 1:
		return o, fmt.Errorf("train: ForestOptions.MinLeaf must be >= 1, got %d", o.MinLeaf)
	case !(o.Subsample > 0 && o.Subsample <= 1):
		return o, fmt.Errorf("train: ForestOptions.Subsample must be in (0, 1], got %g", o.Subsample)
	case !(o.ColSample > 0 && o.ColSample <= 1):
		return o, fmt.Errorf("train: ForestOptions.ColSample must be in (0, 1], got %g", o.ColSample)
	case o.MaxBins < 2 || o.MaxBins > 255:
		return o, fmt.Errorf("train: ForestOptions.MaxBins must be in [2, 255], got %d", o.MaxBins)
	}
	return o, nil
}

// minLeafAt is the least drawn rows a leaf of a forest fitted on n rows
// (see MinLeafScale); o is resolved.
func (o ForestOptions) minLeafAt(n int) int {
	if o.MinLeafScale < 0 || n <= o.MinLeafScale {
		return o.MinLeaf
	}
	return int(int64(o.MinLeaf) * int64(n) / int64(o.MinLeafScale))
}

// options returns the resolved options by name, for the bundle.
func (o ForestOptions) options() map[string]float64 {
	return map[string]float64{
		"trees": float64(o.Trees), "max_depth": float64(o.MaxDepth), "min_leaf": float64(o.MinLeaf),
		"subsample": o.Subsample, "colsample": o.ColSample, "max_bins": float64(o.MaxBins),
	}
}

// Forest is a fitted random forest: the prediction is the mean of its
// trees' outputs, and their spread says how much the trees disagree.
type Forest struct {
	// model holds the trees as they are written, marked average_output.
	model lightgbm.Model
}

// FitForest fits a random forest to the n rows of x (row-major, nFeatures
// values a row) and targets y: every tree is grown on a bootstrap sample
// of the rows, choosing each split among a random subset of the features,
// to MaxDepth or until leaves have MinLeaf rows. Each tree predicts the
// mean target of its leaf, so the mean of y is part of every tree, as
// LightGBM's average_output requires. Fitting is deterministic for a given
// ForestOptions.Seed.
func FitForest(x []float64, nFeatures int, y []float64, opts ForestOptions) (*Forest, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	if err := checkData(x, nFeatures, y); err != nil {
		return nil, err
	}
	return fitForest(denseSet(x, nFeatures, y), opts)
}

// fitSet fits on the rows of s; see FitForest.
func (o ForestOptions) fitSet(s fitSet) (Regressor, error) {
	opts, err := o.withDefaults()
	if err != nil {
		return nil, err
	}
	if err := s.check(); err != nil {
		return nil, err
	}
	f, err := fitForest(s, opts)
	if err != nil {
		return nil, err
	}
	return f, nil
}

// fitForest is FitForest on checked rows with resolved options.
func fitForest(s fitSet, opts ForestOptions) (*Forest, error) {
	y, n := s.y, s.len()
	opts.MinLeaf = opts.minLeafAt(n) // written as min_data_in_leaf
	rng := rand.New(rand.NewPCG(opts.Seed, 0xbb67ae8584caa73b))
	m := sampleSize(n, opts.Subsample)
	b := newBuilder(s, opts.MaxBins, growOptions{
		maxDepth: opts.MaxDepth, minLeaf: opts.MinLeaf, rng: rng, onTargets: true})
	b.g.splitCols = sampleSize(len(b.perm), opts.ColSample)
	trees := make([]lightgbm.Tree, 0, opts.Trees)
	for range opts.Trees {
		if s.buf.stopped() {
			return nil, errStopped
		}
		// The partition's scratch (n rows) is free until the tree grows:
		// it counts the draws.
		bootstrap(b.rows[:m], b.scratch, rng)
		trees = append(trees, b.grow(m, 1, 0))
	}
	f := &Forest{model: newModel(trees, b.lo, b.hi, true, forestParams(opts))}
	if err := setTargetRange(&f.model, y); err != nil {
		return nil, err
	}
	return f, nil
}

// bootstrap fills dst with len(dst) rows drawn with replacement from the
// len(count) rows, sorted, so that histogram passes walk memory forwards.
func bootstrap(dst, count []int32, rng *rand.Rand) {
	clear(count)
	for range dst {
		count[rng.IntN(len(count))]++
	}
	k := 0
	for r, c := range count {
		for range c {
			dst[k] = int32(r)
			k++
		}
	}
}

// Predict returns the mean of the trees' outputs for x, which must have
// NumFeatures values, summed in the order and form leaves uses so that
// both agree to the last bits.
func (f *Forest) Predict(x []float64) float64 { return f.model.Predict(x) }

// PredictSpread returns the forest's prediction for x and the standard
// deviation of the trees' outputs around it, a measure of the model's
// uncertainty at x: small where the bootstrap samples agree, large where
// the data are sparse or noisy.
func (f *Forest) PredictSpread(x []float64) (mean, std float64) {
	mean = f.Predict(x)
	trees := f.model.Trees
	var ss float64
	for i := range trees {
		d := trees[i].Predict(x) - mean
		ss += d * d
	}
	return mean, math.Sqrt(ss / float64(len(trees)))
}

// NumFeatures is the length of the vectors Predict takes.
func (f *Forest) NumFeatures() int { return f.model.NumFeatures() }

// NumTrees is the number of trees.
func (f *Forest) NumTrees() int { return len(f.model.Trees) }

// WriteLightGBM writes f in LightGBM's text format, version v3, marked
// average_output so that leaves and LightGBM average the trees; see
// Ensemble.WriteLightGBM.
func (f *Forest) WriteLightGBM(w io.Writer, featureNames []string) error {
	return writeModel(w, &f.model, featureNames)
}

// forestParams is the parameters section of a forest fitted with o.
func forestParams(o ForestOptions) []param {
	return []param{{"boosting", "rf"}, {"objective", "regression"},
		{"num_iterations", strconv.Itoa(o.Trees)}, {"max_depth", strconv.Itoa(o.MaxDepth)},
		{"min_data_in_leaf", strconv.Itoa(o.MinLeaf)}, {"max_bin", strconv.Itoa(o.MaxBins)},
		{"bagging_fraction", ftoa(o.Subsample)}, {"bagging_freq", "1"},
		{"feature_fraction_bynode", ftoa(o.ColSample)}}
}
