package search

import (
	"fmt"
	"slices"

	"github.com/augur-tuning/augur/features"
)

// FirstStage configures the first stage of the two-stage tuner (SecondStage
// is the second): a random sample of the space, stratified by parameter
// value (Stratify), from whose configurations that ran a model of the
// kernel's speed is fitted. A configuration that fails (a work-group over
// what the compiled kernel allows) costs a compile and teaches that model
// nothing, and on conv2d on the H200 about 91 of a uniform first stage's
// 128 draws fail (bench/RESULTS.md, session 16). So the stage walks
// Stratify's first Size configurations in rounds: a first round measured
// whole, then batches in which a configuration that a failure model
// (FailureModel), fitted on every outcome so far, predicts to fail is
// passed over, save a share that is measured anyway so that a wrong model
// cannot starve a region. Where the model is right, the configurations
// that ran are the uniform stage's, and so is the model fitted on them;
// only failures are fewer. Stratified draws among the configurations
// within the device's limits or predicted to run instead, until as many
// had run, gave a model whose favourite was 8-16 points worse on
// testdata/h200 (bench/RESULTS.md, session 17).
//
// Without a failure model, or where nothing fails, it measures
// Stratify's first Size configurations, as the uniform stage did.
type FirstStage struct {
	// Size is the most configurations the stage measures, the size of the
	// uniform sample it stands for (eval's replays and 'augur tune': 2% of
	// the space, at least 10). It must be >= 1.
	Size int
	// Round is the configurations of the first round, drawn without the
	// failure model; 0 means max(10, Size/4), at most Size: a first stage
	// of ten (a space of 500 configurations or fewer) is measured whole; a
	// forest fitted on a round of five was seldom sure enough to pass
	// anything over (examples/rowsum and transpose, bench/RESULTS.md,
	// session 17).
	Round int
	// Batch is the configurations drawn together after the first round:
	// the failure model is refitted between batches, a batch is measured
	// at once (a device compiles it in parallel); 0 means 8.
	Batch int
	// Explore is the share of the configurations predicted to fail that
	// are measured anyway; 0 means 0.125. It must be in [0, 1).
	Explore float64
	// Runs is the probability of running, by the failure model, below
	// which a configuration is predicted to fail; 0 means 0.1. It must be
	// in (0, 1].
	Runs float64
	// Failing is the least share of the configurations measured so far
	// that failed for the stage to pass any over; 0 means 0.2. It must be
	// in [0, 1]. Where fewer fail, passing over saves little and a wrong
	// guess changes the sample the model learns from: on the Kernel Tuner
	// A4000 space (3.7% fail) one seed of 100 with 3 failures in its first
	// round of 21 passed 3 over at 0.1, and its second stage measured
	// 2,688 instead of 24 (bench/RESULTS.md, session 17).
	Failing float64
}

// FirstStageResult is the outcome of FirstStage.Run.
type FirstStageResult struct {
	// Order is order (Run's argument) reordered: the configurations
	// measured, in the order measured, then the rest of Stratify's order,
	// then those passed over as predicted to fail, then those pruned (the
	// second stage's random draws continue it).
	Order []int
	// Measured is the number of configurations measured: Order[:Measured].
	Measured int
	// Failed counts the measured configurations that failed, Passed those
	// passed over as predicted to fail, Explored those predicted to fail
	// and measured anyway, Pruned those known to fail (Run's pruned).
	Failed, Passed, Explored, Pruned int
}

// Run measures the first stage from valid in order, a random order of
// valid's indices. pruned[i] says that valid[i] is known to fail before
// anything is measured (a work-group or local memory over the device's
// limits, which a device rejects before compiling): it is passed over
// as if it had failed, unmeasured (nil: none is known). fails learns every
// outcome (nil: the stage measures Stratify's first Size but the pruned).
// measure measures the configurations valid[idx[j]] and reports which
// failed; an error from it stops the stage and is returned.
func (o FirstStage) Run(valid []features.Config, order []int, pruned []bool, fails FailureModel,
	measure func(idx []int) (failed []bool, err error)) (FirstStageResult, error) {
	o, err := o.defaults()
	if err != nil {
		return FirstStageResult{}, err
	}
	walk := Stratify(valid, order, o.Size)
	size := min(o.Size, len(walk))
	var res FirstStageResult
	var done, passed, known []int
	take := func(idx []int) error {
		if len(idx) == 0 {
			return nil
		}
		failed, err := measure(idx)
		if err != nil {
			return err
		}
		if len(failed) != len(idx) {
			return fmt.Errorf("search: first stage: measure returned %d outcomes for %d configurations", len(failed), len(idx))
		}
		for j, i := range idx {
			if fails != nil {
				fails.Observe(valid[i], failed[j])
			}
			if failed[j] {
				res.Failed++
			}
		}
		done = append(done, idx...)
		return nil
	}
	// A pruned configuration teaches the failure model as a failure, at
	// no cost, as it did when the stage measured it: without it, on the
	// Xeon (wg > 4096 pruned) the second stage measured 60 more a shape
	// at T = 0.1 (bench/RESULTS.md, session 17).
	prune := func(i int) {
		known = append(known, i)
		if fails != nil {
			fails.Observe(valid[i], true)
		}
	}
	next := min(o.Round, size)
	var first []int
	for _, i := range walk[:next] {
		if pruned != nil && pruned[i] {
			prune(i)
			continue
		}
		first = append(first, i)
	}
	if err := take(first); err != nil {
		return FirstStageResult{}, err
	}
	predicted := 0 // configurations predicted to fail since the first round
	for next < size {
		var idx []int
		for ; next < size && len(idx) < o.Batch; next++ {
			i := walk[next]
			if pruned != nil && pruned[i] {
				prune(i)
				continue
			}
			if fails != nil && float64(res.Failed) >= o.Failing*float64(len(done)) && 1-fails.PFail(valid[i]) < o.Runs {
				predicted++
				if float64(res.Explored) >= o.Explore*float64(predicted) {
					passed = append(passed, i)
					continue
				}
				res.Explored++
			}
			idx = append(idx, i)
		}
		if err := take(idx); err != nil {
			return FirstStageResult{}, err
		}
	}
	res.Measured, res.Passed, res.Pruned = len(done), len(passed), len(known)
	res.Order = slices.Concat(done, walk[size:], passed, known)
	return res, nil
}

func (o FirstStage) defaults() (FirstStage, error) {
	if o.Size < 1 {
		return o, fmt.Errorf("search: FirstStage.Size must be >= 1, got %d", o.Size)
	}
	if o.Round < 0 || o.Batch < 0 {
		return o, fmt.Errorf("search: FirstStage.Round and Batch must be >= 0, got %d and %d", o.Round, o.Batch)
	}
	if !(o.Explore >= 0 && o.Explore < 1) {
		return o, fmt.Errorf("search: FirstStage.Explore must be in [0, 1), got %g", o.Explore)
	}
	if !(o.Failing >= 0 && o.Failing <= 1) {
		return o, fmt.Errorf("search: FirstStage.Failing must be in [0, 1], got %g", o.Failing)
	}
	if !(o.Runs >= 0 && o.Runs <= 1) {
		return o, fmt.Errorf("search: FirstStage.Runs must be in (0, 1], got %g", o.Runs)
	}
	if o.Round == 0 {
		o.Round = max(10, o.Size/4)
	}
	o.Round = min(o.Round, o.Size)
	if o.Batch == 0 {
		o.Batch = 8
	}
	if o.Explore == 0 {
		o.Explore = 0.125
	}
	if o.Runs == 0 {
		o.Runs = 0.1
	}
	if o.Failing == 0 {
		o.Failing = 0.2
	}
	return o, nil
}
