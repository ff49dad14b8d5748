package eval

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/augur-tuning/augur/collect/record"
	"github.com/augur-tuning/augur/train"
)

// fleetDir copies the conv2d files of the given testdata directories under
// one kernel directory, keeping only the first shape of each file when
// oneShape is set.
func fleetDir(t *testing.T, oneShape bool, dirs ...string) string {
	t.Helper()
	out := t.TempDir()
	for _, d := range dirs {
		files, err := record.ReadDir(filepath.Join("../testdata", d, "conv2d"))
		if err != nil {
			t.Fatal(err)
		}
		for i, f := range files {
			path := filepath.Join(out, "conv2d", f.Meta.Platform.Slug(), filepath.Base(f.Path))
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if oneShape && i > 0 {
				continue
			}
			w, err := record.Create(path, f.Meta, record.WriterOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range f.Rows {
				if oneShape && r.Task.Key() != f.Rows[0].Task.Key() {
					continue
				}
				if err := w.Write(r); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
		}
	}
	return out
}

// fastOptions keep the parts other than the holdout cheap.
func fastOptions() Options {
	return Options{Kernel: "conv2d", Seeds: 1, TwoStageSeeds: 1, Budgets: []int{8}, Thresholds: []float64{0.1},
		Learner: "gbrt", GBRT: train.GBRTOptions{Trees: 50}}
}

// TestHoldoutDevice trains the fleet model on the H200's full-space shapes
// and chooses for the H100's with zero measurements on it: every shape
// scored, better than the reference, the H200's best copied as the
// baseline, and the JSON carrying holdout.geomean_pct_of_best.
func TestHoldoutDevice(t *testing.T) {
	dir := fleetDir(t, false, "h200-test", "h100-test")
	opt := fastOptions()
	opt.HoldoutDevice = "NVIDIA H100 80GB HBM3"
	rep, err := Evaluate(dir, opt)
	if err != nil {
		t.Fatal(err)
	}
	h := rep.Holdout
	if h == nil || h.Mode != "device" || h.Device != "nvidia-h100-80gb-hbm3" || len(h.TrainedOn) != 1 || h.TrainedOn[0] != "nvidia-h200" {
		t.Fatalf("holdout = %+v, want device nvidia-h100-80gb-hbm3 trained on nvidia-h200", h)
	}
	if len(h.Shapes) != 3 || h.Geomean != h.Pct || !(h.Pct > h.RefPct) || h.Pct > 100 {
		t.Errorf("holdout: %d shapes, geomean %.1f, pct %.1f, reference %.1f; want 3 shapes above the reference", len(h.Shapes), h.Geomean, h.Pct, h.RefPct)
	}
	if len(h.Copies) != 1 || h.Copies[0].Device != "nvidia-h200" || !(h.Copies[0].Pct > 0) || h.CopyBestPct != h.Copies[0].Pct {
		t.Errorf("copies = %+v, best %.1f; want the H200's, equal to the best copy", h.Copies, h.CopyBestPct)
	}
	for _, s := range h.Shapes {
		if len(s.Copies) != 1 || s.Copies[0].From != s.Shape {
			t.Errorf("shape %s copies %+v, want the H200's best of the same shape", s.Shape, s.Copies)
		}
	}
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(rep); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Holdout map[string]json.RawMessage `json:"holdout"`
	}
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if _, ok := got.Holdout["geomean_pct_of_best"]; !ok {
		t.Errorf("JSON holdout lacks geomean_pct_of_best: %s", buf.Bytes()[:200])
	}
	if h.Policy != "copy" {
		t.Errorf("runtime policy %q, want copy", h.Policy)
	}
}

// TestHoldoutDeviceTest trains on the sampled training sets of both
// devices minus the H200 and chooses for the H200's full-space test
// shapes, copying the H100's best of the nearest training shape.
func TestHoldoutDeviceTest(t *testing.T) {
	dir := fleetDir(t, false, "h200-train", "h100-train")
	opt := fastOptions()
	opt.HoldoutDevice, opt.Test = "nvidia-h200", "../testdata/h200-test"
	rep, err := Evaluate(dir, opt)
	if err != nil {
		t.Fatal(err)
	}
	h := rep.Holdout
	if len(h.Shapes) != 6 || len(h.TrainedOn) != 1 || h.TrainedOn[0] != "nvidia-h100-80gb-hbm3" || !(h.Pct > h.RefPct) {
		t.Fatalf("holdout = %+v, want 6 H200 shapes chosen from the H100 better than the reference", h)
	}
	for _, s := range h.Shapes {
		if len(s.Copies) != 1 || s.Copies[0].From == "" || s.Copies[0].Status == "unrecorded" {
			t.Errorf("shape %s copies %+v, want a recorded copy of the H100's nearest shape", s.Shape, s.Copies)
		}
	}
	// With one training device there is no device to leave out: the
	// runtime copies, and so is never below copying.
	if h.Policy != "copy" || h.Unseen != nil || !(h.FleetSearchPct > 0) || h.CopyPolicyPct != h.Pct {
		t.Errorf("policy %q (report %+v), fleet search %.1f, copy policy %.1f, chosen %.1f; want copy, no report, both scored, chosen = copy",
			h.Policy, h.Unseen, h.FleetSearchPct, h.CopyPolicyPct, h.Pct)
	}
	for _, s := range h.Shapes {
		if s.Source != "copy:nvidia-h100-80gb-hbm3" || s.Pct != s.Copies[0].Pct {
			t.Errorf("shape %s: source %q at %.1f%%, want copy:nvidia-h100-80gb-hbm3 at the copy's %.1f%%", s.Shape, s.Source, s.Pct, s.Copies[0].Pct)
		}
	}
}

func TestHoldoutErrors(t *testing.T) {
	two := fleetDir(t, false, "h200-test", "h100-test")
	oneShape := fleetDir(t, true, "h200-test", "h100-test")
	for _, tc := range []struct {
		name, dir string
		set       func(*Options)
		want      string
	}{
		{"unknown device", two, func(o *Options) { o.HoldoutDevice = "rtx-9090" }, "(have nvidia-h"},
		{"one device", "../testdata/h200", func(o *Options) { o.HoldoutDevice = "nvidia-h200" }, "another device to train on"},
		{"shapes on one shape per device", oneShape, func(o *Options) { o.Holdout = true }, "each of the 2 devices here has one"},
		{"both holdouts", two, func(o *Options) { o.Holdout, o.HoldoutDevice = true, "nvidia-h200" }, "exclude each other"},
		{"pool without holdout", two, func(o *Options) { o.Pool = true }, "Pool needs Holdout"},
		{"pool figures without holdout", two, func(o *Options) { o.PoolFigures = true }, "PoolFigures needs Holdout"},
		{"pool figures pooled", two, func(o *Options) { o.Holdout, o.Pool, o.PoolFigures = true, true, true }, "PoolFigures needs Holdout without Pool"},
		{"pool on one device", "../testdata/h200", func(o *Options) { o.Holdout, o.Pool = true, true }, "two devices or more"},
		{"negative workers", "../testdata/h200", func(o *Options) { o.Holdout, o.Workers = true, -1 }, "Workers must be >= 0"},
		{"negative select repeats", "../testdata/h200", func(o *Options) { o.Holdout, o.SelectRepeats = true, -1 }, "SelectRepeats must be >= 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opt := fastOptions()
			tc.set(&opt)
			_, err := Evaluate(tc.dir, opt)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one containing %q", err, tc.want)
			}
			options := map[string]bool{"both holdouts": true, "pool without holdout": true, "pool figures without holdout": true, "pool figures pooled": true, "negative workers": true, "negative select repeats": true}
			if !options[tc.name] && !errors.Is(err, ErrNoHoldout) {
				t.Errorf("err = %v, want ErrNoHoldout", err)
			}
		})
	}
}

// TestHoldoutDeviceSampled: sampled shapes (testdata's h200-train and
// h100-train, none near its whole space) are held-out targets too, each
// recorded pick judged against the shape's fastest recorded
// configuration, as leave-one-shape-out judges.
func TestHoldoutDeviceSampled(t *testing.T) {
	opt := fastOptions()
	opt.HoldoutDevice = "nvidia-h200"
	rep, err := Evaluate(fleetDir(t, false, "h200-train", "h100-train"), opt)
	if err != nil {
		t.Fatal(err)
	}
	h := rep.Holdout
	if h == nil || len(h.Shapes) == 0 {
		t.Fatalf("holdout %+v, want the H200's sampled shapes", h)
	}
	ok := 0
	for _, s := range h.Shapes {
		switch s.Status {
		case "ok":
			ok++
			if !(s.Pct > 0 && s.Pct <= 100) {
				t.Errorf("shape %s: %.1f%% of its recorded best", s.Shape, s.Pct)
			}
		case "unrecorded", "failed":
		default:
			t.Errorf("shape %s: status %q", s.Shape, s.Status)
		}
	}
	if ok == 0 {
		t.Errorf("no pick of %d shapes was recorded", len(h.Shapes))
	}
}
