package importer

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/augur-tuning/augur/collect/record"
	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/features"
)

// fleetFixture writes a spec with three parameters and a Kernel Tuner
// cache that measured only bx and by (bz held at 2), naming device.
func fleetFixture(t *testing.T, device string) (dir, spec, cache string) {
	t.Helper()
	dir = t.TempDir()
	spec = filepath.Join(dir, "spec.json")
	os.WriteFile(spec, []byte(`{"ConfigurationSpace": {
		"TuningParameters": [{"Name": "bx", "Values": "[16, 32]", "Default": 16}, {"Name": "by", "Values": "[1, 2]", "Default": 1},
		{"Name": "bz", "Values": "[1, 2]", "Default": 2}]}}`), 0o644)
	cache = filepath.Join(dir, "cache.json")
	os.WriteFile(cache, []byte(`{"device_name": "`+device+`", "problem_size": 1000,
		"tune_params_keys": ["bx", "by"], "tune_params": {"bx": [16, 32], "by": [1, 2]}, "cache": {
		"16,1": {"bx": 16, "by": 1, "time": 4, "times": [4]},
		"16,2": {"bx": 16, "by": 2, "time": 1, "times": [1]},
		"32,1": {"bx": 32, "by": 1, "time": 2, "times": [2]}}}`), 0o644)
	return dir, spec, cache
}

// TestImportSetAndPlatforms imports a cache that lacks a spec parameter,
// fixed with Set, on a device of the shipped table: the rows carry the
// fixed value and the metadata the table's features.
func TestImportSetAndPlatforms(t *testing.T) {
	dir, spec, cache := fleetFixture(t, "nvidia rtx a4000")
	sum, err := Import(t.Context(), Options{From: FromKernelTuner, Files: []string{cache}, Kernel: "k", Spec: spec, Out: dir,
		Set: map[string]int{"bz": 2}, Platforms: datasets.Devices()})
	if err != nil {
		t.Fatal(err)
	}
	meta, rows, err := record.ReadFile(sum.Files[0].Path)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := datasets.Devices().Lookup("NVIDIA RTX A4000")
	if meta.Platform != want || meta.Platform.ComputeUnits != 48 {
		t.Errorf("platform %+v, want the table's %+v", meta.Platform, want)
	}
	if len(rows) != 3 || !rows[1].Config.Equal(features.Config{16, 2, 2}) || len(meta.Params) != 3 {
		t.Errorf("rows %+v, params %v; want 3 rows with bz=2", rows, meta.Params)
	}
	if !meta.Reference.Equal(features.Config{16, 1, 2}) || sum.Files[0].RefFromMedian {
		t.Errorf("reference %v, want the spec's default 16,1,2 measured", meta.Reference)
	}
}

func TestImportFleetErrors(t *testing.T) {
	for _, tc := range []struct {
		name, device string
		edit         func(*Options)
		want         string
	}{
		{"missing parameter", "NVIDIA RTX A4000", func(o *Options) { o.Set = nil }, "lacks parameter bz; fix its value with Set (--set bz=VALUE)"},
		{"set value outside", "NVIDIA RTX A4000", func(o *Options) { o.Set = map[string]int{"bz": 3} }, "bz=3, which is not one of its values [1 2]"},
		{"set a file parameter", "NVIDIA RTX A4000", func(o *Options) { o.Set["bx"] = 16 }, "Set (--set) fixes bx, which the file has"},
		{"set unknown", "NVIDIA RTX A4000", func(o *Options) { o.Set["bq"] = 1 }, "bq, which is not a parameter"},
		{"set without spec", "NVIDIA RTX A4000", func(o *Options) { o.Spec = "" }, "Set needs Spec"},
		{"no device name", "", func(*Options) {}, "names no device; give its name with Device (--device)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, spec, cache := fleetFixture(t, tc.device)
			opt := Options{From: FromKernelTuner, Files: []string{cache}, Kernel: "k", Spec: spec, Out: dir,
				Set: map[string]int{"bz": 2}, Platforms: datasets.Devices()}
			tc.edit(&opt)
			_, err := Import(t.Context(), opt)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one containing %q", err, tc.want)
			}
			if _, err := os.Stat(filepath.Join(dir, "k")); err == nil {
				t.Errorf("a refused import wrote %s", filepath.Join(dir, "k"))
			}
		})
	}
}

// TestImportUnknownDevice imports the rows of a device the table lacks
// with unknown platform features (only its name and vendor) and a
// warning, instead of failing (issue 25).
func TestImportUnknownDevice(t *testing.T) {
	dir, spec, cache := fleetFixture(t, "GeForce GTX 680")
	opt := Options{From: FromKernelTuner, Files: []string{cache}, Kernel: "k", Spec: spec, Out: dir,
		Set: map[string]int{"bz": 2}, Platforms: datasets.Devices()}
	sum, err := Import(t.Context(), opt)
	if err != nil {
		t.Fatal(err)
	}
	f := sum.Files[0]
	if want := `device "GeForce GTX 680" is not in the device table: imported with unknown platform features`; !strings.Contains(f.Warning, want) || strings.Contains(f.Warning, "\n") {
		t.Errorf("Warning = %q, want one line containing %q", f.Warning, want)
	}
	if strings.Contains(sum.String(), "GeForce GTX 680\" is not") {
		t.Errorf("summary %q repeats the warning, which the caller prints apart", sum.String())
	}
	if got, want := f.Platform, PlatformOf("GeForce GTX 680"); !reflect.DeepEqual(got, want) {
		t.Errorf("platform %+v, want %+v", got, want)
	}
	if f.Rows() == 0 {
		t.Errorf("no rows imported")
	}
}

// TestPlatformOf guesses a device's vendor and type from its name, and
// leaves the type unknown rather than guess a CPU to be a GPU.
func TestPlatformOf(t *testing.T) {
	tests := []struct{ name, vendor, typ string }{
		{"GeForce GTX 680", "NVIDIA", "gpu"},
		{"NVIDIA RTX A4000", "NVIDIA", "gpu"},
		{"AMD Radeon PRO W6600", "AMD", "gpu"},
		{"gfx90a:sramecc+:xnack-", "", "gpu"},
		{"Intel(R) UHD Graphics 770", "Intel", "gpu"},
		{"Intel(R) Arc(TM) A770 Graphics", "Intel", "gpu"},
		{"Intel(R) Xeon(R) Gold 6248 CPU @ 2.50GHz", "Intel", "cpu"},
		{"Intel(R) Core(TM) i7-1185G7 @ 3.00GHz", "Intel", "cpu"},
		{"AMD EPYC 7B13", "AMD", "cpu"},
		{"AMD Ryzen 9 7950X 16-Core Processor", "AMD", "cpu"},
		{"pthread-skylake-avx512-AMD EPYC", "AMD", "cpu"},
		{"cpu-haswell-Intel(R) Xeon(R) CPU E5-2680 v3", "Intel", "cpu"},
		{"Apple M2", "", ""},
		{"Lab accelerator 7", "", ""},
	}
	for _, tt := range tests {
		p := PlatformOf(tt.name)
		if p.Name != tt.name || p.Vendor != tt.vendor || p.Type != tt.typ {
			t.Errorf("PlatformOf(%q) = name %q, vendor %q, type %q; want vendor %q, type %q", tt.name, p.Name, p.Vendor, p.Type, tt.vendor, tt.typ)
		}
	}
}

// TestImportUnknownCPU says in its warning what type a device the table
// lacks was taken for.
func TestImportUnknownCPU(t *testing.T) {
	for _, tc := range []struct{ device, typ, note string }{
		{"AMD EPYC 9654 96-Core Processor", "cpu", "type cpu, guessed from the name"},
		{"Lab accelerator 7", "", "type unknown"},
	} {
		dir, spec, cache := fleetFixture(t, tc.device)
		sum, err := Import(t.Context(), Options{From: FromKernelTuner, Files: []string{cache}, Kernel: "k", Spec: spec, Out: dir,
			Set: map[string]int{"bz": 2}, Platforms: datasets.Devices()})
		if err != nil {
			t.Fatal(err)
		}
		f := sum.Files[0]
		if f.Platform.Type != tc.typ || !strings.Contains(f.Warning, tc.note) {
			t.Errorf("%s: type %q, warning %q; want %q and a warning saying %q", tc.device, f.Platform.Type, f.Warning, tc.typ, tc.note)
		}
	}
}

// TestImportOtherVersion refuses data of another kernel version in the
// directory the import writes to, before writing anything.
func TestImportOtherVersion(t *testing.T) {
	dir, spec, cache := fleetFixture(t, "NVIDIA RTX A4000")
	opt := Options{From: FromKernelTuner, Files: []string{cache}, Kernel: "k", Spec: spec, Out: dir,
		Set: map[string]int{"bz": 2}, Platforms: datasets.Devices()}
	if _, err := Import(t.Context(), opt); err != nil {
		t.Fatal(err)
	}
	// The same measurements on another device, with bz a task parameter:
	// another space, so another version.
	os.WriteFile(spec, []byte(`{"ConfigurationSpace": {
		"TuningParameters": [{"Name": "bx", "Values": "[16, 32]", "Default": 16}, {"Name": "by", "Values": "[1, 2]", "Default": 1},
		{"Name": "bz", "Values": "[2]", "Default": 2}]}}`), 0o644)
	opt.Device, opt.TaskParams = "AMD Radeon PRO W6600", []string{"bz"}
	_, err := Import(t.Context(), opt)
	if err == nil || !strings.Contains(err.Error(), "holds kernel version") {
		t.Fatalf("err = %v, want a refusal naming the other kernel version", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "k", "amd-radeon-pro-w6600")); err == nil {
		t.Errorf("the refused import wrote its device's directory")
	}
	// The same version on another device is welcome.
	opt.TaskParams = nil
	os.WriteFile(spec, []byte(`{"ConfigurationSpace": {
		"TuningParameters": [{"Name": "bx", "Values": "[16, 32]", "Default": 16}, {"Name": "by", "Values": "[1, 2]", "Default": 1},
		{"Name": "bz", "Values": "[1, 2]", "Default": 2}]}}`), 0o644)
	if _, err := Import(t.Context(), opt); err != nil {
		t.Errorf("same version, another device: %v", err)
	}
}

// An import with a spec that augur's spec reader reads whole (its kernel
// file beside it) records the spec kernel's version, so that train and
// eval --spec read the rows. The cache's times are made up: plumbing only.
func TestImportSpecKernelVersion(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "vadd.json")
	os.WriteFile(filepath.Join(dir, "vadd.cl"), []byte(`__kernel void vadd(__global float *c, __global const float *a, int n) {
	int i = get_global_id(0) * tile;
	for (int t = 0; t < tile; t++) if (i + t < n) c[i + t] = 2.0f * a[i + t];
}`), 0o644)
	os.WriteFile(spec, []byte(`{"ConfigurationSpace": {"TuningParameters": [
		{"Name": "block_size_x", "Values": "[32, 64]", "Default": 32}, {"Name": "tile", "Values": "[1, 2]", "Default": 1}]},
	"KernelSpecification": {"Language": "OpenCL", "KernelName": "vadd", "KernelFile": "vadd.cl",
		"GlobalSize": {"X": "ProblemSize[0]"}, "LocalSize": {"X": "block_size_x"}, "GridDivX": ["block_size_x", "tile"],
		"ProblemSize": [4096], "Arguments": [
		{"Name": "c", "Type": "float", "Size": "ProblemSize[0]", "MemoryType": "Vector", "Output": 1},
		{"Name": "a", "Type": "float", "Size": "ProblemSize[0]", "MemoryType": "Vector", "FillType": "Random"},
		{"Name": "n", "Type": "int32", "MemoryType": "Scalar", "FillValue": "ProblemSize[0]"}]}}`), 0o644)
	cache := filepath.Join(dir, "cache.json")
	os.WriteFile(cache, []byte(`{"device_name": "NVIDIA RTX A4000", "problem_size": [4096],
		"tune_params_keys": ["block_size_x", "tile"], "tune_params": {"block_size_x": [32, 64], "tile": [1, 2]}, "cache": {
		"32,1": {"block_size_x": 32, "tile": 1, "time": 4, "times": [4]},
		"64,1": {"block_size_x": 64, "tile": 1, "time": 2, "times": [2]},
		"64,2": {"block_size_x": 64, "tile": 2, "time": 3, "times": [3]}}}`), 0o644)
	k, err := datasets.ReadSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := Import(t.Context(), Options{From: FromKernelTuner, Files: []string{cache}, Kernel: k.Name, Spec: spec, Out: filepath.Join(dir, "out")})
	if err != nil {
		t.Fatal(err)
	}
	meta, _, err := record.ReadFile(sum.Files[0].Path)
	if err != nil {
		t.Fatal(err)
	}
	if meta.KernelVersion != k.Version() {
		t.Errorf("imported kernel version %s, want the spec kernel's %s", meta.KernelVersion, k.Version())
	}
}
