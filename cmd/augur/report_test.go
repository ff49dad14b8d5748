package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/augur-tuning/augur/eval"
	"github.com/augur-tuning/augur/features"
)

var updateGolden = flag.Bool("update", false, "rewrite the renderers' golden files in testdata/")

// TestRenderers renders reports that `augur eval --json` printed (on
// testdata/h200 with --holdout shapes, on the H200 and H100 sets with
// --holdout device=nvidia-h200 --fleet-prior, and --table3 on
// testdata/pocl) and compares the text with the golden files, which hold
// what `augur eval` printed for the same runs before the renderers moved
// out of eval. Run with -update to rewrite them.
func TestRenderers(t *testing.T) {
	for _, tc := range []struct {
		name   string
		render func(data []byte, w *bytes.Buffer) error
	}{
		{"eval-h200-shapes", func(data []byte, w *bytes.Buffer) error {
			var r eval.Report
			if err := json.Unmarshal(data, &r); err != nil {
				return err
			}
			return writeEvalText(w, &r)
		}},
		{"eval-fleet-device", func(data []byte, w *bytes.Buffer) error {
			var r eval.Report
			if err := json.Unmarshal(data, &r); err != nil {
				return err
			}
			return writeEvalText(w, &r)
		}},
		{"table3-pocl", func(data []byte, w *bytes.Buffer) error {
			var r eval.Table3Report
			if err := json.Unmarshal(data, &r); err != nil {
				return err
			}
			return writeTable3Text(w, &r)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", tc.name+".json"))
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			if err := tc.render(data, &got); err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", tc.name+".golden")
			if *updateGolden {
				if err := os.WriteFile(golden, got.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if got.String() != string(want) {
				t.Errorf("text differs from %s:\n%s", golden, got.String())
			}
		})
	}
}

// TestWriteIndentedJSON checks that a report is written as one JSON object
// indented by a space a level, as `augur eval --json` prints it.
func TestWriteIndentedJSON(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "table3-pocl.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r eval.Table3Report
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if err := writeIndentedJSON(&got, &r); err != nil {
		t.Fatal(err)
	}
	if got.String() != string(data) {
		t.Errorf("writeIndentedJSON:\n%s\nwant\n%s", got.String(), data)
	}
}

func TestUnseenText(t *testing.T) {
	for _, tc := range []struct {
		name string
		r    *eval.UnseenReport
		want []string
		// absent must not appear
		absent []string
	}{
		{"nil", nil, nil, nil},
		{"no device scored", &eval.UnseenReport{Policy: features.UnseenCopy}, nil, nil},
		{"two devices", &eval.UnseenReport{Policy: features.UnseenFleet, NewShapes: features.UnseenCopy, Devices: []eval.UnseenDevice{
			{Device: "nvidia-h200", SameType: true, Shapes: 6, Pct: map[string]float64{features.UnseenCopy: 91.25, features.UnseenFleet: 95.5},
				NewShapes: 7, NewPct: map[string]float64{features.UnseenCopy: 93.5, features.UnseenFleet: 92},
				Judged: map[string]int{features.UnseenCopy: 2, features.UnseenFleet: 1}},
			{Device: "pocl-cpu", NewShapes: 3, NewPct: map[string]float64{features.UnseenCopy: 88, features.UnseenFleet: 90}},
		}}, []string{"unseen devices (each device left out", "nvidia-h200       6    91.2     95.5           7    93.5     92.0",
			"pocl-cpu       0       -        -           3    88.0     90.0            0             0  no device of its type to copy from",
			"policy for a device with no model: fleet search at shapes another device measured, copy at new shapes\n"}, []string{"decided on copies across types"}},
		{"each device alone of its type", &eval.UnseenReport{Policy: features.UnseenFleet, NewShapes: features.UnseenCopy, Devices: []eval.UnseenDevice{
			{Device: "nvidia-h200", NewShapes: 7, NewPct: map[string]float64{features.UnseenCopy: 93.5, features.UnseenFleet: 92}},
			{Device: "pocl-cpu", NewShapes: 3, NewPct: map[string]float64{features.UnseenCopy: 88, features.UnseenFleet: 90}},
		}}, []string{"(decided on copies across types: a device of a type the bundle has copies that device's best at the shapes it measured)"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := unseenText(tc.r)
			if tc.want == nil && got != "" {
				t.Errorf("unseenText = %q, want empty", got)
			}
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("unseenText lacks %q:\n%s", w, got)
				}
			}
			for _, w := range tc.absent {
				if strings.Contains(got, w) {
					t.Errorf("unseenText has %q:\n%s", w, got)
				}
			}
		})
	}
}

// TestWriteEvalPlots checks that every plot of a report with a learning
// curve, strategies and the two-stage tuner is written.
func TestWriteEvalPlots(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "eval-h200-shapes.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r eval.Report
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := writeEvalPlots(dir, &r); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"learning_curve.png", "strategies.png", "two_stage.png"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("plot %s: %v", f, err)
		}
	}
}

func TestUnseenHow(t *testing.T) {
	for _, tc := range []struct {
		name string
		r    *eval.UnseenReport
		want string
	}{
		{"nothing scored", nil, "no device to leave out: the default"},
		{"one device", &eval.UnseenReport{Own: &eval.UnseenOwn{Device: "nvidia-h200", Shapes: 10, ModelPct: 97.4, CopyPct: 70.6}},
			"one training device: on its 10 shapes, each held out, the model's picks 97.4% against copying the nearest other shape's best 70.6%"},
		{"held-out devices", &eval.UnseenReport{Devices: []eval.UnseenDevice{{Device: "nvidia-h200", SameType: true,
			NewPct: map[string]float64{features.UnseenCopy: 81.4, features.UnseenFleet: 69}}}},
			"chosen by leaving each training device out; nvidia-h200: as new shapes copy 81.4%, fleet 69.0%"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := unseenHow(tc.r); got != tc.want {
				t.Errorf("unseenHow = %q, want %q", got, tc.want)
			}
		})
	}
	if got, want := policyText(features.UnseenCopy, ""), "copy at shapes another device measured, copy at new shapes"; got != want {
		t.Errorf("policyText of a bundle without NewShapes = %q, want %q", got, want)
	}
}

func TestSiblingsText(t *testing.T) {
	b := &features.Bundle{Models: []features.Model{
		{Name: "nvidia-h100", Siblings: &features.SiblingChoice{Copy: true, CopyPct: 99.5, OwnPct: 94.3, Shapes: 10}},
		{Name: "nvidia-h200", Siblings: &features.SiblingChoice{CopyPct: 90, OwnPct: 95.4, Shapes: 4}},
		{Name: "fleet"},
	}}
	got := siblingsText(b)
	for _, w := range []string{"at a shape only another device of its type measured",
		"nvidia-h100: copies 99.5% on 10 shapes, its model 94.3%: copies that device's best\n",
		"nvidia-h200: copies 90.0% on 4 shapes, its model 95.4%: searches its model\n"} {
		if !strings.Contains(got, w) {
			t.Errorf("siblingsText lacks %q:\n%s", w, got)
		}
	}
	if got := siblingsText(&features.Bundle{Models: []features.Model{{Name: "fleet"}}}); got != "" {
		t.Errorf("siblingsText of a bundle without choices = %q, want empty", got)
	}
}
