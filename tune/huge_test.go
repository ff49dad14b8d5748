package tune_test

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/tune"
)

// TestTuneHugeSpace: the two-stage tuner, which scores every valid
// configuration, refuses a space of billions before it lists them or
// opens a device, and says what to do instead.
func TestTuneHugeSpace(t *testing.T) {
	raw, err := os.ReadFile("../examples/transpose/transpose.json")
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	cs := m["ConfigurationSpace"].(map[string]any)
	for _, n := range []string{"X0", "X1", "X2", "X3", "X4", "X5"} {
		cs["TuningParameters"] = append(cs["TuningParameters"].([]any), map[string]any{"Name": n, "Values": "list(range(1, 17))", "Default": 1})
	}
	spec, _ := json.Marshal(m)
	src, err := os.ReadFile("../examples/transpose/transpose.cl")
	if err != nil {
		t.Fatal(err)
	}
	k, err := datasets.ParseSpec("huge.json", spec, string(src), nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = tune.Tune(context.Background(), k, features.Task{256, 256}, tune.TuneOptions{})
	if err == nil || !strings.Contains(err.Error(), "every valid configuration") || !strings.Contains(err.Error(), "--top") {
		t.Errorf("Tune on %d valid configurations: err = %v, want a refusal naming the alternative", k.Space.Len(), err)
	}
}
