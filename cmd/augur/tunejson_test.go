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
	spec := `{"ConfigurationSpace":{"TuningParameters":[{"Name":"B","Values":"[8, 16]","Default":8},` +
		`{"Name":"MODE","Type":"string","Values":"['fast', 'exact']","Default":"exact"},{"Name":"F","Type":"float","Values":"[0.5, 1.5]"}]},` +
		`"KernelSpecification":{"Language":"OpenCL","KernelName":"k","GlobalSize":{"X":"ProblemSize[0]"},"LocalSize":{"X":"B"},"ProblemSize":[64],` +
		`"Arguments":[{"Type":"float","Size":"ProblemSize[0]","MemoryType":"Vector","Output":1}]}}`
	k, err := datasets.ParseSpec("labels.json", []byte(spec), "__kernel void k(__global float *o) {}", nil)
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
