package eval

import (
	"cmp"
	"fmt"

	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/search"
	"github.com/augur-tuning/augur/train"
)

// DrawFirstStage draws and measures the two-stage tuner's first stage from
// valid: a random sample of n0, stratified by parameter value, in order
// (a random order of valid's indices), of which those known to fail
// (pruned, by Pruned; nil: none known) are passed over unmeasured and, in
// rounds that learn from fails what fails, those predicted to fail
// (search.FirstStage with its defaults). eval's replays of the tuner and
// 'augur tune' on a device both call it, so that the tuner measured here
// is the one users run; measure measures valid[idx[j]] (a batch) and
// reports which failed.
func DrawFirstStage(valid []features.Config, order []int, pruned []bool, n0 int, fails search.FailureModel,
	measure func(idx []int) ([]bool, error)) (search.FirstStageResult, error) {
	// search names its own errors, measure's name theirs.
	return search.FirstStage{Size: n0}.Run(valid, order, pruned, fails, measure)
}

// Pruned says which configurations of valid (of k's space) cannot run
// shape t on the device plat, as far as is known before compiling
// (datasets.Kernel.Runs: the launch geometry, the device's work-group
// size, work-item sizes, local and constant memory, the features it has):
// those collect prunes, which a user's device never compiles. The
// two-stage tuner neither measures nor ranks them; on conv2d on the H200
// they are 37% of the space (bench/RESULTS.md, session 17). nil when k is
// nil or the device's limits are unknown (zero, as in data imported from
// other tuners).
func Pruned(k *datasets.Kernel, t features.Task, plat features.Platform, valid []features.Config) []bool {
	if k == nil || plat.MaxWorkGroupSize <= 0 || plat.LocalMemBytes <= 0 || plat.MaxWorkItemSizes[0] <= 0 {
		return nil
	}
	out := make([]bool, len(valid))
	for i, c := range valid {
		out[i] = !k.Runs(t, c, plat)
	}
	return out
}

// FirstStage is the two-stage tuner's model of one shape on one device,
// fitted on its first stage's measurements (FitFirstStage).
type FirstStage struct {
	// Model predicts a configuration's log-speedup from its feature
	// vector, laid out as the data's Features.
	Model train.Regressor
	// Learner names the setting fitted: the selection's choice with the
	// learner "auto", else "gbrt" or "rf".
	Learner string
	// Sigma is the root-mean-square error of the learner's predictions
	// on the rows held out of 5 folds of d (train.CrossValidate), at
	// least 0.05: the second stage's first estimate of the model's error
	// on configurations not measured (search.SecondStage.Sigma). The
	// error on its own rows, which a forest or deep trees all but fit,
	// stopped the stage before it measured anything.
	Sigma float64
}

// FitFirstStage fits the two-stage tuner's model on d, the first stage's
// rows of one shape on one device: with opt.Learner "" or "auto" the
// setting train.Select chooses by cross-validated top-1 over folds of the
// shape's configurations, every candidate scored, as 'augur train' would
// choose it on that data, of the default candidates whose trees can split
// the folds' rows (splitting); "gbrt" or "rf" fit that learner (opt.GBRT for
// gbrt). eval's replays of the tuner and 'augur tune' on a device both
// call it, so that the tuner measured here is the one users run. Only
// opt.Learner, GBRT and Seed are read.
func FitFirstStage(d *train.Data, opt Options) (FirstStage, error) {
	if d.Len() < 2 {
		return FirstStage{}, fmt.Errorf("eval: first stage of %d rows; the tuner needs at least 2 to fit", d.Len())
	}
	learner, name, err := firstStageLearner(d, opt)
	if err != nil {
		return FirstStage{}, fmt.Errorf("eval: first-stage fit: %w", err)
	}
	m, err := train.FitRows(learner, d, nil)
	if err != nil {
		return FirstStage{}, fmt.Errorf("eval: first-stage fit: %w", err)
	}
	cv, err := train.CrossValidate(d, min(5, d.Len()), learner, opt.Seed)
	if err != nil {
		return FirstStage{}, fmt.Errorf("eval: first-stage fit: %w", err)
	}
	return FirstStage{Model: m, Learner: name, Sigma: max(0.05, cv.RMSELogSpeedup)}, nil
}

// firstStageLearner is the learner FitFirstStage fits, as train.Options
// maps opt's (trainOptions): the selection's choice for "" or "auto"
// (save that GBRT options without a learner mean gbrt), else gbrt or rf
// with their options.
func firstStageLearner(d *train.Data, opt Options) (train.Learner, string, error) {
	model := opt.Learner
	if model == "" && opt.GBRT != (train.GBRTOptions{}) {
		model = "gbrt"
	}
	switch model {
	case "", "auto":
		c, _, err := train.Select(d, train.SelectOptions{Seed: opt.Seed, Candidates: splitting(train.DefaultCandidates(opt.Seed), d.Len())})
		return c.Learner, c.Name, err
	case "gbrt":
		return opt.GBRT, "gbrt", nil
	case "rf":
		return train.ForestOptions{}, "rf", nil
	}
	return nil, "", fmt.Errorf("Options.Learner must be \"auto\", \"gbrt\", \"rf\" or empty, got %q", opt.Learner)
}

// splitting returns the candidates whose trees can split the rows the
// selection trains each of its folds on (train.Select on one shape: 5
// folds of n rows, fewer when n < 10): those whose least rows a leaf is at
// most half of them. A tree that cannot split predicts one value for the
// whole space, so its ranking is the order of the list and its
// cross-validated top-1 an accident of that order; on a first stage of ten
// rows the default selection chose such a boosted model (min 10 a leaf) on
// 7 of 12 shapes of examples/transpose (bench/RESULTS.md, session 15).
// When none can split, cs is returned whole.
func splitting(cs []train.Candidate, n int) []train.Candidate {
	k := min(5, n/2)
	if k < 2 {
		return cs
	}
	fold := n - (n+k-1)/k // the fewest rows a fold trains on
	var out []train.Candidate
	for _, c := range cs {
		if 2*minLeaf(c.Learner) <= fold {
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		return cs
	}
	return out
}

// minLeaf is the least number of rows in a leaf of l's trees, with the
// learners' documented defaults (train.GBRTOptions 10, train.ForestOptions
// 5); 1 for a learner it does not know.
func minLeaf(l train.Learner) int {
	switch o := l.(type) {
	case train.GBRTOptions:
		return cmp.Or(o.MinLeaf, 10)
	case train.TopOptions:
		return cmp.Or(o.GBRT.MinLeaf, 10)
	case train.ForestOptions:
		return cmp.Or(o.MinLeaf, 5)
	}
	return 1
}
