package eval

import (
	"context"
	"errors"
	"testing"

	"github.com/augur-tuning/augur/train"
)

// TestEvaluateContext cancels an evaluation before it starts and while
// its held-out shapes' models are fitted (at the first shape's count):
// Evaluate must return the context's error and no report, not a report
// whose picks failed.
func TestEvaluateContext(t *testing.T) {
	for _, name := range []string{"before", "holdout"} {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if name == "before" {
				cancel()
			}
			opt := Options{Kernel: "conv2d", Holdout: true, HoldoutOnly: true, Context: ctx,
				Learner: "gbrt", GBRT: train.GBRTOptions{Trees: 50},
				Steps: func(done, _ int, _ string) {
					if done == 1 {
						cancel()
					}
				}}
			rep, err := Evaluate("../testdata/h200", opt)
			if !errors.Is(err, context.Canceled) || rep != nil {
				t.Errorf("report %v, error %v; want none and context.Canceled", rep != nil, err)
			}
		})
	}
}
