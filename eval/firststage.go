package eval

import (
	"fmt"
	"math"

	"github.com/augur-tuning/augur/train"
)

// FirstStage is the two-stage tuner's model of one shape on one device,
// fitted on its first stage's measurements (FitFirstStage).
type FirstStage struct {
	// Model predicts a configuration's log-speedup from its feature
	// vector, laid out as the data's Features.
	Model train.Regressor
	// Learner names the setting fitted: the selection's choice with the
	// learner "auto", else "gbrt" or "rf".
	Learner string
	// Sigma is the model's root-mean-square error on its own rows, at
	// least 0.05. It underestimates the error on configurations not
	// measured and only seeds the second stage's running estimate
	// (search.SecondStage.Sigma).
	Sigma float64
}

// FitFirstStage fits the two-stage tuner's model on d, the first stage's
// rows of one shape on one device: with opt.Learner "" or "auto" the
// setting train.Select chooses by cross-validated top-1 over folds of the
// shape's configurations, every candidate scored, as 'augur train' would
// choose it on that data; "gbrt" or "rf" fit that learner (opt.GBRT for
// gbrt). eval's replays of the tuner and 'augur tune' on a device both
// call it, so that the tuner measured here is the one users run. Only
// opt.Kernel, Learner, GBRT and Seed are read.
func FitFirstStage(d *train.Data, opt Options) (FirstStage, error) {
	if d.Len() < 2 {
		return FirstStage{}, fmt.Errorf("eval: first stage of %d rows; the tuner needs at least 2 to fit", d.Len())
	}
	m, learner, err := train.FitRegressor(d, trainOptions(opt))
	if err != nil {
		return FirstStage{}, fmt.Errorf("eval: first-stage fit: %w", err)
	}
	var sq float64
	x := make([]float64, 0, len(d.Features))
	for j := range d.Y {
		x = d.AppendRow(x[:0], j)
		e := m.Predict(x) - d.Y[j]
		sq += e * e
	}
	return FirstStage{Model: m, Learner: learner, Sigma: max(0.05, math.Sqrt(sq/float64(d.Len())))}, nil
}
