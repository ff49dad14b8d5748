package train

import (
	"strings"

	"github.com/augur-tuning/augur/features"
)

// Score computes the metrics of CrossValidate for predictions pred of d's
// rows made by a model fitted elsewhere (a learning curve's held-out part).
func Score(d *Data, pred []float64) CV { return scores(d, pred) }

// Bundle wraps one fitted model of d in a bundle, so that the runtime can
// use a model fitted outside Train (by an evaluation, say). platform may be
// nil for a fleet model; name is the model's name in the bundle.
func Bundle(d *Data, r Regressor, kind, name string, platform *features.Platform) (*features.Bundle, error) {
	var text strings.Builder
	if err := r.WriteLightGBM(&text, d.Features); err != nil {
		return nil, err
	}
	return &features.Bundle{
		Format: features.BundleFormat, Kernel: d.Kernel, KernelVersion: d.KernelVersion,
		AugurVersion: features.Version, TaskNames: d.TaskNames, Params: d.Params,
		Constraints: d.Constraints, Features: d.Features, Reference: d.Reference,
		Models: []features.Model{{Name: name, Platform: platform, Kind: kind, Target: "log_speedup",
			LightGBM: text.String(), TrainRows: d.Len()}},
	}, nil
}
