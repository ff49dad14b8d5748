package train_test

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/train"
)

func TestAddWisdom(t *testing.T) {
	base, err := train.Load("../testdata/pocl", "conv2d")
	if err != nil {
		t.Fatal(err)
	}
	s := base.Sample(0)
	slug := base.Platforms[s.Platform].Slug()
	var cfg features.Config
	for _, x := range base.Samples() {
		if !x.Config.Equal(base.Reference) {
			cfg = x.Config
			break
		}
	}
	newShape := features.Task{96, 80, 3, 3} // not in the data
	rec := func(shape features.Task, c features.Config, ns float64) features.WisdomRecord {
		return features.WisdomRecord{KernelVersion: base.KernelVersion, Device: slug, Shape: shape, Config: c, TimeNs: ns}
	}
	other := rec(s.Task, cfg, 10)
	other.KernelVersion = "other"
	stranger := rec(s.Task, cfg, 10)
	stranger.Device = "some-gpu"
	for _, tc := range []struct {
		name   string
		recs   []features.WisdomRecord
		want   train.WisdomReport
		logSpd float64 // of the last row added; NaN: not checked
	}{
		{"the data's reference time", []features.WisdomRecord{rec(s.Task, cfg, s.RefTimeNs/2)}, train.WisdomReport{Added: 1}, math.Log(2)},
		{"the wisdom's reference time", []features.WisdomRecord{rec(s.Task, base.Reference, s.RefTimeNs*2), rec(s.Task, cfg, s.RefTimeNs/2)},
			train.WisdomReport{Added: 2}, math.Log(4)},
		{"a new shape with its reference", []features.WisdomRecord{rec(newShape, base.Reference, 300), rec(newShape, cfg, 100)}, train.WisdomReport{Added: 2}, math.Log(3)},
		{"a new shape without", []features.WisdomRecord{rec(newShape, cfg, 100)}, train.WisdomReport{NoReference: 1}, math.NaN()},
		{"fastest of repeats", []features.WisdomRecord{rec(s.Task, cfg, s.RefTimeNs), rec(s.Task, cfg, s.RefTimeNs/4)}, train.WisdomReport{Added: 1}, math.Log(4)},
		{"skipped", []features.WisdomRecord{other, stranger, rec(features.Task{1, 2}, cfg, 1), rec(s.Task, features.Config{1}, 1)},
			train.WisdomReport{OtherVersion: 1, UnknownDevice: 1, Invalid: 2}, math.NaN()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := base.Subset(func() []int {
				rows := make([]int, base.Len())
				for i := range rows {
					rows[i] = i
				}
				return rows
			}())
			rep, err := d.AddWisdom(tc.recs)
			if err != nil {
				t.Fatal(err)
			}
			if rep != tc.want {
				t.Errorf("report %+v, want %+v", rep, tc.want)
			}
			if d.Len() != base.Len()+tc.want.Added || len(d.Row(d.Len()-1)) != len(d.Features) {
				t.Errorf("%d rows, %d values a row, want %d rows", d.Len(), len(d.Row(d.Len()-1)), base.Len()+tc.want.Added)
			}
			if !math.IsNaN(tc.logSpd) {
				if got := d.Y[d.Len()-1]; math.Abs(got-tc.logSpd) > 1e-9 || !d.Sample(d.Len()-1).Measured() {
					t.Errorf("last row's log-speedup %g, want %g", got, tc.logSpd)
				}
			}
		})
	}
}

func TestReadWisdomFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "w")
	text := `{"kernel_version":"v","shape":[1],"config":[1],"time_ns":2}` + "\nbroken\n\n" + `{"kernel_version":"v","shape":[2],"config":[1],"time_ns":3}`
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	recs, damaged, err := train.ReadWisdomFile(path)
	if err != nil || len(recs) != 2 || damaged != 1 {
		t.Errorf("ReadWisdomFile = %d records, %d damaged, %v; want 2, 1", len(recs), damaged, err)
	}
	if _, _, err := train.ReadWisdomFile(filepath.Join(t.TempDir(), "none")); err == nil {
		t.Error("ReadWisdomFile of a missing file succeeded")
	}
}
