package train

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// RankOptions configure boosted trees fitted to rank the configurations
// of each (shape, device) group (LambdaMART with Newton steps, as
// LightGBM's lambdarank: see lambdaRank) rather than to regress their
// log-speedup: a pick needs the order of the fast configurations, not the
// time of the slow ones. The model is still a sum of regression trees in
// LightGBM text. Its raw scores order a group's configurations but are
// in no unit; the fitted model is calibrated (see calibrate), an affine
// map that keeps every order, so that its scores of each group's top
// configurations read as log-speedups, as the runtime reports them and
// as a blend with a regression model needs. The zero value ranks with GBRT's defaults, pushes pairs
// with a row among the top 20, mixes in no squared error, keeps 1e-3 of
// hessian in a leaf and does not bound a leaf's step.
type RankOptions struct {
	// GBRT are the trees' settings; EarlyStop must be 0.
	GBRT GBRTOptions
	// Top is the truncation: pairs are pushed only when one row is among
	// the group's Top best by the current scores; 0 means 20.
	Top int
	// Mix is the weight of squared error on log-speedup beside the
	// ranking gradient, which keeps the scores near log-speedups
	// (Sculley's combined regression and ranking); 0 means none, else in
	// [0, 1).
	Mix float64
	// MinHessian is the least hessian sum a leaf keeps (LightGBM's
	// min_sum_hessian_in_leaf): rows that no pushed pair holds have none,
	// and a leaf of only them would take an unbounded step. 0 means
	// 1e-3; it must be >= 0.
	MinHessian float64
	// MaxDeltaStep, when not 0, bounds the size of a leaf's step before
	// the learning rate (LightGBM's max_delta_step); it must be >= 0.
	MaxDeltaStep float64
	// GroupColumns are the columns that name a row's group (GroupColumns
	// of the Data); Select sets them. nil means one group of all rows.
	GroupColumns []int
}

func (o RankOptions) withDefaults() (RankOptions, error) {
	if o.Top == 0 {
		o.Top = 20
	}
	if o.MinHessian == 0 {
		o.MinHessian = 1e-3
	}
	switch {
	case !(o.MinHessian >= 0) || math.IsInf(o.MinHessian, 0):
		return o, fmt.Errorf("train: RankOptions.MinHessian must be a finite number >= 0, got %g", o.MinHessian)
	case !(o.MaxDeltaStep >= 0) || math.IsInf(o.MaxDeltaStep, 0):
		return o, fmt.Errorf("train: RankOptions.MaxDeltaStep must be a finite number >= 0, got %g", o.MaxDeltaStep)
	case o.Top < 1:
		return o, fmt.Errorf("train: RankOptions.Top must be >= 1, got %d", o.Top)
	case !(o.Mix >= 0 && o.Mix < 1):
		return o, fmt.Errorf("train: RankOptions.Mix must be in [0, 1), got %g", o.Mix)
	}
	return o, nil
}

// Fit fits the ranking trees to the rows of x and targets y.
func (o RankOptions) Fit(x []float64, nFeatures int, y []float64) (Regressor, error) {
	o, err := o.withDefaults()
	if err != nil {
		return nil, err
	}
	if err := checkData(x, nFeatures, y); err != nil {
		return nil, err
	}
	g := o.GBRT
	g.objective = newLambdaRank(x, nFeatures, y, o.GroupColumns, o.Top, o.Mix)
	g.minHess, g.maxDelta = o.MinHessian, o.MaxDeltaStep
	e, err := FitGBRT(x, nFeatures, y, g)
	if err != nil {
		return nil, err
	}
	calibrate(e, x, nFeatures, y, groupRowsBy(x, nFeatures, o.GroupColumns), o.Top)
	return e, nil
}

// calibrate maps e's scores s to a*s+b, a > 0, with a and b the least
// squares fit of the targets y on the scores of each group's top rows by
// score (top a group): the rows a pick is made among, whose predicted
// log-speedup the runtime reports. Every leaf is scaled by a and b goes
// into the first tree, so the model stays one sum of trees and no order
// of two configurations changes. With no positive slope (scores that do
// not vary), e is left as it is.
func calibrate(e *Ensemble, x []float64, nf int, y []float64, groups [][]int32, top int) {
	if len(e.model.Trees) == 0 {
		return
	}
	score := make([]float64, len(y))
	for i := range y {
		score[i] = e.Predict(x[i*nf : (i+1)*nf])
	}
	var n, ms, my float64
	var rows []int32
	for _, g := range groups {
		order := slices.Clone(g)
		slices.SortFunc(order, func(a, b int32) int { return cmp.Compare(score[b], score[a]) })
		rows = append(rows, order[:min(top, len(order))]...)
	}
	for _, i := range rows {
		ms += score[i]
		my += y[i]
		n++
	}
	ms, my = ms/n, my/n
	var sxy, sxx float64
	for _, i := range rows {
		sxy += (score[i] - ms) * (y[i] - my)
		sxx += (score[i] - ms) * (score[i] - ms)
	}
	a := sxy / sxx
	if !(a > 0) || math.IsInf(a, 0) {
		return
	}
	b := my - a*ms
	for k := range e.model.Trees {
		t := &e.model.Trees[k]
		t.LeafValue = scaled(t.LeafValue, a)
		t.InternalValue = scaled(t.InternalValue, a)
		if k == 0 {
			for j := range t.LeafValue {
				t.LeafValue[j] += b
			}
			for j := range t.InternalValue {
				t.InternalValue[j] += b
			}
		}
	}
}

func (o RankOptions) withGroups(cols []int) Learner { o.GroupColumns = cols; return o }

// RankCandidate names a ranking setting as a Candidate.
func RankCandidate(o RankOptions) Candidate {
	r, _ := o.withDefaults()
	g, _ := r.GBRT.withDefaults()
	opts := g.options()
	opts["rank_top"] = float64(r.Top)
	opts["rank_mix"] = r.Mix
	opts["rank_min_hessian"] = r.MinHessian
	name := fmt.Sprintf("rank%d-mix%g-d%d-t%d-lr%g", r.Top, r.Mix, g.MaxDepth, g.Trees, g.LearningRate)
	if r.MaxDeltaStep > 0 {
		opts["rank_max_delta_step"] = r.MaxDeltaStep
		name += fmt.Sprintf("-mds%g", r.MaxDeltaStep)
	}
	return Candidate{Name: name,
		Kind: "gbrt", Learner: o, Cost: g.Trees * g.MaxDepth, options: opts}
}

// TopOptions configure boosted trees fitted to a top-weighted target:
// each row's speed as a fraction of its group's fastest configuration,
// t_best/t, in (0, 1], with squared error. On that scale the slow
// configurations, which no pick needs, crowd near 0 and cost the fit
// little, while the differences among the fast ones are as large as the
// pick's loss they stand for. The scores order a group's configurations;
// they are log-speedups only near the top and only when Anchored. The
// zero value fits with GBRT's defaults, not anchored.
type TopOptions struct {
	GBRT GBRTOptions
	// Anchored adds the group's best log-speedup to the target, less 1
	// (ln t_ref/t_best + t_best/t - 1): near the top the target equals
	// the log-speedup to first order, so the model's scores of fast
	// configurations still read as log-speedups over the reference.
	Anchored bool
	// GroupColumns are the columns that name a row's group (GroupColumns
	// of the Data); Select sets them. nil means one group of all rows.
	GroupColumns []int
}

// Fit fits the trees to the rows of x and the top-weighted transform of
// targets y.
func (o TopOptions) Fit(x []float64, nFeatures int, y []float64) (Regressor, error) {
	if err := checkData(x, nFeatures, y); err != nil {
		return nil, err
	}
	best := groupBest(y, groupRowsBy(x, nFeatures, o.GroupColumns))
	frac := slices.Clone(y)
	for i := range frac {
		frac[i] = math.Exp(y[i] - best[i])
		if o.Anchored {
			frac[i] += best[i] - 1
		}
	}
	e, err := FitGBRT(x, nFeatures, frac, o.GBRT)
	if err != nil {
		return nil, err
	}
	return e, nil
}

func (o TopOptions) withGroups(cols []int) Learner { o.GroupColumns = cols; return o }

// TopCandidate names a top-weighted setting as a Candidate.
func TopCandidate(o TopOptions) Candidate {
	g, _ := o.GBRT.withDefaults()
	opts := g.options()
	opts["top_weighted"] = 1
	name := "top"
	if o.Anchored {
		opts["top_weighted"] = 2
		name = "topa"
	}
	return Candidate{Name: fmt.Sprintf(name+"-d%d-t%d-lr%g-min%d", g.MaxDepth, g.Trees, g.LearningRate, g.MinLeaf),
		Kind: "gbrt", Learner: o, Cost: g.Trees * g.MaxDepth, options: opts}
}

// grouped is a Learner that needs the columns naming a row's group;
// Select gives them.
type grouped interface {
	withGroups(cols []int) Learner
}

var (
	_ grouped = RankOptions{}
	_ grouped = TopOptions{}
	_ Learner = RankOptions{}
	_ Learner = TopOptions{}
)
