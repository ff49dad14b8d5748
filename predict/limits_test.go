package predict_test

import (
	"strings"
	"testing"

	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/predict"
)

// TestWithLimits checks that a model given other resource limits keeps to
// them, leaves the original as it was, and refuses a feature its kernel
// does not derive.
func TestWithLimits(t *testing.T) {
	b := bundle(t)
	m, err := predict.Load(b, "", datasets.Deriver(b.Kernel))
	if err != nil {
		t.Fatal(err)
	}
	task := features.Task{1920, 1080, 5, 5}
	ref := b.Reference // 8 x 8 work-items
	tight, err := m.WithLimits(map[string]float64{"wg_items": 32})
	if err != nil {
		t.Fatal(err)
	}
	roomy, err := m.WithLimits(map[string]float64{"wg_items": 64})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		m    *predict.Model
		ok   bool
	}{{"tight", tight, false}, {"roomy", roomy, true}, {"the original", m, true}} {
		if _, ok := tc.m.Scorer(task).Score(ref); ok != tc.ok {
			t.Errorf("%s: the reference's 64 work-items within its limits: %v, want %v", tc.name, ok, tc.ok)
		}
	}
	if _, err := m.WithLimits(map[string]float64{"registers": 1}); err == nil || !strings.Contains(err.Error(), `"registers"`) {
		t.Errorf("a limit on no derived feature: error %v, want one naming it", err)
	}
}
