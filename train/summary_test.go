package train

import (
	"strings"
	"testing"

	"github.com/augur-tuning/augur/features"
)

// TestWriteSummaryPool: a device's model says which model serves it and,
// when the choice was scored, both models' held-out picks; a device of
// many shapes whose choice was not scored (PoolOptions.Figures) says so
// instead of printing zeros.
func TestWriteSummaryPool(t *testing.T) {
	b, err := features.ReadBundleFile("../testdata/conv2d-h200.augur")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		pool *features.PoolChoice
		want string
	}{
		{"scored, fleet", &features.PoolChoice{Fleet: true, OwnPct: 89.9, FleetPct: 94.3, OwnWorst: 82.5, FleetWorst: 89.7, Shapes: 3},
			"serves the device: the fleet model, scored with this device's features (held-out picks on its 3 shapes: own 89.9%, worst 82.5%; fleet 94.3%, worst 89.7%)\n"},
		{"not scored", &features.PoolChoice{Shapes: 12},
			"serves the device: this model (a device of 12 shapes keeps its own model; its picks were not scored)\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nb := *b
			nb.Models = []features.Model{b.Models[0]}
			nb.Models[0].Pool = tc.pool
			var sb strings.Builder
			if err := WriteSummary(&sb, &nb, SummaryOptions{}); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(sb.String(), tc.want) {
				t.Errorf("summary lacks %q:\n%s", tc.want, sb.String())
			}
		})
	}
}

func TestWriteSummaryUnseen(t *testing.T) {
	b, err := features.ReadBundleFile("../testdata/conv2d-h200.augur")
	if err != nil {
		t.Fatal(err)
	}
	b.Models = b.Models[:1]
	for _, tc := range []struct {
		name string
		u    *features.UnseenPolicy
		want []string // "" wants no unseen-device line
	}{
		{"none", nil, []string{""}},
		{"two policies", &features.UnseenPolicy{Policy: features.UnseenCopy, NewShapes: features.UnseenFleet, Devices: 2, Shapes: 40,
			PctGeomean:    map[string]float64{features.UnseenCopy: 99.6, features.UnseenFleet: 99.2},
			NewPctGeomean: map[string]float64{features.UnseenCopy: 65.2, features.UnseenFleet: 98.5}},
			[]string{"a device with no model of its own: copying another device's best at shapes another device measured, the fleet model's search at new shapes\n",
				"chosen by leaving each of 2 devices out (40 shapes); measured shapes: copy 99.6%, fleet 99.2%; new shapes: copy 65.2%, fleet 98.5%\n"}},
		{"an older bundle: one policy", &features.UnseenPolicy{Policy: features.UnseenFleet, Devices: 3, Shapes: 61},
			[]string{"the fleet model's search at shapes another device measured, the fleet model's search at new shapes\n", "chosen by leaving each of 3 devices out (61 shapes)\n"}},
		{"one device", &features.UnseenPolicy{Policy: features.UnseenCopy, NewShapes: features.UnseenFleet, Shapes: 10,
			NewPctGeomean: map[string]float64{features.UnseenCopy: 70.6, features.UnseenFleet: 97.4}},
			[]string{"new shapes chosen on the one device's own held-out shapes (10); new shapes: copy 70.6%, fleet 97.4%\n"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nb := *b
			nb.Unseen = tc.u
			var sb strings.Builder
			if err := WriteSummary(&sb, &nb, SummaryOptions{}); err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if w == "" {
					if strings.Contains(sb.String(), "no model of its own") {
						t.Errorf("summary has an unseen-device line:\n%s", sb.String())
					}
					continue
				}
				if !strings.Contains(sb.String(), w) {
					t.Errorf("summary lacks %q:\n%s", w, sb.String())
				}
			}
		})
	}
}

func TestWriteSummarySiblings(t *testing.T) {
	b, err := features.ReadBundleFile("../testdata/conv2d-h200.augur")
	if err != nil {
		t.Fatal(err)
	}
	b.Models = b.Models[:1]
	b.Models[0].Siblings = &features.SiblingChoice{Copy: true, CopyPct: 99.8, OwnPct: 98.8, Shapes: 10}
	var sb strings.Builder
	if err := WriteSummary(&sb, b, SummaryOptions{}); err != nil {
		t.Fatal(err)
	}
	want := "at a shape only another device of its type measured: copies that device's best (the copies on 10 shapes 99.8%, this model's held-out picks 98.8%)\n"
	if !strings.Contains(sb.String(), want) {
		t.Errorf("summary lacks %q:\n%s", want, sb.String())
	}
}

// TestWriteSummaryLearnerHeldOut: the learner line says what the selection
// held out: shapes, or with data of one shape folds of its configurations
// (the stat holdout_folds).
func TestWriteSummaryLearnerHeldOut(t *testing.T) {
	b, err := features.ReadBundleFile("../testdata/conv2d-h200.augur")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		stat string
		want string
	}{
		{"holdout_shapes", "chosen by its picks on held-out shapes\n"},
		{"holdout_folds", "chosen by its picks on held-out folds of the one shape's configurations\n"},
	} {
		t.Run(tc.stat, func(t *testing.T) {
			nb := *b
			nb.Models = []features.Model{b.Models[0]}
			nb.Models[0].Learner = "gbrt-d8-t150-lr0.1-min5"
			nb.Models[0].Stats = map[string]float64{tc.stat: 5}
			var sb strings.Builder
			if err := WriteSummary(&sb, &nb, SummaryOptions{}); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(sb.String(), tc.want) {
				t.Errorf("summary lacks %q:\n%s", tc.want, sb.String())
			}
		})
	}
}

// TestWriteSummaryLabels: a spec's string parameter is written by its
// values' texts, in the parameters, the reference and a fixed
// configuration; without labels, by their numbers.
func TestWriteSummaryLabels(t *testing.T) {
	b, err := features.ReadBundleFile("../testdata/conv2d-h200.augur")
	if err != nil {
		t.Fatal(err)
	}
	b.Params = []features.Param{{Name: "WG", Values: []int{8, 16}}, {Name: "MODE", Values: []int{0, 1}}}
	b.Reference, b.Constraints = features.Config{8, 1}, []string{"MODE != 0 || WG == 16"}
	b.Models = b.Models[:1]
	b.Models[0].Fixed = &features.FixedPick{Config: features.Config{16, 0}}
	for _, tc := range []struct {
		name string
		opt  SummaryOptions
		want []string
	}{
		{"labels", SummaryOptions{Labels: [][]string{nil, {"fast", "exact"}}, Constraints: []string{"MODE != 'fast' or WG == 16"}},
			[]string{"parameters: WG[8 16] MODE[fast exact]\n", "constraints: MODE != 'fast' or WG == 16\n", "reference: WG=8,MODE=exact\n", "one fixed configuration, WG=16,MODE=fast ("}},
		{"numbers", SummaryOptions{}, []string{"parameters: WG[8 16] MODE[0 1]\n", "constraints: MODE != 0 || WG == 16\n", "reference: WG=8,MODE=1\n", "one fixed configuration, WG=16,MODE=0 ("}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var sb strings.Builder
			if err := WriteSummary(&sb, b, tc.opt); err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(sb.String(), w) {
					t.Errorf("summary lacks %q:\n%s", w, sb.String())
				}
			}
		})
	}
}
