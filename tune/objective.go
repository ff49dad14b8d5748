package tune

import (
	"context"
	"fmt"
	"math"

	"github.com/augur-tuning/augur/collect"
	"github.com/augur-tuning/augur/collect/record"
	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/search"
)

// MeasureObjective is a search objective that measures each configuration
// on a real device through collect: the score is the measured log-speedup
// over the kernel's reference on task t, and a configuration that fails
// (does not compile, run or verify) is an error, which strategies skip.
// Every call sets the device up and times the reference again, so it
// suits strategies of tens to hundreds of evaluations; the surrogate
// (predict.Scorer) and search.Replay are the cheap objectives.
func MeasureObjective(ctx context.Context, k *datasets.Kernel, t features.Task, opt collect.Options) search.Objective {
	return func(c features.Config) (float64, error) {
		rows, err := collect.Measure(ctx, k, t, []features.Config{c}, opt)
		if err != nil {
			return 0, err
		}
		r := rows[len(rows)-1]
		if r.Status != record.StatusOK || math.IsNaN(r.LogSpeedup) {
			return 0, fmt.Errorf("tune: %s: %s: %s", k.Space.Format(c), r.Status, r.Error)
		}
		return r.LogSpeedup, nil
	}
}
