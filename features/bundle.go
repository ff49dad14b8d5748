package features

import (
	"encoding/json"
	"fmt"
	"io"
)

// BundleFormat is the version of the bundle layout this package writes and
// reads.
const BundleFormat = 1

// Bundle is the self-describing model file that train writes and the
// runtime loads: everything Choose needs, in one JSON document, so that a
// library can go:embed it whole.
type Bundle struct {
	Format        int      `json:"format"`
	Kernel        string   `json:"kernel"`
	KernelVersion string   `json:"kernel_version"`
	AugurVersion  string   `json:"augur_version"`
	TaskNames     []string `json:"task_names"`
	Params        []Param  `json:"params"`
	Constraints   []string `json:"constraints"`
	// Features are the encoder's column names; every model has exactly
	// these inputs.
	Features  []string `json:"features"`
	Reference Config   `json:"reference"`
	Models    []Model  `json:"models"`
	// Best optionally lists precomputed choices for common shapes.
	Best []Precomputed `json:"best,omitempty"`
}

// Model is one trained surrogate inside a bundle.
type Model struct {
	// Name is the platform slug the model was trained for, or "fleet".
	Name string `json:"name"`
	// Platform is the device the data came from; nil for a fleet model.
	Platform *Platform `json:"platform,omitempty"`
	// Kind is the learner: "gbrt" or "rf".
	Kind string `json:"kind"`
	// Target is what the model predicts: "log_speedup", ln(t_ref/t).
	Target string `json:"target"`
	// LightGBM is the model in LightGBM text format, version v3.
	LightGBM   string  `json:"lightgbm"`
	TrainRows  int     `json:"train_rows"`
	FitSeconds float64 `json:"fit_seconds"`
	// Stats are the model's errors on held-out data, by metric name
	// (e.g. "cv_rmse_log_speedup", "cv_mre_time", "cv_spearman").
	Stats map[string]float64 `json:"stats,omitempty"`
	// Options are the learner's settings the model was fitted with, by
	// name (e.g. "trees", "max_depth", "learning_rate"), defaults resolved.
	Options map[string]float64 `json:"options,omitempty"`
	// Candidates are configurations that ran fastest on the training
	// shapes; Choose scores them for a new shape and climbs from the best,
	// which keeps it near configurations known to run on the device.
	Candidates []Config `json:"candidates,omitempty"`
}

// Precomputed is a configuration chosen ahead of time for one shape.
type Precomputed struct {
	Model  string `json:"model"`
	Task   Task   `json:"task"`
	Config Config `json:"config"`
}

// Space builds the bundle's tuning space.
func (b *Bundle) Space() (*Space, error) { return NewSpace(b.Params, b.Constraints) }

// WriteBundle writes b as indented JSON.
func WriteBundle(w io.Writer, b *Bundle) error {
	b.Format = BundleFormat
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	if err := enc.Encode(b); err != nil {
		return fmt.Errorf("features: write bundle: %w", err)
	}
	return nil
}

// ReadBundle parses a bundle and checks its format version and that its
// feature names match its task features and parameters.
func ReadBundle(data []byte) (*Bundle, error) {
	var b Bundle
	if err := json.Unmarshal(data, &b); err != nil {
		return nil, fmt.Errorf("%w: bundle: %v", ErrSyntax, err)
	}
	if b.Format != BundleFormat {
		return nil, fmt.Errorf("%w: bundle format %d, this augur reads %d", ErrSyntax, b.Format, BundleFormat)
	}
	s, err := b.Space()
	if err != nil {
		return nil, fmt.Errorf("features: bundle space: %w", err)
	}
	want := NewEncoder(b.TaskNames, s).Names()
	if len(want) != len(b.Features) {
		return nil, fmt.Errorf("%w: bundle lists %d features, its kernel has %d", ErrSyntax, len(b.Features), len(want))
	}
	for i := range want {
		if want[i] != b.Features[i] {
			return nil, fmt.Errorf("%w: bundle feature %d is %q, want %q", ErrSyntax, i, b.Features[i], want[i])
		}
	}
	if len(b.TaskNames) > MaxTaskLen {
		return nil, fmt.Errorf("%w: bundle has %d task features, at most %d allowed", ErrSyntax, len(b.TaskNames), MaxTaskLen)
	}
	if !s.Valid(b.Reference) {
		return nil, fmt.Errorf("%w: bundle reference %v is not in its space", ErrSyntax, b.Reference)
	}
	if len(b.Models) == 0 {
		return nil, fmt.Errorf("%w: bundle holds no models", ErrSyntax)
	}
	return &b, nil
}
