package main

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/tune"
)

// TestTuneJSONLabels: tune --json writes a spec's string parameter by its
// text and a float parameter by its number, the others as numbers.
func TestTuneJSONLabels(t *testing.T) {
	k, err := datasets.ReadSpec("../../datasets/testdata/labels/labels.json") // B, MODE of 'fast' and 'exact', F of 0.5 and 1.5
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		r    tune.TuneResult
		want map[string]any
	}{
		{"spec kernel", tune.TuneResult{Best: features.Config{16, 0, 1}, Space: k.Space, Kernel: k}, map[string]any{"B": 16.0, "MODE": "fast", "F": 1.5}},
		{"space alone", tune.TuneResult{Best: features.Config{16, 0, 1}, Space: k.Space}, map[string]any{"B": 16.0, "MODE": 0.0, "F": 1.0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := writeTuneJSON(&b, &tc.r); err != nil {
				t.Fatal(err)
			}
			var got struct{ Config map[string]any }
			if err := json.Unmarshal(b.Bytes(), &got); err != nil {
				t.Fatal(err)
			}
			for name, want := range tc.want {
				if got.Config[name] != want {
					t.Errorf("%s = %#v, want %#v (%s)", name, got.Config[name], want, b.String())
				}
			}
		})
	}
}
