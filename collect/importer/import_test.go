package importer

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/augur-tuning/augur/collect/record"
	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/train"
)

var fixedNow = func() time.Time { return time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC) }

// TestImportKernelTuner imports both benchmark-hub caches with the T1 spec
// and the filter sizes as task features, reads the files back, and trains
// on them.
func TestImportKernelTuner(t *testing.T) {
	readTestFile(t, a4000)
	readTestFile(t, w6600)
	out := t.TempDir()
	opt := Options{From: FromKernelTuner, Files: []string{a4000, w6600}, Kernel: "convolution",
		Spec: t1Path, Out: out, TaskParams: []string{"filter_width", "filter_height"}, Now: fixedNow}
	sum, err := Import(t.Context(), opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + sum.String())
	ref := "block_size_x=16,block_size_y=16,tile_size_x=1,tile_size_y=1,read_only=0,use_padding=1,use_shmem=1,use_cmem=1"
	tests := []struct {
		slug     string
		counts   map[record.Status]int
		best     string
		bestMs   float64
		refMs    float64
		platform features.Platform
	}{
		{"nvidia-rtx-a4000",
			map[record.Status]int{record.StatusOK: 4201, record.StatusLaunchError: 155, record.StatusCompileError: 6},
			"block_size_x=256,block_size_y=1,tile_size_x=2,tile_size_y=4,read_only=0,use_padding=0,use_shmem=0,use_cmem=1",
			0.99789, 3.11091, features.Platform{Name: "NVIDIA RTX A4000", Vendor: "NVIDIA", Type: "gpu"}},
		{"amd-radeon-pro-w6600",
			map[record.Status]int{record.StatusOK: 4362},
			"block_size_x=128,block_size_y=1,tile_size_x=1,tile_size_y=4,read_only=1,use_padding=0,use_shmem=0,use_cmem=1",
			1.46233, 2.08090, features.Platform{Name: "AMD Radeon PRO W6600", Vendor: "AMD", Type: "gpu"}},
	}
	if len(sum.Files) != len(tests) {
		t.Fatalf("%d files imported, want %d", len(sum.Files), len(tests))
	}
	for i, tt := range tests {
		f := sum.Files[i]
		if want := filepath.Join(out, "convolution", tt.slug, "import-"+baseName(opt.Files[i])+".arrow"); f.Path != want {
			t.Errorf("file %d written to %s, want %s", i, f.Path, want)
		}
		if f.Rows() != 4362 || f.Violations != 0 {
			t.Errorf("%s: %d rows and %d violations, want 4362 and 0", tt.slug, f.Rows(), f.Violations)
		}
		for st, n := range tt.counts {
			if f.Counts[st] != n {
				t.Errorf("%s: %d rows %s, want %d", tt.slug, f.Counts[st], st, n)
			}
		}
		if f.Best != tt.best || math.Abs(f.BestTimeNs/1e6-tt.bestMs) > 1e-4 {
			t.Errorf("%s: best %s %.5f ms, want %s %.5f ms", tt.slug, f.Best, f.BestTimeNs/1e6, tt.best, tt.bestMs)
		}
		if f.Reference != ref || f.RefFromMedian || math.Abs(f.RefTimeNs/1e6-tt.refMs) > 1e-4 {
			t.Errorf("%s: reference %s %.5f ms (median %v), want %s %.5f ms", tt.slug, f.Reference, f.RefTimeNs/1e6, f.RefFromMedian, ref, tt.refMs)
		}

		meta, rows, err := record.ReadFile(f.Path)
		if err != nil {
			t.Fatal(err)
		}
		if meta.Platform != tt.platform || meta.Source != "import:kerneltuner" || meta.Kernel != "convolution" ||
			!meta.Created.Equal(fixedNow()) || meta.AugurVersion != features.Version {
			t.Errorf("%s: meta %+v", tt.slug, meta)
		}
		if want := []string{"width", "height", "filter_width", "filter_height"}; strings.Join(meta.TaskNames, ",") != strings.Join(want, ",") {
			t.Errorf("%s: task names %v, want %v", tt.slug, meta.TaskNames, want)
		}
		if len(meta.Params) != 8 || len(meta.Constraints) != 4 || len(meta.KernelVersion) != 12 {
			t.Errorf("%s: %d params, %d constraints, version %q; want 8, 4 and 12 hex digits", tt.slug, len(meta.Params), len(meta.Constraints), meta.KernelVersion)
		}
		if len(rows) != 4362 {
			t.Fatalf("%s: read %d rows, want 4362", tt.slug, len(rows))
		}
		space, err := features.NewSpace(meta.Params, meta.Constraints)
		if err != nil {
			t.Fatal(err)
		}
		if space.Len() != 4362 {
			t.Errorf("%s: the written space has %d configurations, want 4362", tt.slug, space.Len())
		}
		seen := map[string]bool{}
		for _, r := range rows {
			if !(r.Task.Key() == features.Task{4096, 4096, 15, 15}.Key()) {
				t.Fatalf("%s: task %v, want [4096 4096 15 15]", tt.slug, r.Task)
			}
			key := space.Format(r.Config)
			if seen[key] {
				t.Fatalf("%s: %s twice", tt.slug, key)
			}
			seen[key] = true
			switch {
			case r.RefTimeNs != f.RefTimeNs:
				t.Fatalf("%s: row RefTimeNs %v, want %v", tt.slug, r.RefTimeNs, f.RefTimeNs)
			case r.Status == record.StatusOK && (r.Repeats != 32 || r.TimeMinNs > r.TimeNs || r.TimeCV < 0 ||
				math.Abs(r.LogSpeedup-math.Log(r.RefTimeNs/r.TimeNs)) > 1e-12):
				t.Fatalf("%s: ok row %+v", tt.slug, r)
			case r.Status != record.StatusOK && (!math.IsNaN(r.LogSpeedup) || r.TimeNs != 0 || r.Error == ""):
				t.Fatalf("%s: failed row %+v", tt.slug, r)
			case key == ref && r.LogSpeedup != 0:
				t.Fatalf("%s: the reference's log-speedup is %v, want 0", tt.slug, r.LogSpeedup)
			}
		}
	}

	d, err := train.Load(out, "convolution")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := d.Len(), 4201+4362; got != want || len(d.Platforms) != 2 {
		t.Errorf("train.Load: %d rows from %d platforms, want %d from 2", got, len(d.Platforms), want)
	}

	// A second import must refuse, naming the file, and keep the data.
	before, _ := os.Stat(sum.Files[0].Path)
	_, err = Import(t.Context(), opt)
	if !errors.Is(err, fs.ErrExist) || !strings.Contains(err.Error(), sum.Files[0].Path) {
		t.Errorf("second import: error %v, want fs.ErrExist naming %s", err, sum.Files[0].Path)
	}
	if after, _ := os.Stat(sum.Files[0].Path); after == nil || after.ModTime() != before.ModTime() || after.Size() != before.Size() {
		t.Errorf("second import touched %s", sum.Files[0].Path)
	}
}

// TestImportNoSpec builds the space from the cache's own tune_params: no
// constraints, every parameter a tuning parameter, and the first
// configuration as the reference.
func TestImportNoSpec(t *testing.T) {
	readTestFile(t, w6600)
	out := t.TempDir()
	sum, err := Import(t.Context(), Options{From: FromKernelTuner, Files: []string{w6600}, Kernel: "conv", Out: out})
	if err != nil {
		t.Fatal(err)
	}
	f := sum.Files[0]
	if f.Counts[record.StatusOK] != 4362 || f.Violations != 0 {
		t.Errorf("counts %v, %d violations; want ok 4362, 0", f.Counts, f.Violations)
	}
	if want := "block_size_x=16,block_size_y=1,tile_size_x=1,tile_size_y=1,read_only=0,use_padding=0,use_shmem=0,use_cmem=1,filter_height=15,filter_width=15"; f.Reference != want {
		t.Errorf("reference %s, want %s", f.Reference, want)
	}
	meta, _, err := record.ReadFile(f.Path)
	if err != nil {
		t.Fatal(err)
	}
	if len(meta.Params) != 10 || meta.Constraints != nil || strings.Join(meta.TaskNames, ",") != "width,height" {
		t.Errorf("meta: %d params, constraints %v, tasks %v; want 10, none, width,height", len(meta.Params), meta.Constraints, meta.TaskNames)
	}
}

// TestImportViolations checks that configurations outside the spec's space
// are counted and left out, and that a failed reference falls back to the
// median of the ok rows.
func TestImportViolations(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "spec.json")
	os.WriteFile(spec, []byte(`{"ConfigurationSpace": {
		"TuningParameters": [{"Name": "bx", "Values": "[16, 32]", "Default": 32}, {"Name": "by", "Values": "[1, 2]", "Default": 1}],
		"Conditions": [{"Expression": "bx // 16 * by <= 2"}]}}`), 0o644)
	cache := filepath.Join(dir, "cache.json")
	os.WriteFile(cache, []byte(`{"device_name": "Intel(R) Arc(TM) A770", "problem_size": 1000,
		"tune_params_keys": ["by", "bx"], "tune_params": {"bx": [16, 32, 64], "by": [1, 2]}, "cache": {
		"1,16": {"bx": 16, "by": 1, "time": 4, "times": [4]},
		"2,16": {"bx": 16, "by": 2, "time": 1, "times": [1, 1]},
		"1,32": {"bx": 32, "by": 1, "time": "RuntimeFailedConfig"},
		"2,32": {"bx": 32, "by": 2, "time": 9, "times": [9]},
		"1,64": {"bx": 64, "by": 1, "time": 2, "times": [2]},
		"2,64": {"bx": 64, "by": 2, "time": 3, "times": [3]},`), 0o644)
	sum, err := Import(t.Context(), Options{From: FromKernelTuner, Files: []string{cache}, Kernel: "k", Spec: spec, Out: dir})
	if err != nil {
		t.Fatal(err)
	}
	f := sum.Files[0]
	if f.Violations != 3 || !strings.Contains(f.Violation, "bx") {
		t.Errorf("%d violations (%q), want 3 naming bx", f.Violations, f.Violation)
	}
	if f.Counts[record.StatusOK] != 2 || f.Counts[record.StatusLaunchError] != 1 {
		t.Errorf("counts %v, want ok 2, launch_error 1", f.Counts)
	}
	if !f.RefFromMedian || f.Reference != "bx=32,by=1" || f.RefTimeNs != 2.5e6 {
		t.Errorf("reference %s %v ns (median %v), want bx=32,by=1 failed, median 2.5e6", f.Reference, f.RefTimeNs, f.RefFromMedian)
	}
	if f.Platform.Vendor != "Intel" || f.Best != "bx=16,by=2" || f.BestTimeNs != 1e6 {
		t.Errorf("vendor %q, best %s %v ns; want Intel, bx=16,by=2 1e6", f.Platform.Vendor, f.Best, f.BestTimeNs)
	}
	meta, rows, err := record.ReadFile(f.Path)
	if err != nil {
		t.Fatal(err)
	}
	if meta.Source != "import:kerneltuner ref=median" || strings.Join(meta.TaskNames, ",") != "problem_size_0" {
		t.Errorf("source %q, tasks %v", meta.Source, meta.TaskNames)
	}
	// The file lists by before bx; the rows follow the spec's order.
	if len(rows) != 3 || !rows[1].Config.Equal(features.Config{16, 2}) || math.Abs(rows[1].LogSpeedup-math.Log(2.5)) > 1e-12 {
		t.Errorf("rows %+v", rows)
	}
}

func TestImportT4(t *testing.T) {
	out := t.TempDir()
	sum, err := Import(t.Context(), Options{From: FromT4, Files: []string{t4Path}, Kernel: "convolution", Spec: t1Path,
		Out: out, Device: "NVIDIA RTX A4000", TaskParams: []string{"filter_width", "filter_height"}})
	if err != nil {
		t.Fatal(err)
	}
	f := sum.Files[0]
	if want := filepath.Join(out, "convolution", "nvidia-rtx-a4000", "import-convolution_milo_A4000.t4.arrow"); f.Path != want {
		t.Errorf("path %s, want %s", f.Path, want)
	}
	if f.Counts[record.StatusOK] != 3 || f.Counts[record.StatusLaunchError] != 1 || f.Counts[record.StatusCompileError] != 1 || f.Violations != 0 {
		t.Errorf("counts %v, %d violations", f.Counts, f.Violations)
	}
	// Medians of the first five runs, from the fixture.
	if f.RefFromMedian || math.Abs(f.RefTimeNs-2.7871360778808594e6) > 1 || math.Abs(f.BestTimeNs-1.001471996307373e6) > 1 {
		t.Errorf("reference %v ns (median %v), best %v ns", f.RefTimeNs, f.RefFromMedian, f.BestTimeNs)
	}
	meta, rows, err := record.ReadFileWith(f.Path, record.ReadOptions{Runs: true})
	if err != nil {
		t.Fatal(err)
	}
	if meta.Source != "import:t4" || len(rows) != 5 || !(rows[0].Task.Key() == features.Task{4096, 4096, 15, 15}.Key()) {
		t.Errorf("source %q, %d rows, task %v", meta.Source, len(rows), rows[0].Task)
	}
	// The fixture's first result, the reference: its five runtimes in ms,
	// kept in order as whole nanoseconds.
	if want := []int64{2866176, 2790336, 2787136, 2785280, 2784256}; !slices.Equal(rows[0].Runs, want) || rows[0].TimeNs != 2787136 {
		t.Errorf("reference row: runs %v, time_ns %v; want %v, 2787136", rows[0].Runs, rows[0].TimeNs, want)
	}
	for _, r := range rows {
		if (r.Status == record.StatusOK) != (len(r.Runs) == 5) {
			t.Errorf("%s row with runs %v, want 5 runs exactly on the ok rows", r.Status, r.Runs)
		}
	}
}

func TestImportErrors(t *testing.T) {
	dir := t.TempDir()
	ok := Options{From: FromT4, Files: []string{t4Path}, Kernel: "k", Out: dir, Device: "d"}
	tests := []struct {
		name string
		edit func(*Options)
		want string
	}{
		{"format", func(o *Options) { o.From = "ktt" }, "From"},
		{"no files", func(o *Options) { o.Files = nil }, "Files"},
		{"kernel path", func(o *Options) { o.Kernel = "../k" }, "Kernel"},
		{"no out", func(o *Options) { o.Out = "" }, "Out"},
		{"t4 without device", func(o *Options) { o.Device = "" }, "Device"},
		{"batch rows", func(o *Options) { o.BatchRows = -1 }, "BatchRows"},
		{"missing input", func(o *Options) { o.Files = []string{filepath.Join(dir, "nope.json")} }, "nope.json"},
		{"missing spec", func(o *Options) { o.Spec = filepath.Join(dir, "nope.T1.json") }, "nope.T1.json"},
		{"task param unknown", func(o *Options) { o.TaskParams = []string{"filter_size"} }, "filter_size"},
		{"task param with values", func(o *Options) { o.TaskParams = []string{"block_size_x"} }, "block_size_x"},
		{"same output twice", func(o *Options) { o.Files = []string{t4Path, t4Path} }, "both"},
		{"wrong format", func(o *Options) { o.From = FromKernelTuner; o.Files = []string{t1Path} }, "tune_params"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opt := ok
			tt.edit(&opt)
			_, err := Import(t.Context(), opt)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one naming %s", err, tt.want)
			}
		})
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("failed imports left %d entries in the output directory", len(entries))
	}
}

// TestImportBrokenDefaults checks that spec defaults that are no valid
// configuration give the nearest valid one as the reference, as augur's
// spec reader takes it, not the first of the space.
func TestImportBrokenDefaults(t *testing.T) {
	for _, tc := range []struct {
		name, defaults, want string
	}{
		{"valid", `"Default": 32}, {"Name": "by", "Values": "[1, 2]", "Default": 1}`, "bx=32,by=1"},
		// 32 // 16 * 2 > 2: bx or by moves one place; bx=16 comes first.
		{"broken condition", `"Default": 32}, {"Name": "by", "Values": "[1, 2]", "Default": 2}`, "bx=16,by=2"},
		{"outside the values", `"Default": 40}, {"Name": "by", "Values": "[1, 2]", "Default": 1}`, "bx=32,by=1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			spec := filepath.Join(dir, "spec.json")
			os.WriteFile(spec, []byte(`{"ConfigurationSpace": {
				"TuningParameters": [{"Name": "bx", "Values": "[16, 32]", `+tc.defaults+`],
				"Conditions": [{"Expression": "bx // 16 * by <= 2"}]}}`), 0o644)
			cache := filepath.Join(dir, "cache.json")
			os.WriteFile(cache, []byte(`{"device_name": "Intel(R) Arc(TM) A770", "problem_size": 1000,
				"tune_params_keys": ["bx", "by"], "tune_params": {"bx": [16, 32], "by": [1, 2]}, "cache": {
				"16,1": {"bx": 16, "by": 1, "time": 4, "times": [4]},
				"16,2": {"bx": 16, "by": 2, "time": 1, "times": [1]},
				"32,1": {"bx": 32, "by": 1, "time": 2, "times": [2]}}}`), 0o644)
			sum, err := Import(t.Context(), Options{From: FromKernelTuner, Files: []string{cache}, Kernel: "k", Spec: spec, Out: dir})
			if err != nil {
				t.Fatal(err)
			}
			if f := sum.Files[0]; f.Reference != tc.want || f.RefFromMedian {
				t.Errorf("reference %s (median %v), want %s measured", f.Reference, f.RefFromMedian, tc.want)
			}
		})
	}
}

// TestImportStringParameter checks a Kernel Tuner cache whose parameter
// takes strings: with a spec, each value numbered by the spec's order
// (whatever the cache's), conditions comparing it with string literals;
// without, by the cache's order. A value the spec lacks is refused.
func TestImportStringParameter(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "spec.json")
	os.WriteFile(spec, []byte(`{"ConfigurationSpace": {
		"TuningParameters": [{"Name": "bx", "Values": "[16, 32]", "Default": 16},
			{"Name": "mode", "Type": "string", "Values": "['fast', 'exact']", "Default": "exact"}],
		"Conditions": [{"Expression": "mode == 'exact' or bx == 32"}]}}`), 0o644)
	cache := func(modes string) string {
		path := filepath.Join(t.TempDir(), "cache.json")
		os.WriteFile(path, []byte(`{"device_name": "NVIDIA A100", "problem_size": 1000,
			"tune_params_keys": ["bx", "mode"], "tune_params": {"bx": [16, 32], "mode": `+modes+`}, "cache": {
			"16,exact": {"bx": 16, "mode": "exact", "time": 4, "times": [4]},
			"16,fast": {"bx": 16, "mode": "fast", "time": 1, "times": [1]},
			"32,fast": {"bx": 32, "mode": "fast", "time": 2, "times": [2]}}}`), 0o644)
		return path
	}
	for _, tc := range []struct {
		name, modes, spec string
		configs           []string // the rows' configurations, as recorded (numbers)
		violations        int
		err               string
	}{
		{"spec order", `["exact", "fast"]`, spec, []string{"bx=16,mode=1", "bx=32,mode=0"}, 1, ""},
		{"no spec: the cache's order", `["exact", "fast"]`, "", []string{"bx=16,mode=0", "bx=16,mode=1", "bx=32,mode=1"}, 0, ""},
		{"a value the spec lacks", `["exact", "fast", "wild"]`, spec, nil, 0, `"wild", which is none of the spec's values`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sum, err := Import(t.Context(), Options{From: FromKernelTuner, Files: []string{cache(tc.modes)}, Kernel: "k", Spec: tc.spec, Out: t.TempDir()})
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one with %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			f := sum.Files[0]
			if f.Violations != tc.violations {
				t.Errorf("%d violations (%s), want %d", f.Violations, f.Violation, tc.violations)
			}
			got := recordedConfigs(t, f.Path)
			if strings.Join(got, " ") != strings.Join(tc.configs, " ") {
				t.Errorf("rows %q, want %q", got, tc.configs)
			}
		})
	}
}

// TestImportFloatParameter checks a cache whose parameter takes numbers
// that are not all integers: each numbered by the spec's order (matched as
// numbers: 1.50 is 1.5), the spec's condition reading their values.
func TestImportFloatParameter(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "spec.json")
	os.WriteFile(spec, []byte(`{"ConfigurationSpace": {
		"TuningParameters": [{"Name": "bx", "Values": "[16, 32]", "Default": 16},
			{"Name": "ratio", "Type": "float", "Values": "[1.5, 0.5]", "Default": 0.5}],
		"Conditions": [{"Expression": "ratio * bx >= 16"}]}}`), 0o644)
	cache := filepath.Join(dir, "cache.json")
	os.WriteFile(cache, []byte(`{"device_name": "NVIDIA A100", "problem_size": 1000,
		"tune_params_keys": ["bx", "ratio"], "tune_params": {"bx": [16, 32], "ratio": [0.5, 1.50]}, "cache": {
		"16,0.5": {"bx": 16, "ratio": 0.5, "time": 4, "times": [4]},
		"16,1.5": {"bx": 16, "ratio": 1.50, "time": 1, "times": [1]},
		"32,0.5": {"bx": 32, "ratio": 0.5, "time": 2, "times": [2]}}}`), 0o644)
	sum, err := Import(t.Context(), Options{From: FromKernelTuner, Files: []string{cache}, Kernel: "k", Spec: spec, Out: filepath.Join(dir, "out")})
	if err != nil {
		t.Fatal(err)
	}
	f := sum.Files[0]
	if f.Violations != 1 || f.Reference != "bx=16,ratio=0" {
		// 16 x 0.5 < 16 breaks the condition; the defaults (16, 0.5) do
		// too, and the nearest valid configuration is (16, 1.5): one
		// move, as (32, 0.5), and first.
		t.Errorf("%d violations (%s), reference %s; want 1, bx=16,ratio=0", f.Violations, f.Violation, f.Reference)
	}
	got := recordedConfigs(t, f.Path)
	if want := "bx=16,ratio=0 bx=32,ratio=1"; strings.Join(got, " ") != want {
		t.Errorf("rows %q, want %s (1.5 numbered 0, 0.5 numbered 1)", got, want)
	}
}

// TestImportT4Choices checks a T4 file with string and float parameters:
// numbered by the spec's order where it has one (a value it lacks
// refused), by the values sorted without.
func TestImportT4Choices(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "spec.json")
	os.WriteFile(spec, []byte(`{"KernelSpecification": {"ProblemSize": [1000]}, "ConfigurationSpace": {
		"TuningParameters": [{"Name": "mode", "Type": "string", "Values": "['fast', 'exact']", "Default": "exact"},
			{"Name": "ratio", "Type": "float", "Values": "[0.5, 1.5]", "Default": 0.5}]}}`), 0o644)
	t4 := func(mode string) string {
		path := filepath.Join(t.TempDir(), "results.json")
		os.WriteFile(path, []byte(`{"results": [
			{"configuration": {"mode": "exact", "ratio": 0.5}, "invalidity": "correct", "times": {"runtimes": [4]}},
			{"configuration": {"mode": "`+mode+`", "ratio": 1.50}, "invalidity": "correct", "times": {"runtimes": [1]}}]}`), 0o644)
		return path
	}
	for _, tc := range []struct {
		name, mode, spec string
		configs          string // the rows' configurations, as recorded (numbers)
		err              string
		numbering        string // what the summary says the numbers stand for
	}{
		{"spec order", "fast", spec, "mode=0,ratio=1 mode=1,ratio=0", "", "mode numbered 0=fast 1=exact; ratio numbered 0=0.5 1=1.5"},
		{"no spec: sorted", "fast", "", "mode=0,ratio=0 mode=1,ratio=1", "", "mode numbered 0=exact 1=fast; ratio numbered 0=0.5 1=1.50"},
		{"a value the spec lacks", "wild", spec, "", `"wild", which is none of the spec's values`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sum, err := Import(t.Context(), Options{From: FromT4, Files: []string{t4(tc.mode)}, Kernel: "k", Spec: tc.spec, Device: "NVIDIA A100", Out: t.TempDir()})
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one with %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := recordedConfigs(t, sum.Files[0].Path)
			if strings.Join(got, " ") != tc.configs {
				t.Errorf("rows %q, want %s", got, tc.configs)
			}
			if line := sum.String(); !strings.HasSuffix(line, tc.numbering) {
				t.Errorf("summary %q, want it to end %q", line, tc.numbering)
			}
		})
	}
}

// recordedConfigs returns the configurations of a dataset file's rows, as
// recorded (numbers), sorted.
func recordedConfigs(t *testing.T, path string) []string {
	t.Helper()
	meta, rows, err := record.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rows {
		got = append(got, features.FormatConfig(meta.Params, r.Config))
	}
	slices.Sort(got)
	return got
}

// specKernel writes a spec that augur's spec reader reads (its kernel
// source beside it), with U's values (a Python list) and the given Augur
// extension, and returns its path.
func specKernel(t *testing.T, dir, uValues, augur string) string {
	t.Helper()
	os.WriteFile(filepath.Join(dir, "scale.cl"), []byte(`__kernel void scale(__global const float* a, __global float* c, int n) {
    int i = get_global_id(0) * U;
    for (int u = 0; u < U; u++) if (i + u < n) c[i + u] = 2.0f * a[i + u];
}`), 0o644)
	spec := filepath.Join(dir, "scale.json")
	os.WriteFile(spec, []byte(`{
  "General": {"BenchmarkName": "scale", "FormatVersion": 1},
  "ConfigurationSpace": {"TuningParameters": [
    {"Name": "WG", "Type": "int", "Values": "[32, 64]", "Default": 64},
    {"Name": "U", "Type": "int", "Values": "`+uValues+`", "Default": 1}]},
  "KernelSpecification": {"Language": "OpenCL", "KernelName": "scale", "KernelFile": "scale.cl",
    "GlobalSizeType": "OpenCL", "GlobalSize": {"X": "ProblemSize[0] / U"}, "LocalSize": {"X": "WG"},
    "ProblemSize": [1000000],
    "Arguments": [
      {"Name": "a", "Type": "float", "Size": "ProblemSize[0]", "MemoryType": "Vector", "AccessType": "ReadOnly", "FillType": "Random", "FillValue": 1.0},
      {"Name": "c", "Type": "float", "Size": "ProblemSize[0]", "MemoryType": "Vector", "AccessType": "WriteOnly", "FillType": "Constant", "FillValue": 0.0, "Output": 1},
      {"Name": "n", "Type": "int32", "MemoryType": "Scalar", "FillValue": "ProblemSize[0]"}]}`+augur+`}`), 0o644)
	return spec
}

// scaleCache is a Kernel Tuner cache of specKernel's kernel.
const scaleCache = `{"device_name": "NVIDIA RTX A4000", "problem_size": [1000000],
"tune_params_keys": ["WG", "U"], "tune_params": {"WG": [32, 64], "U": [1, 2]}, "cache": {
"32,1": {"WG": 32, "U": 1, "time": 1.5, "times": [1.5]},
"64,1": {"WG": 64, "U": 1, "time": 1.2, "times": [1.2]},
"32,2": {"WG": 32, "U": 2, "time": 1.4, "times": [1.4]},
"64,2": {"WG": 64, "U": 2, "time": 1.0, "times": [1.0]}}}`

// TestImportSpecNames imports a cache with a spec that augur reads as a
// kernel: the rows take the spec's problem-size names and its kernel
// version, so that train --spec reads them.
func TestImportSpecNames(t *testing.T) {
	for _, tc := range []struct {
		name, uValues, augur string
		taskParams           []string
		tasks                string
		specVersion          bool
		warning              string
	}{
		{"named", "[1, 2]", `, "Augur": {"ProblemSizeNames": ["n"]}`, nil, "n", true, ""},
		{"unnamed", "[1, 2]", ``, nil, "problem_size_0", true, ""},
		{"task parameter", "[1]", ``, []string{"U"}, "problem_size_0,U", false,
			"(task features problem_size_0,U here, problem_size_0 in the spec): train and eval read them with --kernel scale"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			spec := specKernel(t, dir, tc.uValues, tc.augur)
			cache := filepath.Join(dir, "cache.json")
			os.WriteFile(cache, []byte(scaleCache), 0o644)
			sum, err := Import(t.Context(), Options{From: FromKernelTuner, Files: []string{cache}, Kernel: "scale", Spec: spec,
				Out: filepath.Join(dir, "out"), TaskParams: tc.taskParams})
			if err != nil {
				t.Fatal(err)
			}
			meta, _, err := record.ReadFile(sum.Files[0].Path)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(meta.TaskNames, ","); got != tc.tasks {
				t.Errorf("task names %s, want %s", got, tc.tasks)
			}
			k, err := datasets.ReadSpec(spec)
			if err != nil {
				t.Fatal(err)
			}
			if got := meta.KernelVersion == k.Version(); got != tc.specVersion {
				t.Errorf("kernel version %s, the spec's %s: equal %v, want %v", meta.KernelVersion, k.Version(), got, tc.specVersion)
			}
			if w := sum.Files[0].Warning; !strings.Contains(w, tc.warning) || (tc.warning == "") != (w == "") {
				t.Errorf("warning %q, want %q", w, tc.warning)
			}
		})
	}
}

// TestImportShape gives the inputs' problem size with Shape: for T4 files,
// which name none, and for a cache, which must agree with it.
func TestImportShape(t *testing.T) {
	dir := t.TempDir()
	named := filepath.Join(dir, "named.json")
	os.WriteFile(named, []byte(`{"KernelSpecification": {"ProblemSize": [1000]}, "Augur": {"ProblemSizeNames": ["n"]},
		"ConfigurationSpace": {"TuningParameters": [{"Name": "bx", "Values": "[16, 32]", "Default": 16}]}}`), 0o644)
	unnamed := filepath.Join(dir, "unnamed.json")
	os.WriteFile(unnamed, []byte(`{"KernelSpecification": {"ProblemSize": [1000, 8]},
		"ConfigurationSpace": {"TuningParameters": [{"Name": "bx", "Values": "[16, 32]", "Default": 16}]}}`), 0o644)
	t4 := filepath.Join(dir, "a.json")
	os.WriteFile(t4, []byte(`{"schema_version": "1.0.0", "results": [
		{"configuration": {"bx": 16}, "invalidity": "correct", "times": {"runtimes": [4]}},
		{"configuration": {"bx": 32}, "invalidity": "correct", "times": {"runtimes": [2]}}]}`), 0o644)
	cache := filepath.Join(dir, "cache.json")
	os.WriteFile(cache, []byte(`{"device_name": "NVIDIA A100", "problem_size": [1000, 8],
		"tune_params_keys": ["bx"], "tune_params": {"bx": [16, 32]}, "cache": {
		"16": {"bx": 16, "time": 4, "times": [4]}}}`), 0o644)
	for _, tc := range []struct {
		name, from, in, spec, shape string
		tasks, shapeText, shapeFrom string
		err                         string
	}{
		{"t4, the spec's names", FromT4, t4, named, "n=4096", "n", "n=4096", ShapeFromGiven, ""},
		{"t4, problem_size_0 for the spec's name", FromT4, t4, named, "problem_size_0=4096", "n", "n=4096", ShapeFromGiven, ""},
		{"t4, the spec's default", FromT4, t4, named, "", "n", "n=1000", ShapeFromSpec, ""},
		{"t4, no spec: the shape's names", FromT4, t4, "", "rows=64,cols=128", "rows,cols", "rows=64,cols=128", ShapeFromGiven, ""},
		{"t4, no spec, no shape", FromT4, t4, "", "", "", "", "", ""},
		{"t4, a spec without names: the shape's", FromT4, t4, unnamed, "x=64,y=2", "x,y", "x=64,y=2", ShapeFromGiven, ""},
		{"t4, a spec without names: its default", FromT4, t4, unnamed, "", "width,height", "width=1000,height=8", ShapeFromSpec, ""},
		{"t4, fewer sizes than the spec's", FromT4, t4, unnamed, "x=64", "", "", "", "gives 1 sizes, and the spec's ProblemSize [1000 8] has 2"},
		{"t4, a name the spec lacks", FromT4, t4, named, "m=4096", "", "", "", `lacks n and names "m"`},
		{"t4, not a size", FromT4, t4, named, "n=0", "", "", "", "n=0, want a positive size"},
		{"t4, not name=integer", FromT4, t4, "", "rows=x", "", "", "", `field 1 "rows=x" is not name=integer`},
		{"t4, a name twice", FromT4, t4, "", "a=1,a=2", "", "", "", `"a" twice`},
		{"cache agrees", FromKernelTuner, cache, "", "x=1000,y=8", "x,y", "x=1000,y=8", ShapeFromFile, ""},
		{"cache disagrees", FromKernelTuner, cache, "", "x=1000,y=9", "", "", "", "the file's problem size is [1000 8], and Shape (--shape) gives x=1000,y=9"},
		{"cache's own", FromKernelTuner, cache, "", "", "width,height", "width=1000,height=8", ShapeFromFile, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sum, err := Import(t.Context(), Options{From: tc.from, Files: []string{tc.in}, Kernel: "k", Spec: tc.spec, Shape: tc.shape,
				Device: "NVIDIA A100", Out: t.TempDir()})
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one with %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			f := sum.Files[0]
			if f.Shape != tc.shapeText || f.ShapeFrom != tc.shapeFrom {
				t.Errorf("shape %q from %q, want %q from %q", f.Shape, f.ShapeFrom, tc.shapeText, tc.shapeFrom)
			}
			meta, _, err := record.ReadFile(f.Path)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(meta.TaskNames, ","); got != tc.tasks {
				t.Errorf("task names %q, want %q", got, tc.tasks)
			}
			if want := "no shape"; f.Shape != "" {
				want = "shape " + f.Shape
				if !strings.Contains(f.String(), want) {
					t.Errorf("summary %q lacks %q", f.String(), want)
				}
			}
		})
	}
}

// TestImportShapeOverlap warns of two T4 files of one run, one device and
// one shape that give the same configurations, and keeps apart two runs
// of two shapes.
func TestImportShapeOverlap(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "spec.json")
	os.WriteFile(spec, []byte(`{"KernelSpecification": {"ProblemSize": [1000]}, "Augur": {"ProblemSizeNames": ["n"]},
		"ConfigurationSpace": {"TuningParameters": [{"Name": "bx", "Values": "[16, 32, 64]", "Default": 16}]}}`), 0o644)
	write := func(name, configs string) string {
		path := filepath.Join(dir, name)
		var results []string
		for _, bx := range strings.Split(configs, ",") {
			results = append(results, `{"configuration": {"bx": `+bx+`}, "invalidity": "correct", "times": {"runtimes": [2]}}`)
		}
		os.WriteFile(path, []byte(`{"results": [`+strings.Join(results, ",")+`]}`), 0o644)
		return path
	}
	small, large, apart := write("small.json", "16,32"), write("large.json", "16,32,64"), write("apart.json", "64")
	opt := Options{From: FromT4, Kernel: "k", Spec: spec, Device: "NVIDIA A100"}

	opt.Files, opt.Out = []string{small, large, apart}, filepath.Join(dir, "one-run")
	sum, err := Import(t.Context(), opt)
	if err != nil {
		t.Fatal(err)
	}
	if w := sum.Files[0].Warning; w != "" {
		t.Errorf("first file warned %q", w)
	}
	if w, want := sum.Files[1].Warning, "same device and shape (n=1000) as "+small+", and 2 configurations in both"; !strings.Contains(w, want) {
		t.Errorf("second file's warning %q, want %q", w, want)
	}
	if w, want := sum.Files[2].Warning, "same device and shape (n=1000) as "+large+", and 1 configurations in both"; !strings.Contains(w, want) {
		t.Errorf("third file's warning %q, want %q", w, want)
	}

	// An import each, with its shape: both shapes train.
	out := filepath.Join(dir, "two-runs")
	for _, run := range []struct{ in, shape string }{{small, "n=1024"}, {large, "n=4096"}} {
		opt.Files, opt.Out, opt.Shape = []string{run.in}, out, run.shape
		sum, err := Import(t.Context(), opt)
		if err != nil {
			t.Fatal(err)
		}
		if w := sum.Files[0].Warning; w != "" {
			t.Errorf("%s warned %q", run.in, w)
		}
	}
	d, err := train.Load(out, "k")
	if err != nil {
		t.Fatal(err)
	}
	if d.Len() != 5 {
		t.Errorf("train.Load: %d rows, want 5 of two shapes", d.Len())
	}
}

// TestImportUnrecognized imports a cache whose results Kernel Tuner does
// not define as failed rows, counted in the summary, rather than refuse it.
func TestImportUnrecognized(t *testing.T) {
	dir := t.TempDir()
	cache := filepath.Join(dir, "cache.json")
	os.WriteFile(cache, []byte(`{"device_name": "NVIDIA A100", "problem_size": 1000,
		"tune_params_keys": ["bx"], "tune_params": {"bx": [16, 32, 64, 128]}, "cache": {
		"16": {"bx": 16, "time": "5.9"},
		"32": {"bx": 32, "time": "CUDA error: out of resources"},
		"64": {"bx": 64, "time": 0},
		"128": {"bx": 128, "time": 2, "times": [2]}}}`), 0o644)
	sum, err := Import(t.Context(), Options{From: FromKernelTuner, Files: []string{cache}, Kernel: "k", Out: filepath.Join(dir, "out")})
	if err != nil {
		t.Fatal(err)
	}
	f := sum.Files[0]
	want := map[record.Status]int{record.StatusOK: 2, record.StatusResourceLimit: 1, record.StatusLaunchError: 1}
	if !maps.Equal(f.Counts, want) || f.Unrecognized != 2 {
		t.Errorf("counts %v, %d unrecognized; want %v, 2", f.Counts, f.Unrecognized, want)
	}
	if line, want := f.String(), `2 failed rows of results the format does not define (first: "CUDA error: out of resources", taken for resource_limit)`; !strings.Contains(line, want) {
		t.Errorf("summary %q lacks %q", line, want)
	}
	_, rows, err := record.ReadFile(f.Path)
	if err != nil {
		t.Fatal(err)
	}
	if r := rows[1]; r.Status != record.StatusResourceLimit || r.Error != "CUDA error: out of resources" {
		t.Errorf("row %+v, want resource_limit with the tuner's text", r)
	}
	if r := rows[0]; r.Status != record.StatusOK || r.TimeNs != 5.9e6 {
		t.Errorf("row %+v, want ok in 5.9 ms", r)
	}
}

// TestImportNoResults refuses an input without results in the same words
// for both formats, and writes nothing.
func TestImportNoResults(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "spec.json")
	os.WriteFile(spec, []byte(`{"KernelSpecification": {"ProblemSize": [1000]},
		"ConfigurationSpace": {"TuningParameters": [{"Name": "bx", "Values": "[16, 32]", "Default": 16}]}}`), 0o644)
	cache := filepath.Join(dir, "cache.json")
	os.WriteFile(cache, []byte(`{"device_name": "NVIDIA A100", "problem_size": 1000,
		"tune_params_keys": ["bx"], "tune_params": {"bx": [16, 32]}, "cache": {}}`), 0o644)
	t4 := filepath.Join(dir, "t4.json")
	os.WriteFile(t4, []byte(`{"schema_version": "1.0.0", "results": []}`), 0o644)
	for _, tc := range []struct {
		name, from, in, spec string
	}{
		{"cache", FromKernelTuner, cache, ""},
		{"cache with a spec", FromKernelTuner, cache, spec},
		{"t4", FromT4, t4, ""},
		{"t4 with a spec", FromT4, t4, spec},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			_, err := Import(t.Context(), Options{From: tc.from, Files: []string{tc.in}, Kernel: "k", Spec: tc.spec, Device: "NVIDIA A100", Out: out})
			if want := "importer: no results in " + tc.in + "; nothing written"; err == nil || err.Error() != want || !errors.Is(err, ErrNoResults) {
				t.Errorf("error %v, want %q", err, want)
			}
			if _, err := os.Stat(out); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("the import made %s", out)
			}
		})
	}
}

// TestImportInputLimit refuses an input over MaxInputBytes, decompressed,
// naming the limit and how to raise it, not as malformed input.
func TestImportInputLimit(t *testing.T) {
	dir := t.TempDir()
	cache := filepath.Join(dir, "cache.json.gz")
	os.WriteFile(cache, gzipped(t, cacheHead+"}}"), 0o644)
	for _, tc := range []struct {
		name, from, in string
		limit          int64
		want           string
	}{
		{"cache", FromKernelTuner, cache, 200, "the input is over 200 bytes decompressed, the limit on one file; raise it with MaxInputBytes (--max-input-gib)"},
		{"t4", FromT4, t4Path, 1 << 10, "the input is over 1 KiB"},
		{"t4 in MiB", FromT4, t4Path, 1 << 20, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Import(t.Context(), Options{From: tc.from, Files: []string{tc.in}, Kernel: "k", Device: "NVIDIA A100",
				Out: filepath.Join(t.TempDir(), "out"), MaxInputBytes: tc.limit})
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, features.ErrLimit) || errors.Is(err, ErrFormat) {
				t.Errorf("error %v, want an ErrLimit naming %q", err, tc.want)
			}
		})
	}
}

// TestImportDuplicates counts the rows that repeat a configuration of the
// same input, in both formats, and says so in the summary.
func TestImportDuplicates(t *testing.T) {
	dir := t.TempDir()
	t4 := filepath.Join(dir, "t4.json")
	os.WriteFile(t4, []byte(`{"results": [
		{"configuration": {"bx": 32}, "invalidity": "correct", "times": {"runtimes": [2]}},
		{"configuration": {"bx": 16}, "invalidity": "correct", "times": {"runtimes": [4]}},
		{"configuration": {"bx": 32}, "invalidity": "correct", "times": {"runtimes": [3]}},
		{"configuration": {"bx": 16}, "invalidity": "compile"},
		{"configuration": {"bx": 64}, "invalidity": "correct", "times": {"runtimes": [1]}}]}`), 0o644)
	cache := filepath.Join(dir, "cache.json")
	os.WriteFile(cache, []byte(`{"device_name": "NVIDIA A100", "problem_size": 1000,
		"tune_params_keys": ["bx"], "tune_params": {"bx": [16, 32]}, "cache": {
		"16": {"bx": 16, "time": 4, "times": [4]},
		"32": {"bx": 32, "time": 2, "times": [2]},
		"32.0": {"bx": 32, "time": 3, "times": [3]}}}`), 0o644)
	for _, tc := range []struct {
		name, from, in string
		dups           int
		dup            string
	}{
		{"t4", FromT4, t4, 2, "bx=16"},
		{"cache", FromKernelTuner, cache, 1, "bx=32"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sum, err := Import(t.Context(), Options{From: tc.from, Files: []string{tc.in}, Kernel: "k", Device: "NVIDIA A100", Out: filepath.Join(t.TempDir(), "out")})
			if err != nil {
				t.Fatal(err)
			}
			f := sum.Files[0]
			if f.Duplicates != tc.dups || f.Duplicate != tc.dup {
				t.Errorf("%d duplicates, such as %q; want %d, %q", f.Duplicates, f.Duplicate, tc.dups, tc.dup)
			}
			if want := fmt.Sprintf("%d rows repeat a configuration of an earlier row (such as %s)", tc.dups, tc.dup); !strings.Contains(f.String(), want) {
				t.Errorf("summary %q lacks %q", f.String(), want)
			}
			js, _ := json.Marshal(f)
			if want := fmt.Sprintf(`"duplicates":%d`, tc.dups); !strings.Contains(string(js), want) {
				t.Errorf("JSON %s lacks %s", js, want)
			}
		})
	}
}
