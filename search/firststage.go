package search

import (
	"fmt"
	"math"

	"github.com/augur-tuning/augur/features"
)

// FirstStage configures the first stage of the two-stage tuner (SecondStage
// is the second): a random sample of the space, stratified by parameter
// value (Stratify), from whose configurations that ran a model of the
// kernel's speed is fitted. A configuration that fails (a work-group over
// what the compiled kernel allows, local memory over the device's) costs a
// compile and teaches that model nothing, and on conv2d on the H200 about
// 91 of a uniform first stage's 128 draws fail (bench/RESULTS.md, session
// 16). So the stage draws in rounds: a first round stratified over the
// whole space, then batches drawn, stratified, among the configurations a
// failure model (FailureModel) fitted on every outcome so far predicts to
// run, with a share of draws that ignore the model so that a wrong one
// cannot starve a region. It stops when it has as many configurations that
// ran as a uniform sample of Size would have had, by the share that ran
// among its draws that ignored the model, or at Size measurements.
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
	// of ten (a space of 500 configurations or fewer) is drawn whole, as a
	// forest fitted on a round of five guessed what fails too wrongly
	// (examples/rowsum, bench/RESULTS.md, session 17).
	Round int
	// Batch is the configurations drawn together after the first round:
	// the failure model is refitted between batches, a batch is measured
	// at once (a device compiles it in parallel); 0 means 8.
	Batch int
	// Explore is the share of the draws after the first round that ignore
	// the failure model; 0 means 0.125. It must be in [0, 1).
	Explore float64
	// Runs is the least probability of running, by the failure model, of
	// a draw that does not ignore it; 0 means 0.5. It must be in (0, 1].
	Runs float64
}

// FirstStageResult is the outcome of FirstStage.Run.
type FirstStageResult struct {
	// Order is order (Run's argument) reordered: the configurations
	// measured, in the order measured, then the rest in order's order
	// (the second stage's random draws continue it).
	Order []int
	// Measured is the number of configurations measured: Order[:Measured].
	Measured int
	// Failed counts the measured configurations that failed; Explored the
	// draws after the first round that ignored the failure model.
	Failed, Explored int
}

// Run draws and measures the first stage from valid in order, a random
// order of valid's indices. fails learns every outcome (nil: every draw
// is Stratify's, and the stage measures Size). measure measures the
// configurations valid[idx[j]] and reports which failed; an error from it
// stops the stage and is returned.
func (o FirstStage) Run(valid []features.Config, order []int, fails FailureModel,
	measure func(idx []int) (failed []bool, err error)) (FirstStageResult, error) {
	o, err := o.defaults()
	if err != nil {
		return FirstStageResult{}, err
	}
	r := firstRun{o: o, valid: valid, st: newStratifier(valid, order), fails: fails, measure: measure,
		size: min(o.Size, len(order))}
	if err := r.loop(); err != nil {
		return FirstStageResult{}, err
	}
	r.res.Order = r.st.out
	return r.res, nil
}

// firstRun is one run of a FirstStage.
type firstRun struct {
	o       FirstStage
	valid   []features.Config
	st      *stratifier
	fails   FailureModel
	measure func(idx []int) ([]bool, error)
	size    int
	res     FirstStageResult
	// ran counts the measured configurations that ran; blind and blindRan
	// the draws that ignored the failure model, and those of them that
	// ran: their share estimates the space's.
	ran, blind, blindRan int
	drawn                int // draws after the first round
}

func (r *firstRun) loop() error {
	var idx []int
	var blind []bool
	for range min(r.o.Round, r.size) {
		idx, blind = append(idx, r.st.take(r.st.pick(nil))), append(blind, true)
	}
	if err := r.take(idx, blind); err != nil {
		return err
	}
	for r.st.next < r.size {
		need := r.size
		if r.fails != nil && r.blindRan > 0 {
			// As many that ran as a uniform sample of size would hold.
			target := int(math.Ceil(float64(r.size*r.blindRan) / float64(r.blind)))
			if r.ran >= target {
				return nil
			}
			need = target - r.ran
		}
		idx, blind = nil, nil // measure may keep the last batch
		for range min(r.o.Batch, r.size-r.st.next, need) {
			pos, ignored := r.draw()
			if pos < 0 {
				break
			}
			idx, blind = append(idx, r.st.take(pos)), append(blind, ignored)
		}
		if len(idx) == 0 {
			return nil
		}
		if err := r.take(idx, blind); err != nil {
			return err
		}
	}
	return nil
}

// draw returns the position of the next draw after the first round, and
// whether it ignored the failure model: an exploring draw (Explore), a
// draw with no model, or one for which the model predicts nothing left to
// run.
func (r *firstRun) draw() (int, bool) {
	r.drawn++
	if r.fails != nil && float64(r.res.Explored) >= r.o.Explore*float64(r.drawn-1) {
		if pos := r.st.pick(func(i int) bool { return 1-r.fails.PFail(r.valid[i]) >= r.o.Runs }); pos >= 0 {
			return pos, false
		}
	}
	if r.fails != nil {
		r.res.Explored++
	}
	return r.st.pick(nil), true
}

// take measures valid[idx[j]] and records the outcomes.
func (r *firstRun) take(idx []int, blind []bool) error {
	if len(idx) == 0 {
		return nil
	}
	failed, err := r.measure(idx)
	if err != nil {
		return err
	}
	if len(failed) != len(idx) {
		return fmt.Errorf("search: first stage: measure returned %d outcomes for %d configurations", len(failed), len(idx))
	}
	for j, i := range idx {
		if r.fails != nil {
			r.fails.Observe(r.valid[i], failed[j])
		}
		if failed[j] {
			r.res.Failed++
		} else {
			r.ran++
		}
		if blind[j] {
			r.blind++
			if !failed[j] {
				r.blindRan++
			}
		}
	}
	r.res.Measured += len(idx)
	return nil
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
		o.Runs = 0.5
	}
	return o, nil
}
