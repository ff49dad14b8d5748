package train

import (
	"encoding/json"
	"testing"

	"github.com/augur-tuning/augur/features"
)

// TestOwnModelBesideOthers trains a device's model on its rows alone and
// on the same rows beside another device's (the other device read first,
// so that the device's index differs), and wants the device's own model
// identical, field by field, but for its fit time and the fleet choice
// that only a fleet has: a device's own model is fitted on its own rows
// only, so nothing else in the directory may move its picks.
func TestOwnModelBesideOthers(t *testing.T) {
	small := synthPlatform("Small GPU", 4)
	alone := t.TempDir()
	writeSynth(t, alone, small, 1, 1500)
	pair := t.TempDir()
	writeSynth(t, pair, small, 1, 1500)
	writeSynth(t, pair, synthPlatform("Big GPU", 64), 2, 900)

	tests := []struct {
		name string
		opt  Options
	}{
		{"gbrt", Options{Kernel: "synth", Seed: 1, GBRT: GBRTOptions{Trees: 30}}},
		{"auto", Options{Kernel: "synth", Seed: 1, Folds: 1, Select: SelectOptions{Candidates: []Candidate{
			GBRTCandidate(GBRTOptions{Trees: 30, MaxDepth: 4, Seed: 1}),
			ForestCandidate(ForestOptions{Trees: 10, MaxDepth: 8, Seed: 1}),
		}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			want := ownModel(t, alone, tc.opt, small.Slug())
			got := ownModel(t, pair, tc.opt, small.Slug())
			if want.Starts == nil {
				t.Errorf("alone: model has no starts table")
			}
			g, w := modelFields(t, got), modelFields(t, want)
			for k := range w {
				if g[k] != w[k] {
					t.Errorf("own model's %s beside another device differs from its rows' alone:\ngot  %.300s\nwant %.300s", k, g[k], w[k])
				}
			}
			for k := range g {
				if _, ok := w[k]; !ok {
					t.Errorf("own model beside another device has %s, its rows' alone has none", k)
				}
			}
		})
	}
}

// ownModel trains on dir's synth data with opt and returns the model of
// the device slug, its fit time and fleet choice cleared.
func ownModel(t *testing.T, dir string, opt Options, slug string) features.Model {
	t.Helper()
	d, err := Load(dir, "synth")
	if err != nil {
		t.Fatal(err)
	}
	b, rep, err := TrainData(d, opt)
	if err != nil {
		t.Fatal(err)
	}
	if err := ChoosePool(b, d, rep, PoolOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, m := range b.Models {
		if m.Name == slug {
			m.FitSeconds, m.Pool = 0, nil
			return m
		}
	}
	t.Fatalf("no model %s among %d", slug, len(b.Models))
	return features.Model{}
}

// modelFields is m's JSON, field by field.
func modelFields(t *testing.T, m features.Model) map[string]string {
	t.Helper()
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for k, v := range raw {
		out[k] = string(v)
	}
	return out
}
