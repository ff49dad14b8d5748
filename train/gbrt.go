package train

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/augur-tuning/augur/predict/lightgbm"
)

// GBRTOptions configure gradient-boosted regression trees. The zero value
// of each field means the default in its comment; the defaults of Trees,
// MaxDepth and MinLeaf are Bergstra et al.'s choice (100 trees of depth 4,
// 10 examples a leaf), and the others switch their feature off.
type GBRTOptions struct {
	// Trees is the number of boosting iterations; 0 means 100. Boosting
	// stops early when a tree finds no split, or by EarlyStop.
	Trees int
	// MaxDepth is the depth of each tree; 0 means 4, or 16 when MaxLeaves
	// is set; at most 16.
	MaxDepth int
	// MaxLeaves, when not 0, grows each tree leaf-wise, always splitting
	// the leaf whose split most reduces the error, until it has MaxLeaves
	// leaves (as LightGBM's num_leaves does); at least 2, at most 65536.
	// When 0, trees grow until MaxDepth or MinLeaf stop them.
	MaxLeaves int
	// MinLeaf is the least number of training rows in a leaf; 0 means 10.
	MinLeaf int
	// LearningRate scales each tree's output; 0 means 0.1, at most 1.
	LearningRate float64
	// MaxBins is the most histogram bins per feature; 0 means 255, at
	// least 2. A feature with no more distinct values than that gets one
	// bin per value, so small integer parameters are split exactly.
	MaxBins int
	// Subsample is the fraction of the rows, drawn without replacement,
	// that each tree is fitted to; 0 means 1 (all rows), else in (0, 1].
	Subsample float64
	// ColSample is the fraction of the features each tree may split on,
	// drawn anew for every tree among those that take two values or more
	// in the data; 0 means 1 (all), else in (0, 1].
	ColSample float64
	// L2 is the ridge penalty lambda on leaf values: a leaf predicts
	// sum(residual)/(rows+L2), and split gains use the same shrunk sums.
	// 0 means none; it must be >= 0.
	L2 float64
	// EarlyStop, when not 0, holds out ValidationFraction of the rows,
	// stops boosting once EarlyStop trees in a row have not lowered the
	// squared error on them, and keeps the trees up to the best round.
	// It must be >= 0.
	EarlyStop int
	// ValidationFraction is the share of rows held out for EarlyStop;
	// 0 means 0.2, else in (0, 0.5].
	ValidationFraction float64
	// Seed draws the row and feature samples and the validation rows. A
	// fit without Subsample, ColSample and EarlyStop uses no randomness.
	Seed uint64
	// objective, when not nil, replaces squared error (see objective.go);
	// RankOptions and TopOptions set it for the rows they fit.
	objective objective
	// minHess and maxDelta guard the Newton steps of an objective with
	// hessians (growOptions); RankOptions sets them.
	minHess, maxDelta float64
	// parallelRows, when not 0, is the fewest rows of a leaf that several
	// goroutines share (growOptions.parallelRows); tests set it.
	parallelRows int
}

// withDefaults returns o with zero fields set to their defaults, or an
// error naming the first invalid field.
func (o GBRTOptions) withDefaults() (GBRTOptions, error) {
	if o.Trees == 0 {
		o.Trees = 100
	}
	if o.MaxDepth == 0 {
		o.MaxDepth = 4
		if o.MaxLeaves != 0 {
			o.MaxDepth = 16
		}
	}
	if o.MinLeaf == 0 {
		o.MinLeaf = 10
	}
	if o.LearningRate == 0 {
		o.LearningRate = 0.1
	}
	if o.MaxBins == 0 {
		o.MaxBins = 255
	}
	if o.Subsample == 0 {
		o.Subsample = 1
	}
	if o.ColSample == 0 {
		o.ColSample = 1
	}
	if o.ValidationFraction == 0 {
		o.ValidationFraction = 0.2
	}
	switch {
	case o.Trees < 1 || o.Trees > 1_000_000:
		return o, fmt.Errorf("train: GBRTOptions.Trees must be in [1, 1000000], got %d", o.Trees)
	case o.MaxDepth < 1 || o.MaxDepth > 16:
		return o, fmt.Errorf("train: GBRTOptions.MaxDepth must be in [1, 16], got %d", o.MaxDepth)
	case o.MaxLeaves != 0 && (o.MaxLeaves < 2 || o.MaxLeaves > 65536):
		return o, fmt.Errorf("train: GBRTOptions.MaxLeaves must be 0 or in [2, 65536], got %d", o.MaxLeaves)
	case o.MinLeaf < 1:
		return o, fmt.Errorf("train: GBRTOptions.MinLeaf must be >= 1, got %d", o.MinLeaf)
	case !(o.LearningRate > 0 && o.LearningRate <= 1):
		return o, fmt.Errorf("train: GBRTOptions.LearningRate must be in (0, 1], got %g", o.LearningRate)
	case o.MaxBins < 2 || o.MaxBins > 255:
		return o, fmt.Errorf("train: GBRTOptions.MaxBins must be in [2, 255], got %d", o.MaxBins)
	case !(o.Subsample > 0 && o.Subsample <= 1):
		return o, fmt.Errorf("train: GBRTOptions.Subsample must be in (0, 1], got %g", o.Subsample)
	case !(o.ColSample > 0 && o.ColSample <= 1):
		return o, fmt.Errorf("train: GBRTOptions.ColSample must be in (0, 1], got %g", o.ColSample)
	case !(o.L2 >= 0) || math.IsInf(o.L2, 0):
		return o, fmt.Errorf("train: GBRTOptions.L2 must be a finite number >= 0, got %g", o.L2)
	case o.EarlyStop < 0:
		return o, fmt.Errorf("train: GBRTOptions.EarlyStop must be >= 0, got %d", o.EarlyStop)
	case !(o.ValidationFraction > 0 && o.ValidationFraction <= 0.5):
		return o, fmt.Errorf("train: GBRTOptions.ValidationFraction must be in (0, 0.5], got %g", o.ValidationFraction)
	case o.objective != nil && o.EarlyStop > 0:
		return o, fmt.Errorf("train: GBRTOptions.EarlyStop must be 0 with a ranking or top-weighted objective, got %d", o.EarlyStop)
	}
	return o, nil
}

// options returns the resolved options by LightGBM-like name, for the
// bundle's record of how a model was fitted.
func (o GBRTOptions) options() map[string]float64 {
	m := map[string]float64{
		"trees": float64(o.Trees), "max_depth": float64(o.MaxDepth), "min_leaf": float64(o.MinLeaf),
		"learning_rate": o.LearningRate, "max_bins": float64(o.MaxBins), "subsample": o.Subsample,
		"colsample": o.ColSample, "l2": o.L2,
	}
	if o.MaxLeaves > 0 {
		m["max_leaves"] = float64(o.MaxLeaves)
	}
	if o.EarlyStop > 0 {
		m["early_stop"] = float64(o.EarlyStop)
		m["validation_fraction"] = o.ValidationFraction
	}
	return m
}

// Ensemble is a fitted sum of regression trees, the form LightGBM and
// leaves use: the prediction is the sum of one leaf value from each tree.
type Ensemble struct {
	// model holds the trees as they are written; its feature_infos are
	// each feature's range in the training data.
	model lightgbm.Model
}

// Predict returns the predicted target for feature vector x, which must
// have NumFeatures values.
func (e *Ensemble) Predict(x []float64) float64 { return e.model.Predict(x) }

// NumFeatures is the length of the vectors Predict takes.
func (e *Ensemble) NumFeatures() int { return e.model.NumFeatures() }

// NumTrees is the number of trees fitted; fewer than GBRTOptions.Trees when
// boosting stopped early.
func (e *Ensemble) NumTrees() int { return len(e.model.Trees) }

// FitGBRT fits gradient-boosted regression trees with squared loss to the
// n rows of x (row-major, nFeatures values a row) and targets y. The first
// tree's leaves include the mean of y. Fitting is deterministic for a
// given GBRTOptions.Seed.
//
// Splits are found on histograms: every feature is binned once into at
// most MaxBins quantile bins, each tree level costs one pass over the rows
// of the smaller child of every split, and the larger child's histogram is
// the parent's less the smaller one's.
func FitGBRT(x []float64, nFeatures int, y []float64, opts GBRTOptions) (*Ensemble, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	if err := checkData(x, nFeatures, y); err != nil {
		return nil, err
	}
	return fitGBRT(denseSet(x, nFeatures, y), opts)
}

// fitSet fits on the rows of s; see FitGBRT.
func (o GBRTOptions) fitSet(s fitSet) (Regressor, error) {
	opts, err := o.withDefaults()
	if err != nil {
		return nil, err
	}
	if err := s.check(); err != nil {
		return nil, err
	}
	e, err := fitGBRT(s, opts)
	if err != nil {
		return nil, err
	}
	return e, nil
}

// fitGBRT is FitGBRT on checked rows with resolved options.
func fitGBRT(s fitSet, opts GBRTOptions) (*Ensemble, error) {
	nFeatures := s.nFeat
	rng := rand.New(rand.NewPCG(opts.Seed, 0x6a09e667f3bcc909))
	// The range of every target given, the rows held out for EarlyStop
	// included: the model was chosen on them too.
	yAll := s.y
	var sv fitSet
	if opts.EarlyStop > 0 {
		var err error
		if s, sv, err = holdOut(s, opts.ValidationFraction, rng); err != nil {
			return nil, err
		}
	}
	y, yv := s.y, sv.y
	buf := make([]float64, nFeatures)
	n := len(y)
	var mean float64
	for _, v := range y {
		mean += v
	}
	mean /= float64(n)
	if opts.objective != nil {
		if err := opts.objective.check(n); err != nil {
			return nil, err
		}
		mean = opts.objective.init(y)
	}

	b := newBuilder(s, opts.MaxBins, growOptions{
		maxDepth: opts.MaxDepth, maxLeaves: opts.MaxLeaves, minLeaf: opts.MinLeaf, l2: opts.L2,
		minHess: opts.minHess, maxDelta: opts.maxDelta, parallelRows: opts.parallelRows})
	newton, _ := opts.objective.(newtonObjective)
	if newton != nil {
		b.hess = make([]float64, n)
	}
	var trees []lightgbm.Tree
	m := sampleSize(n, opts.Subsample)
	nCols := sampleSize(len(b.perm), opts.ColSample)
	// A tree that finds no split on all rows and features leaves the
	// residuals as they were, so no later tree would split either.
	deterministic := m == n && nCols >= len(b.perm)
	pred := s.buf.predOf(n)
	predV := make([]float64, len(yv))
	bestLoss, bestTrees := math.Inf(1), 0
	for k := 0; k < opts.Trees; k++ {
		if s.buf.stopped() {
			return nil, errStopped
		}
		base := 0.0
		if k == 0 {
			base = mean
		}
		switch {
		case newton != nil:
			newton.gradHess(b.grad, b.hess, y, pred, base)
		case opts.objective != nil:
			opts.objective.negGradient(b.grad, y, pred, base)
		default:
			for i := range b.grad {
				b.grad[i] = y[i] - pred[i] - base
			}
		}
		if m < n {
			sampleRows(b.rows[:m], n, rng)
		} else {
			for i := range b.rows {
				b.rows[i] = int32(i)
			}
		}
		if nCols < len(b.perm) {
			b.feats = pickFeatures(b.feats[:0], b.perm, nCols, rng)
		}
		t := b.grow(m, opts.LearningRate, base)
		if k > 0 && deterministic && len(t.SplitFeature) == 0 {
			break
		}
		if m == n {
			b.addLeafValues(&t, pred)
		} else {
			for i := range pred {
				pred[i] += t.Predict(s.row(i, buf))
			}
		}
		trees = append(trees, t)
		if opts.EarlyStop == 0 {
			continue
		}
		var loss float64
		for i := range predV {
			predV[i] += t.Predict(sv.row(i, buf))
			d := predV[i] - yv[i]
			loss += d * d
		}
		if loss < bestLoss {
			bestLoss, bestTrees = loss, len(trees)
		} else if len(trees)-bestTrees >= opts.EarlyStop {
			break
		}
	}
	if opts.EarlyStop > 0 {
		trees = trees[:bestTrees]
	}
	e := &Ensemble{model: newModel(trees, b.lo, b.hi, false, gbrtParams(opts))}
	if err := setTargetRange(&e.model, yAll); err != nil {
		return nil, err
	}
	return e, nil
}

// checkData returns an error unless x holds len(y) rows of nFeatures
// finite values and y is finite.
func checkData(x []float64, nFeatures int, y []float64) error {
	n := len(y)
	switch {
	case nFeatures < 1:
		return fmt.Errorf("train: need at least one feature, got %d", nFeatures)
	case n == 0:
		return fmt.Errorf("train: no training rows")
	case len(x) != n*nFeatures:
		return fmt.Errorf("train: x has %d values, want %d rows x %d features", len(x), n, nFeatures)
	case n > math.MaxInt32:
		return fmt.Errorf("train: %d rows, at most %d supported", n, math.MaxInt32)
	}
	for i, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("train: feature %d of row %d is %g", i%nFeatures, i/nFeatures, v)
		}
	}
	for i, v := range y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("train: target of row %d is %g", i, v)
		}
	}
	return nil
}

// holdOut splits the rows at random into a training part and a
// validation part of about frac of them, each keeping the rows' order.
func holdOut(s fitSet, frac float64, rng *rand.Rand) (train, val fitSet, err error) {
	n := s.len()
	nv := min(max(1, int(math.Round(frac*float64(n)))), n-1)
	if nv < 1 {
		return train, val, fmt.Errorf("train: early stopping needs at least 2 rows, got %d", n)
	}
	isVal := make([]bool, n)
	for _, i := range rng.Perm(n)[:nv] {
		isVal[i] = true
	}
	train, val = s.split(isVal)
	return train, val, nil
}

// sampleSize is the number of rows (or features) a fraction frac of n
// stands for, at least one unless n is 0.
func sampleSize(n int, frac float64) int {
	return min(n, max(1, int(math.Round(frac*float64(n)))))
}

// sampleRows fills dst with len(dst) distinct row numbers below n, in
// increasing order so that histogram passes walk memory forwards (Knuth's
// selection sampling).
func sampleRows(dst []int32, n int, rng *rand.Rand) {
	need := len(dst)
	for i := 0; i < n && need > 0; i++ {
		if rng.IntN(n-i) < need {
			dst[len(dst)-need] = int32(i)
			need--
		}
	}
}

// pickFeatures appends k features drawn without replacement from perm
// (a permutation of all features, which it reorders) to dst, in
// increasing order, so that ties between splits still go to the lowest
// feature.
func pickFeatures(dst, perm []int, k int, rng *rand.Rand) []int {
	for i := 0; i < k; i++ {
		j := i + rng.IntN(len(perm)-i)
		perm[i], perm[j] = perm[j], perm[i]
	}
	dst = append(dst, perm[:k]...)
	for i := 1; i < len(dst); i++ { // insertion sort: k is small
		for j := i; j > 0 && dst[j] < dst[j-1]; j-- {
			dst[j], dst[j-1] = dst[j-1], dst[j]
		}
	}
	return dst
}
