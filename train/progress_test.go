package train_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/augur-tuning/augur/train"
)

// TestTrainProgress checks that Options.Progress hears of every step of a
// training run in order: the selection's candidates, the cross-validation
// and the fit, with done never above total nor going back.
func TestTrainProgress(t *testing.T) {
	d, err := train.Load("../testdata/data", "conv2d")
	if err != nil {
		t.Fatal(err)
	}
	type step struct {
		done, total int
		what        string
	}
	var steps []step
	opt := train.Options{Kernel: "conv2d", Folds: 2, Progress: func(done, total int, what string) {
		steps = append(steps, step{done, total, what})
	}}
	opt.Select.Candidates = train.DefaultCandidates(1)[:2]
	if _, _, err := train.TrainData(d, opt); err != nil {
		t.Fatal(err)
	}
	// 2 candidates, the cross-validation and the fit of one model.
	if len(steps) != 4 {
		t.Fatalf("%d steps, want 4: %+v", len(steps), steps)
	}
	for i, s := range steps {
		if s.total != 4 || s.done != i {
			t.Errorf("step %d = %d/%d, want %d/4", i, s.done, s.total, i)
		}
	}
	for i, want := range []string{"selecting the learner", "selecting the learner", "cross-validation", "fitting"} {
		if !strings.Contains(steps[i].what, want) {
			t.Errorf("step %d = %q, want it to mention %q", i, steps[i].what, want)
		}
	}
}

// TestTrainContext cancels training runs at each of their steps (and
// before the first): the run must return the context's error, and no
// bundle. Each fit of the step cancelled in stops at its next tree.
func TestTrainContext(t *testing.T) {
	d, err := train.Load("../testdata/data", "conv2d")
	if err != nil {
		t.Fatal(err)
	}
	for _, at := range []int{-1, 0, 1, 2, 3} {
		ctx, cancel := context.WithCancel(context.Background())
		if at < 0 {
			cancel()
		}
		opt := train.Options{Kernel: "conv2d", Folds: 2, Context: ctx, Progress: func(done, _ int, _ string) {
			if done == at {
				cancel()
			}
		}}
		opt.Select.Candidates = train.DefaultCandidates(1)[:2]
		b, _, err := train.TrainData(d, opt)
		if !errors.Is(err, context.Canceled) || b != nil {
			t.Errorf("cancelled at step %d: bundle %v, error %v; want none and context.Canceled", at, b != nil, err)
		}
		cancel()
	}
	// A context never cancelled changes nothing.
	opt := train.Options{Kernel: "conv2d", Folds: 2, Context: context.Background()}
	opt.Select.Candidates = train.DefaultCandidates(1)[:2]
	if _, _, err := train.TrainData(d, opt); err != nil {
		t.Fatal(err)
	}
}
