package datasets_test

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/features"
)

// specFile writes examples/transpose's spec, changed by edit (applied to
// its decoded JSON), and its kernel into a temporary directory, and
// returns the spec's path.
func specFile(t testing.TB, edit func(m map[string]any)) string {
	t.Helper()
	raw, err := os.ReadFile("../examples/transpose/transpose.json")
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(m)
	}
	out, _ := json.Marshal(m)
	dir := t.TempDir()
	src, err := os.ReadFile("../examples/transpose/transpose.cl")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "transpose.cl"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "transpose.json")
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func kernelSpec(m map[string]any) map[string]any { return m["KernelSpecification"].(map[string]any) }

func arg(m map[string]any, i int) map[string]any {
	return kernelSpec(m)["Arguments"].([]any)[i].(map[string]any)
}

func TestReadSpec(t *testing.T) {
	k, err := datasets.ReadSpec(specFile(t, nil))
	if err != nil {
		t.Fatal(err)
	}
	if k.Name != "transpose" || k.Entry != "transpose" || !k.FromSpec() {
		t.Errorf("name %q entry %q from spec %v", k.Name, k.Entry, k.FromSpec())
	}
	if got := strings.Join(k.TaskNames, ","); got != "width,height" {
		t.Errorf("task names %s, want width,height", got)
	}
	if got := k.Space.Format(k.Reference); got != "TILE_X=16,TILE_Y=16,WPT=1,USE_LOCAL=0,PAD=0" {
		t.Errorf("reference %s", got)
	}
	if len(k.Tasks) != 3 || k.Tasks[0].Key() != (features.Task{2048, 2048}).Key() {
		t.Errorf("tasks %v, want ProblemSize first and the two Augur.Shapes", k.Tasks)
	}
	tests := []struct {
		shape, config string
		dims          int
		global, local [3]int
		localMem      int
		options       string
	}{
		{"width=100,height=50", "TILE_X=16,TILE_Y=16,WPT=1,USE_LOCAL=0,PAD=0", 2, [3]int{112, 64}, [3]int{16, 16}, 0,
			"-cl-mad-enable -DTILE_X=16 -DTILE_Y=16 -DWPT=1 -DUSE_LOCAL=0 -DPAD=0"},
		// GridDivY divides the height by TILE_Y * WPT: 4 groups of 8 rows.
		{"width=100,height=50", "TILE_X=32,TILE_Y=2,WPT=8,USE_LOCAL=1,PAD=1", 2, [3]int{128, 8}, [3]int{32, 2}, 2 * 8 * 33 * 4,
			"-cl-mad-enable -DTILE_X=32 -DTILE_Y=2 -DWPT=8 -DUSE_LOCAL=1 -DPAD=1"},
	}
	for _, tc := range tests {
		shape, err := features.ParseTask(k.TaskNames, tc.shape)
		if err != nil {
			t.Fatal(err)
		}
		c, err := k.Space.Parse(tc.config)
		if err != nil {
			t.Fatal(err)
		}
		l, err := k.Geometry(shape, c)
		if err != nil {
			t.Fatal(err)
		}
		if l.Dims != tc.dims || l.Global != tc.global || l.Local != tc.local || l.LocalMemBytes != tc.localMem {
			t.Errorf("%s %s: launch %+v, want dims %d global %v local %v local memory %d", tc.shape, tc.config, l, tc.dims, tc.global, tc.local, tc.localMem)
		}
		if got := k.Options(shape, c); got != tc.options {
			t.Errorf("%s: options %q, want %q", tc.config, got, tc.options)
		}
	}
	args := k.Args(features.Task{30, 20}, rand.New(rand.NewPCG(1, 2)))
	if len(args) != 4 || args[0].Kind != datasets.Buffer || len(args[0].Bytes) != 30*20*4 || !args[1].Output || args[2].Kind != datasets.Scalar {
		t.Fatalf("args %+v", args)
	}
	if w := args[2].Elem.At(args[2].Bytes, 0); w != 30 {
		t.Errorf("width argument %g, want 30", w)
	}
}

// TestReadSpecPython reads a spec written as the benchmark hub's T1 files
// are: values as Python list expressions, which Kernel Tuner evaluates,
// and a condition that takes the remainder of a true division, as Kernel
// Tuner's CLBlast GEMM spaces do. The space must be the one Python means.
func TestReadSpecPython(t *testing.T) {
	k, err := datasets.ReadSpec(specFile(t, func(m map[string]any) {
		cs := m["ConfigurationSpace"].(map[string]any)
		ps := cs["TuningParameters"].([]any)
		ps[0].(map[string]any)["Values"] = "[2**i for i in range(3, 7)]"                      // TILE_X: 8..64
		ps[1].(map[string]any)["Values"] = "[1, 2] + list(range(4, 32+1, 4))"                 // TILE_Y
		ps[2].(map[string]any)["Values"] = "[w for w in range(1, 9) if w % 2 == 0 or w == 1]" // WPT: 1, 2, 4, 6, 8
		cs["Conditions"] = append(cs["Conditions"].([]any), map[string]any{"Expression": "TILE_X % ((TILE_Y * WPT) / 2) == 0"})
	}))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]int{"TILE_X": {8, 16, 32, 64}, "TILE_Y": {1, 2, 4, 8, 12, 16, 20, 24, 28, 32}, "WPT": {1, 2, 4, 6, 8}}
	for name, vals := range want {
		if got := k.Space.Params[k.Space.Param(name)].Values; !reflect.DeepEqual(got, vals) {
			t.Errorf("%s values %v, want %v", name, got, vals)
		}
	}
	// Python's reading of every condition, the new one's remainder of a float.
	n := 0
	for _, x := range want["TILE_X"] {
		for _, y := range want["TILE_Y"] {
			for _, w := range want["WPT"] {
				for _, local := range []int{0, 1} {
					for _, pad := range []int{0, 1} {
						d := float64(y*w) / 2
						r := float64(x) - d*math.Floor(float64(x)/d)
						if x*y <= 1024 && (local == 1 || pad == 0) && y*w <= 64 && r == 0 {
							n++
						}
					}
				}
			}
		}
	}
	if got := k.Space.Len(); got != n || n == 0 {
		t.Errorf("%d valid configurations, want %d as Python counts them", got, n)
	}
}

// TestReadSpecBrokenDefaults checks that Defaults that break a condition
// give the nearest valid reference and a warning naming the change.
func TestReadSpecBrokenDefaults(t *testing.T) {
	tests := []struct {
		name     string
		defaults map[int]int // parameter index -> Default
		want     string      // the reference
		warning  string      // in the last warning; "" for none
	}{
		{"valid", nil, "TILE_X=16,TILE_Y=16,WPT=1,USE_LOCAL=0,PAD=0", ""},
		{"one broken", map[int]int{4: 1}, "TILE_X=16,TILE_Y=16,WPT=1,USE_LOCAL=0,PAD=0", "condition USE_LOCAL == 1 or PAD == 0; the reference every configuration is verified against and timed beside is the nearest valid configuration: PAD 1 -> 0"},
		{"two broken", map[int]int{0: 64, 1: 32, 4: 1}, "TILE_X=32,TILE_Y=32,WPT=1,USE_LOCAL=0,PAD=0", "condition TILE_X * TILE_Y <= 1024; the reference every configuration is verified against and timed beside is the nearest valid configuration: TILE_X 64 -> 32, PAD 1 -> 0"},
		// Not among the values (the hub's hotspot has such a Default): the
		// nearest value, the smaller of two; then the conditions.
		{"outside its values", map[int]int{2: 3}, "TILE_X=16,TILE_Y=16,WPT=2,USE_LOCAL=0,PAD=0", "(WPT).Default 3 is not among the Values; 2, the nearest, serves"},
		{"outside, then broken", map[int]int{2: 100}, "TILE_X=16,TILE_Y=8,WPT=8,USE_LOCAL=0,PAD=0", "TILE_Y * WPT <= 64; the reference every configuration is verified against and timed beside is the nearest valid configuration: TILE_Y 16 -> 8"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k, err := datasets.ReadSpec(specFile(t, func(m map[string]any) {
				ps := m["ConfigurationSpace"].(map[string]any)["TuningParameters"].([]any)
				for i, v := range tc.defaults {
					ps[i].(map[string]any)["Default"] = v
				}
			}))
			if err != nil {
				t.Fatal(err)
			}
			if got := k.Space.Format(k.Reference); got != tc.want {
				t.Errorf("reference %s, want %s", got, tc.want)
			}
			switch {
			case tc.warning == "" && len(k.Warnings) != 0:
				t.Errorf("warnings %q, want none", k.Warnings)
			case tc.warning != "" && (len(k.Warnings) == 0 || !strings.Contains(k.Warnings[len(k.Warnings)-1], tc.warning)):
				t.Errorf("warnings %q, want the last with %q", k.Warnings, tc.warning)
			}
		})
	}
}

// TestReadSpecErrors checks that every bad spec gives one line naming the
// file and the field at fault.
func TestReadSpecErrors(t *testing.T) {
	tests := []struct {
		name string
		edit func(m map[string]any)
		want string
	}{
		{"CUDA", func(m map[string]any) { kernelSpec(m)["Language"] = "CUDA" }, `KernelSpecification.Language is "CUDA"`},
		{"no kernel file", func(m map[string]any) { delete(kernelSpec(m), "KernelFile") }, "KernelSpecification.KernelFile is missing"},
		{"kernel file absent", func(m map[string]any) { kernelSpec(m)["KernelFile"] = "nope.cl" }, "KernelSpecification.KernelFile: open"},
		{"no parameters", func(m map[string]any) { delete(m, "ConfigurationSpace") }, "ConfigurationSpace.TuningParameters is missing"},
		{"a required field misspelt", func(m map[string]any) {
			ks := kernelSpec(m)
			ks["LocalSze"] = ks["LocalSize"]
			delete(ks, "LocalSize")
		}, "LocalSize.X is missing (KernelSpecification.LocalSze is not a field augur or the T1 format knows (misspelt?))"},
		{"conditions that leave nothing", func(m map[string]any) {
			m["ConfigurationSpace"].(map[string]any)["Conditions"] = []any{map[string]any{"Expression": "TILE_X > 100000"}}
		}, "ConfigurationSpace.Conditions: the conditions leave no valid configuration of the"},
		{"unknown name", func(m map[string]any) { kernelSpec(m)["GlobalSize"].(map[string]any)["X"] = "ProblemSize[0] * TILE_Q" }, "KernelSpecification.GlobalSize.X"},
		{"problem size out of range", func(m map[string]any) { kernelSpec(m)["GlobalSize"].(map[string]any)["X"] = "ProblemSize[7]" }, "KernelSpecification.GlobalSize.X"},
		{"syntax", func(m map[string]any) { kernelSpec(m)["LocalSize"].(map[string]any)["X"] = "TILE_X +* 2" }, "KernelSpecification.LocalSize.X"},
		{"division by zero", func(m map[string]any) {
			kernelSpec(m)["GlobalSize"].(map[string]any)["X"] = "ProblemSize[0] / (TILE_X - TILE_X)"
		}, "division by zero"},
		{"negative size", func(m map[string]any) { arg(m, 0)["Size"] = "ProblemSize[0] - 100000" }, "Arguments[0] (in).Size"},
		{"output sized by a parameter", func(m map[string]any) { arg(m, 1)["Size"] = "ProblemSize[0] * TILE_X" }, "Arguments[1] (out).Size"},
		{"vector filled by a parameter", func(m map[string]any) { arg(m, 0)["FillValue"] = "TILE_X" }, "Arguments[0] (in).FillValue"},
		{"condition", func(m map[string]any) {
			m["ConfigurationSpace"].(map[string]any)["Conditions"] = []any{map[string]any{"Expression": "TILE_X @ 2 > 1"}}
		}, "ConfigurationSpace.Conditions[0]"},
		{"default not an integer", func(m map[string]any) {
			m["ConfigurationSpace"].(map[string]any)["TuningParameters"].([]any)[4].(map[string]any)["Default"] = "[0, 1]"
		}, "Default"},
		{"verify rule", func(m map[string]any) { m["Augur"].(map[string]any)["Verify"] = "approx" }, `Augur.Verify: "approx": want outputs, sum or none`},
		{"float parameter of a string", func(m map[string]any) {
			p := m["ConfigurationSpace"].(map[string]any)["TuningParameters"].([]any)[3].(map[string]any)
			p["Type"], p["Values"], p["Default"] = "float", "[0.5, 'a']", 0.5
		}, "want a number"},
		{"string value of two words", func(m map[string]any) {
			p := m["ConfigurationSpace"].(map[string]any)["TuningParameters"].([]any)[3].(map[string]any)
			p["Type"], p["Values"], p["Default"] = "string", "['a b', 'c']", "c"
		}, `value "a b" is not one word`},
		{"string no parameter has", func(m map[string]any) {
			m["ConfigurationSpace"].(map[string]any)["Conditions"] = []any{map[string]any{"Expression": "USE_LOCAL == 'yes'"}}
		}, `string "yes" is no value of a string parameter`},
		{"no output", func(m map[string]any) { delete(arg(m, 1), "Output"); arg(m, 1)["AccessType"] = "ReadWrite" }, "no argument is an output"},
		{"custom", func(m map[string]any) { arg(m, 0)["Type"] = "custom" }, "Arguments[0] (in).Type"},
		{"image of longs", func(m map[string]any) { arg(m, 0)["MemoryType"], arg(m, 0)["Type"] = "Image1DBuffer", "int64" }, "an image holds pixels of one or four float, half, uchar, char, ushort, short, uint or int (float4, uchar4...), not \"int64\""},
		{"image of three ints", func(m map[string]any) { arg(m, 0)["MemoryType"], arg(m, 0)["Type"] = "Image1DBuffer", "int3" }, `not "int3"`},
		{"image channel of another size", func(m map[string]any) {
			arg(m, 0)["MemoryType"], arg(m, 0)["Type"], arg(m, 0)["ChannelType"] = "Image1DBuffer", "uchar4", "CL_UNSIGNED_INT32"
		}, `ChannelType: "UNSIGNED_INT32" does not hold uint8 pixels (uint8 does: UNORM_INT8 or UNSIGNED_INT8)`},
		{"channel type of a vector", func(m map[string]any) { arg(m, 0)["ChannelType"] = "FLOAT" }, "Arguments[0] (in).ChannelType: only an image (Image2D, Image3D, Image2DArray, Image1DBuffer) has a channel type"},
		{"half image of floats", func(m map[string]any) {
			arg(m, 0)["MemoryType"], arg(m, 0)["Type"], arg(m, 0)["ChannelType"] = "Image1DBuffer", "half4", "FLOAT"
		}, `"FLOAT" does not hold half pixels (half does: HALF_FLOAT)`},
		{"image channel OpenCL lacks", func(m map[string]any) {
			arg(m, 0)["MemoryType"], arg(m, 0)["Type"], arg(m, 0)["ChannelType"] = "Image1DBuffer", "int", "INT32"
		}, `"INT32" does not hold int32 pixels (int32 does: SIGNED_INT32)`},
		{"image 2D of one size", func(m map[string]any) { arg(m, 0)["MemoryType"] = "Image2D" }, "an Image2D's size is [width, height]"},
		{"image read and written", func(m map[string]any) {
			arg(m, 0)["MemoryType"], arg(m, 0)["AccessType"] = "Image1DBuffer", "ReadWrite"
		}, "an image is read_only or write_only in an OpenCL kernel, not ReadWrite"},
		{"image 3D of two sides", func(m map[string]any) {
			arg(m, 0)["MemoryType"], arg(m, 0)["Size"] = "Image3D", []any{"ProblemSize[0]", "4"}
		}, "an Image3D's size is [width, height, depth], got"},
		{"image array of two sides", func(m map[string]any) {
			arg(m, 0)["MemoryType"], arg(m, 0)["Size"] = "Image2DArray", []any{"ProblemSize[0]", "4"}
		}, "an Image2DArray's size is [width, height, images], got"},
		{"image sized by a parameter", func(m map[string]any) {
			arg(m, 0)["MemoryType"], arg(m, 0)["Size"] = "Image2D", []any{"ProblemSize[0]", "TILE_X"}
		}, "Arguments[0] (in).Size"},
		{"texture", func(m map[string]any) { arg(m, 0)["MemoryType"] = "Texture" }, `"Texture" is not supported`},
		{"names", func(m map[string]any) { m["Augur"].(map[string]any)["ProblemSizeNames"] = []any{"w"} }, "Augur.ProblemSizeNames"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := specFile(t, tc.edit)
			_, err := datasets.ReadSpec(path)
			if err == nil {
				t.Fatal("no error")
			}
			msg := err.Error()
			if !errors.Is(err, datasets.ErrSpec) || !strings.Contains(msg, path) || !strings.Contains(msg, tc.want) || strings.Contains(msg, "\n") {
				t.Errorf("error %q: want one line of ErrSpec naming %s and %q", msg, path, tc.want)
			}
		})
	}
	for name, text := range map[string]string{"not JSON": "{", "not T1": `{"General": {}}`} {
		path := filepath.Join(t.TempDir(), "x.json")
		os.WriteFile(path, []byte(text), 0o644)
		if _, err := datasets.ReadSpec(path); err == nil || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: error %v, want one naming %s", name, err, path)
		}
	}
}

// TestSpecConfigArgs checks arguments whose value depends on the
// configuration: a scalar set for each configuration, a local buffer sized
// by it, and an input allocated for the largest configuration.
func TestSpecConfigArgs(t *testing.T) {
	k, err := datasets.ReadSpec(specFile(t, func(m map[string]any) {
		arg(m, 2)["FillValue"] = "TILE_X * 2"
		arg(m, 0)["Size"] = "ProblemSize[0] * ProblemSize[1] + TILE_Y"
		ks := kernelSpec(m)
		ks["Arguments"] = append(ks["Arguments"].([]any), map[string]any{"Name": "scratch", "Type": "float", "MemoryType": "Local", "Size": "TILE_X * TILE_Y"})
	}))
	if err != nil {
		t.Fatal(err)
	}
	shape := features.Task{30, 20}
	args := k.Args(shape, rand.New(rand.NewPCG(1, 2)))
	if got, want := len(args[0].Bytes), (30*20+32)*4; got != want {
		t.Errorf("input of %d bytes, want %d (the largest TILE_Y)", got, want)
	}
	c, _ := k.Space.Parse("TILE_X=64,TILE_Y=4,WPT=1,USE_LOCAL=0,PAD=0")
	ca := k.ConfigArgs(shape, c)
	if len(ca) != 2 || ca[2].Elem.At(ca[2].Bytes, 0) != 128 || ca[4].Len != 64*4*4 {
		t.Errorf("config args %+v, want width 128 and scratch of 1,024 bytes", ca)
	}
	v := k.ConfigValues(shape, c)
	if v["width"] != 128 || v["scratch"] != 1024 {
		t.Errorf("config values %v", v)
	}
	l, err := k.Geometry(shape, c)
	if err != nil || l.LocalMemBytes != 1024 {
		t.Errorf("local memory %d (%v), want the scratch buffer's 1,024 bytes", l.LocalMemBytes, err)
	}
	plain, _ := datasets.ReadSpec(specFile(t, nil))
	if plain.ConfigArgs(shape, c) != nil || plain.ConfigValues(shape, c) != nil {
		t.Error("a spec without configuration-dependent arguments gives some")
	}
}

// TestSpecVersion checks that the version covers the spec and the source,
// and that the canonical form a bundle carries gives the same version.
func TestSpecVersion(t *testing.T) {
	k, err := datasets.ReadSpec(specFile(t, nil))
	if err != nil {
		t.Fatal(err)
	}
	again, err := datasets.ParseSpec("bundle", k.Spec, k.Source, k.SpecFiles)
	if err != nil {
		t.Fatal(err)
	}
	if again.Version() != k.Version() {
		t.Errorf("version from the bundle's copy %s, from the file %s", again.Version(), k.Version())
	}
	other, err := datasets.ParseSpec("bundle", k.Spec, k.Source+"\n", k.SpecFiles)
	if err != nil {
		t.Fatal(err)
	}
	if other.Version() == k.Version() {
		t.Error("a changed source keeps the version")
	}
	changed, err := datasets.ReadSpec(specFile(t, func(m map[string]any) { kernelSpec(m)["CompilerOptions"] = []any{} }))
	if err != nil {
		t.Fatal(err)
	}
	if changed.Version() == k.Version() {
		t.Error("a changed spec keeps the version")
	}
}

// TestSpecDerived checks the launch-geometry features against the plan.
func TestSpecDerived(t *testing.T) {
	k, err := datasets.ReadSpec(specFile(t, nil))
	if err != nil {
		t.Fatal(err)
	}
	names := k.Derived.Names()
	dst := make([]float64, len(names))
	c, _ := k.Space.Parse("TILE_X=32,TILE_Y=2,WPT=8,USE_LOCAL=1,PAD=1")
	pv := features.Platform{ComputeUnits: 3, LocalMemBytes: 48 << 10}.Vector()
	k.Derived.Derive(dst, features.Task{100, 50}, c, pv)
	got := map[string]float64{}
	for i, n := range names {
		got[n] = dst[i]
	}
	want := map[string]float64{
		"work_items": 128 * 8, "wg_size": 64, "work_groups": 16, "waves": 16.0 / 3, "last_wave_fill": 16.0 / 3 / 6,
		"pad_waste": 128.0*64/(100*50) - 1, "local_mem": 2 * 8 * 33 * 4, "tile_rows": 16, "tile_elems": 512,
	}
	for n, w := range want {
		if g := got[n]; g < w-1e-9 || g > w+1e-9 {
			t.Errorf("%s = %g, want %g", n, g, w)
		}
	}
}

// FuzzParseSpec checks that no spec text panics the reader, and that a
// spec it accepts gives a launch for its own reference configuration.
func FuzzParseSpec(f *testing.F) {
	// Small seeds, so that Go's minimization of new inputs keeps up.
	f.Add([]byte(`{"ConfigurationSpace":{"TuningParameters":[{"Name":"B","Values":"[8, 16]","Default":8}],` +
		`"Conditions":[{"Expression":"B % 8 == 0"}]},"KernelSpecification":{"Language":"OpenCL","KernelName":"k",` +
		`"GlobalSize":{"X":"ProblemSize[0] // 2"},"LocalSize":{"X":"B"},"GridDivX":["B"],"ProblemSize":[100],` +
		`"Arguments":[{"Type":"float","Size":"ProblemSize[0]","MemoryType":"Vector","Output":1},` +
		`{"Type":"int32","MemoryType":"Scalar","FillValue":"ProblemSize[0]"}]}}`))
	f.Add([]byte(`{"ConfigurationSpace":{"TuningParameters":[{"Name":"A","Values":"[1]"}]},"KernelSpecification":{"Language":"OpenCL"}}`))
	f.Add([]byte(`{"ConfigurationSpace":{"TuningParameters":[{"Name":"B","Values":"[8, 16]","Default":8}]},` +
		`"KernelSpecification":{"Language":"OpenCL","KernelName":"k","GlobalSize":{"X":"ProblemSize[0]"},"LocalSize":{"X":"B"},"ProblemSize":[100, 4],` +
		`"Arguments":[{"Type":"float","Size":["ProblemSize[0]","ProblemSize[1]"],"MemoryType":"Image2D"},` +
		`{"Type":"float","Size":"ProblemSize[0]","MemoryType":"Image1DBuffer","FillType":"Random"},{"Type":"float","Size":"ProblemSize[0]","MemoryType":"Vector","Output":1}]}}`))
	f.Add([]byte(`{"ConfigurationSpace":{"TuningParameters":[{"Name":"B","Values":"[8, 16]","Default":8}]},` +
		`"KernelSpecification":{"Language":"OpenCL","KernelName":"k","GlobalSize":{"X":"ProblemSize[0]"},"LocalSize":{"X":"B"},"ProblemSize":[100, 4],` +
		`"Arguments":[{"Type":"uchar4","Size":["ProblemSize[0]","ProblemSize[1]"],"MemoryType":"Image2D","AccessType":"WriteOnly"}],` +
		`"ReferenceArguments":[{"TargetName":"arg0","FillType":"Constant","FillValue":3}]}}`))
	f.Add([]byte(`{"ConfigurationSpace":{"TuningParameters":[{"Name":"B","Values":"[8, 16]","Default":8}]},` +
		`"KernelSpecification":{"Language":"OpenCL","KernelName":"k","GlobalSize":{"X":"ProblemSize[0]"},"LocalSize":{"X":"B"},"ProblemSize":[100, 4],` +
		`"Arguments":[{"Type":"uchar4","Size":["ProblemSize[0]","ProblemSize[1]"],"MemoryType":"Image2D","ChannelType":"CL_UNSIGNED_INT8"},` +
		`{"Type":"uint","Size":["ProblemSize[0]","ProblemSize[1]"],"MemoryType":"Image2D","Output":1},` +
		`{"Type":"float4","Size":["ProblemSize[0]",2,"ProblemSize[1]"],"MemoryType":"Image3D"},` +
		`{"Type":"short","Size":["ProblemSize[0]",2,3],"MemoryType":"Image2DArray","Output":1}]}}`))
	f.Fuzz(func(t *testing.T, spec []byte) {
		k, err := datasets.ParseSpec("fuzz", spec, "__kernel void k() {}", nil)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error of several lines: %q", err)
			}
			return
		}
		if _, err := k.Geometry(k.Tasks[0], k.Reference); err != nil {
			t.Errorf("accepted spec cannot launch its reference: %v", err)
		}
	})
}

func TestParseValues(t *testing.T) {
	tests := []struct {
		raw  string
		want []int
	}{
		{`"[16, 32, 48]"`, []int{16, 32, 48}},
		{`"[1,]"`, []int{1}},
		{`"(1, -2)"`, []int{1, -2}},
		{`[4, 8]`, []int{4, 8}},
		{`["4", 8]`, []int{4, 8}},
		{`[0]`, []int{0}},
		{`16`, []int{16}},
		// The benchmark hub's T1 files, which Kernel Tuner evaluates.
		{`"[2**i for i in range(0, 6)]"`, []int{1, 2, 4, 8, 16, 32}},
		{`"[1, 2, 4] + list(range(32, 128+1, 32))"`, []int{1, 2, 4, 32, 64, 96, 128}},
		{`"[i for i in range(1, 4)]"`, []int{1, 2, 3}},
		{`"[False, True]"`, []int{0, 1}},
		{`true`, []int{1}}, // a bool parameter's Default
		{`[false, true]`, []int{0, 1}},
	}
	for _, tt := range tests {
		got, err := datasets.ParseValues([]byte(tt.raw))
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("datasets.ParseValues(%s) = %v, %v; want %v", tt.raw, got, err, tt.want)
		}
	}
}

// TestSpecImpliedMacros checks that the macros Kernel Tuner defines besides
// the parameters reach the build options when the source names them, and
// only then, so that kernels that do not name them share programs across shapes.
func TestSpecImpliedMacros(t *testing.T) {
	spec := `{"ConfigurationSpace": {"TuningParameters": [{"Name": "WG", "Type": "int", "Values": "[8, 16]", "Default": 8}]},
	"KernelSpecification": {"Language": "OpenCL", "KernelName": "k", "KernelFile": "k.cl", "ProblemSize": [100, 6],
		"GlobalSize": {"X": "ProblemSize[0]", "Y": "ProblemSize[1]"}, "LocalSize": {"X": "WG", "Y": "2"},
		"Arguments": [{"Name": "out", "Type": "float", "Size": "ProblemSize[0]", "MemoryType": "Vector", "Output": 1}]}}`
	tests := []struct {
		name, source, want string
	}{
		{"none named", "__kernel void k(__global float* out) { out[0] = WG; }", "-DWG=16"},
		{"named", "#ifdef kernel_tuner\n__kernel void k(__global float* out) { out[0] = block_size_y + grid_size_x + grid_size_z + block_size_z; }\n#endif",
			"-DWG=16 -Dblock_size_y=2 -Dblock_size_z=1 -Dgrid_size_x=7 -Dgrid_size_z=1 -Dkernel_tuner=1"},
		{"names within words are not", "__kernel void k(__global float* out) { int my_grid_size_x = 1; out[0] = my_grid_size_x; }", "-DWG=16"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k, err := datasets.ParseSpec("k.json", []byte(spec), tc.source, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := k.Options(features.Task{100, 6}, features.Config{16}); got != tc.want {
				t.Errorf("options %q, want %q", got, tc.want)
			}
		})
	}
}

func TestElemCloseSum(t *testing.T) {
	f32 := func(vs ...float32) []byte {
		b := make([]byte, 4*len(vs))
		for i, v := range vs {
			binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
		}
		return b
	}
	e, _, err := datasets.ParseElem("float")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name      string
		got, want []byte
		ok        bool
	}{
		{"same values", f32(1, 2, 3), f32(1, 2, 3), true},
		{"other values, same sum", f32(6, 0, 0), f32(1, 2, 3), true},
		{"within rtol", f32(6.0001, 0, 0), f32(1, 2, 3), true},
		{"other sum", f32(7, 0, 0), f32(1, 2, 3), false},
		{"NaN", f32(float32(math.NaN()), 0, 0), f32(1, 2, 3), false},
	} {
		if err := e.CloseSum(tc.got, tc.want, 0, 1e-4); (err == nil) != tc.ok {
			t.Errorf("%s: CloseSum = %v, want ok %v", tc.name, err, tc.ok)
		}
	}
}

// TestElemHalf checks IEEE binary16 lanes: the values a half holds
// exactly come back as written, others rounded to the nearest half, and a
// NaN or an infinity is caught by Finite.
func TestElemHalf(t *testing.T) {
	e, lanes, err := datasets.ParseElem("half4")
	if err != nil || e.Size != 2 || lanes != 4 || !e.Float {
		t.Fatalf("half4: %+v, %d lanes, %v", e, lanes, err)
	}
	b := make([]byte, 2*6)
	for i, tc := range []struct{ in, want float64 }{
		{1.5, 1.5}, {-2, -2}, {65504, 65504}, {0.1, 0.0999755859375}, {1e-8, 0}, {70000, math.Inf(1)},
	} {
		e.Put(b, i, tc.in)
		if got := e.At(b, i); got != tc.want {
			t.Errorf("half %g reads back %g, want %g", tc.in, got, tc.want)
		}
	}
	if err := e.Finite(b[:10]); err != nil {
		t.Errorf("finite halves: %v", err)
	}
	if err := e.Finite(b); err == nil {
		t.Error("an infinite half passed Finite")
	}
	e.Put(b, 0, math.NaN())
	if err := e.Close(b, b, 0, 0); err != nil {
		t.Errorf("bit-identical halves: %v", err)
	}
	if err := e.Finite(b[:2]); err == nil {
		t.Error("a NaN half passed Finite")
	}
}

// TestSpecUnusedParameter checks the warning for a parameter that neither
// the source nor a size names (as a Kernel Tuner script's parameter meant
// for another kernel), and its absence for one named only in a size.
func TestSpecUnusedParameter(t *testing.T) {
	spec := `{"ConfigurationSpace": {"TuningParameters": [{"Name": "WG", "Type": "int", "Values": "[8, 16]", "Default": 8},
		{"Name": "UNROLL", "Type": "int", "Values": "[0, 1, 8]", "Default": 1}, {"Name": "ONE", "Type": "int", "Values": "[1]", "Default": 1}]},
	"KernelSpecification": {"Language": "OpenCL", "KernelName": "k", "KernelFile": "k.cl", "ProblemSize": [100],
		"GlobalSize": {"X": "ProblemSize[0]"}, "LocalSize": {"X": "WG"},
		"Arguments": [{"Name": "out", "Type": "float", "Size": "ProblemSize[0]", "MemoryType": "Vector", "Output": 1}]}}`
	for _, tc := range []struct {
		name, source, want string
	}{
		{"unused", "__kernel void k(__global float* out) { out[get_global_id(0)] = 1; }", "never name UNROLL:"},
		{"named", "__kernel void k(__global float* out) {\n#if UNROLL\n out[get_global_id(0)] = 1;\n#endif\n}", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k, err := datasets.ParseSpec("k.json", []byte(spec), tc.source, nil)
			if err != nil {
				t.Fatal(err)
			}
			got := strings.Join(k.Warnings, "\n")
			if tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
				t.Errorf("warnings %q, want %q", got, tc.want)
			}
		})
	}
}

// TestSpecBlockSizeDefaults checks that a LocalSize naming Kernel Tuner's
// block_size_x where no parameter has that name takes Kernel Tuner's
// default, 256, with one warning, and that the kernel sees the same value.
func TestSpecBlockSizeDefaults(t *testing.T) {
	spec := `{"ConfigurationSpace": {"TuningParameters": [{"Name": "TILE", "Type": "int", "Values": "[1, 2]"}]},
	"KernelSpecification": {"Language": "OpenCL", "KernelName": "k", "KernelFile": "k.cl", "ProblemSize": [1000],
		"GlobalSize": {"X": "ProblemSize[0]"}, "LocalSize": {"X": "block_size_x", "Y": "block_size_y"},
		"GridDivX": ["block_size_x", "TILE"],
		"Arguments": [{"Name": "out", "Type": "float", "Size": "ProblemSize[0]", "MemoryType": "Vector", "Output": 1}]}}`
	source := "__kernel void k(__global float* out) { out[get_global_id(0)] = TILE * block_size_x; }"
	k, err := datasets.ParseSpec("k.json", []byte(spec), source, nil)
	if err != nil {
		t.Fatal(err)
	}
	l, err := k.Geometry(features.Task{1000}, features.Config{2})
	if err != nil {
		t.Fatal(err)
	}
	if l.Local[0] != 256 || l.Local[1] != 1 || l.Global[0] != 512 {
		t.Errorf("local %v, global %v; want 256 x 1, 512 (two groups of 256 items, TILE 2 each)", l.Local, l.Global)
	}
	if got := k.Options(features.Task{1000}, features.Config{2}); got != "-DTILE=2 -Dblock_size_x=256" {
		t.Errorf("options %q", got)
	}
	if w := strings.Join(k.Warnings, "\n"); strings.Count(w, "Kernel Tuner's default") != 2 || !strings.Contains(w, "block_size_x, which no parameter is: Kernel Tuner's default, 256") {
		t.Errorf("warnings %q, want one for block_size_x and one for block_size_y", w)
	}
}

// TestSpecStringParameter checks a string parameter: its values numbered
// 0, 1, ... in configurations, its text in the build options, conditions
// comparing it with string literals.
func TestSpecStringParameter(t *testing.T) {
	spec := `{"ConfigurationSpace": {"TuningParameters": [{"Name": "WG", "Type": "int", "Values": "[8, 16, 32]", "Default": 8},
		{"Name": "MODE", "Type": "string", "Values": "['fast', 'exact']", "Default": "exact"}],
		"Conditions": [{"Expression": "MODE == 'exact' or WG > 8"}]},
	"KernelSpecification": {"Language": "OpenCL", "KernelName": "k", "KernelFile": "k.cl", "ProblemSize": [100],
		"GlobalSize": {"X": "ProblemSize[0]"}, "LocalSize": {"X": "WG"},
		"Arguments": [{"Name": "out", "Type": "float", "Size": "ProblemSize[0]", "MemoryType": "Vector", "Output": 1}]}}`
	k, err := datasets.ParseSpec("k.json", []byte(spec), "__kernel void k(__global float* out) { out[0] = MODE(WG); }", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := k.Space.Len(); got != 5 { // 3 exact + 2 fast (WG 16, 32)
		t.Errorf("%d valid configurations, want 5", got)
	}
	if got := k.Space.Format(k.Reference); got != "WG=8,MODE=1" {
		t.Errorf("reference %s, want WG=8,MODE=1 (exact)", got)
	}
	if got := k.Options(features.Task{100}, features.Config{16, 0}); got != "-DWG=16 -DMODE=fast" {
		t.Errorf("options %q, want -DWG=16 -DMODE=fast", got)
	}
	if len(k.Warnings) != 0 {
		t.Errorf("warnings %q", k.Warnings)
	}
	if got := k.FormatConfig(features.Config{16, 0}); got != "WG=16,MODE=fast" {
		t.Errorf("FormatConfig = %q, want WG=16,MODE=fast", got)
	}
}

// TestSpecFloatParameter checks a float parameter: numbered in
// configurations, its text in the build options, its value in conditions,
// sizes and derived features.
func TestSpecFloatParameter(t *testing.T) {
	spec := `{"ConfigurationSpace": {"TuningParameters": [{"Name": "WG", "Type": "int", "Values": "[8, 16]", "Default": 8},
		{"Name": "ratio", "Type": "float", "Values": "[0.5, 1.5, 0.25]", "Default": 1.5}],
		"Conditions": [{"Expression": "ratio * WG >= 4"}]},
	"KernelSpecification": {"Language": "OpenCL", "KernelName": "k", "KernelFile": "k.cl", "ProblemSize": [100],
		"GlobalSize": {"X": "ProblemSize[0]"}, "LocalSize": {"X": "WG"},
		"Arguments": [{"Name": "out", "Type": "float", "Size": "ProblemSize[0]", "MemoryType": "Vector", "Output": 1},
			{"Name": "r", "Type": "float", "MemoryType": "Scalar", "FillValue": "ratio * 2"}]},
	"Augur": {"Derived": ["half_wg = WG * ratio"]}}`
	k, err := datasets.ParseSpec("k.json", []byte(spec), "__kernel void k(__global float* out, float r) { out[0] = ratio * r; }", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := k.Space.Len(); got != 5 { // WG 8 with 0.5 or 1.5; WG 16 with all three
		t.Errorf("%d valid configurations, want 5", got)
	}
	if got := k.FormatConfig(k.Reference); got != "WG=8,ratio=1.5" {
		t.Errorf("reference %s, want WG=8,ratio=1.5", got)
	}
	c := features.Config{16, 2}
	if got := k.Options(features.Task{100}, c); got != "-DWG=16 -Dratio=0.25" {
		t.Errorf("options %q", got)
	}
	if got := k.ConfigValues(features.Task{100}, c)["r"]; got != 0.5 {
		t.Errorf("r = %g, want 0.5 (ratio 0.25 times 2)", got)
	}
	names := k.Derived.Names()
	vals := make([]float64, len(names))
	k.Derived.Derive(vals, features.Task{100}, c, nil)
	i := slices.Index(names, "half_wg")
	if i < 0 || vals[i] != 4 {
		t.Errorf("derived %q = %v, want half_wg = 4", names, vals)
	}
}

func TestChoices(t *testing.T) {
	for _, tc := range []struct {
		values  string
		numeric bool
		labels  string // joined by |; "" for an error
		err     string
		def     string
		defAt   int
	}{
		{`"['fast', 'exact']"`, false, "fast|exact", "", `"exact"`, 1},
		{`["fast", "exact"]`, false, "fast|exact", "", `"'fast'"`, 0},
		{`"[0.5, -1.5]"`, true, "0.5|-1.5", "", `-1.50`, 1},
		{`[0.5, 1.50]`, true, "0.5|1.50", "", `"1.5"`, 1},
		{`[0.5, 1.5]`, true, "0.5|1.5", "", `null`, -1},
		{`["fast"]`, false, "fast", "", `"slow"`, -1},
		{`[1.5, 1.50]`, true, "", "listed twice", "", 0},
		{`["a", "a"]`, false, "", "listed twice", "", 0},
		{`["a b"]`, false, "", "not one word", "", 0},
		{`[]`, true, "", "no values", "", 0},
		{`"[0.5, 'a']"`, true, "", "want a number", "", 0},
		{`[1, 2]`, false, "", "not a list of strings", "", 0},
	} {
		ch, err := datasets.ParseChoices(json.RawMessage(tc.values), tc.numeric)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseChoices(%s): %v, want an error with %q", tc.values, err, tc.err)
			}
			continue
		}
		if err != nil || strings.Join(ch.Labels, "|") != tc.labels {
			t.Errorf("ParseChoices(%s) = %q, %v; want %s", tc.values, ch.Labels, err, tc.labels)
			continue
		}
		if got := ch.DefaultIndex(json.RawMessage(tc.def)); got != tc.defAt {
			t.Errorf("%s: DefaultIndex(%s) = %d, want %d", tc.values, tc.def, got, tc.defAt)
		}
	}
}

// TestSpecImages checks image arguments: a 2D image of [width, height]
// pixels and a 1D image buffer, filled as a Vector of the same seed is;
// RGBA pixels of bytes and of floats; and a device without images
// refused for a kernel that reads them.
func TestSpecImages(t *testing.T) {
	k, err := datasets.ReadSpec("../collect/testdata/specimage/blur.json")
	if err != nil {
		t.Fatal(err)
	}
	args := k.Args(features.Task{30, 20}, rand.New(rand.NewPCG(1, 2)))
	in, img, lin := args[0], args[1], args[2]
	if img.Kind != datasets.Image2D || img.Width != 30 || img.Height != 20 || img.Channels != 1 || img.Elem.Name != "float" {
		t.Fatalf("image %v %d x %d of %d %s, want an Image2D of 30 x 20 floats", img.Kind, img.Width, img.Height, img.Channels, img.Elem.Name)
	}
	if lin.Kind != datasets.ImageBuffer || len(lin.Bytes) != 600*4 {
		t.Fatalf("image buffer %v of %d bytes, want an ImageBuffer of 600 floats", lin.Kind, len(lin.Bytes))
	}
	if !slices.Equal(img.Bytes, in.Bytes) || !slices.Equal(lin.Bytes, in.Bytes) || in.Elem.At(in.Bytes, 0) == 0 {
		t.Error("the images do not hold the vector's values, drawn from the same seed")
	}
	c := k.Reference
	if err := k.CheckDevice(c, features.Platform{Name: "a", ImageSupport: true}); err != nil {
		t.Errorf("device with images: %v", err)
	}
	if err := k.CheckDevice(c, features.Platform{Name: "b"}); !errors.Is(err, datasets.ErrDevice) || !strings.Contains(err.Error(), "img") {
		t.Errorf("device without images: %v, want ErrDevice naming img", err)
	}

	k, err = datasets.ReadSpec("../collect/testdata/specimage/rgba.json")
	if err != nil {
		t.Fatal(err)
	}
	args = k.Args(features.Task{5, 3}, rand.New(rand.NewPCG(1, 2)))
	for _, tc := range []struct {
		i        int
		elem     string
		channels int
	}{{1, "uint8", 4}, {3, "float", 4}} {
		a := args[tc.i]
		if a.Kind != datasets.Image2D || a.Elem.Name != tc.elem || a.Channels != tc.channels || a.Width != 5 || a.Height != 3 {
			t.Errorf("argument %s: %v of %d %s, %d x %d; want an Image2D of 5 x 3 pixels of %d %s", a.Name, a.Kind, a.Channels, a.Elem.Name, a.Width, a.Height, tc.channels, tc.elem)
		}
		if !slices.Equal(a.Bytes, args[tc.i-1].Bytes) {
			t.Errorf("argument %s does not hold %s's values", a.Name, args[tc.i-1].Name)
		}
	}
}

// TestSpecImageOutput checks an Image2D that the kernel writes: its
// argument is an output of the image's pixels, and what the spec expects
// of it covers every pixel (width x height), not its first row.
func TestSpecImageOutput(t *testing.T) {
	spec := `{"ConfigurationSpace":{"TuningParameters":[{"Name":"B","Values":"[8, 16]","Default":8}]},` +
		`"KernelSpecification":{"Language":"OpenCL","KernelName":"k","GlobalSize":{"X":"ProblemSize[0]","Y":"ProblemSize[1]"},"LocalSize":{"X":"B"},"ProblemSize":[16, 4],` +
		`"Arguments":[{"Name":"img","Type":"uchar4","Size":["ProblemSize[0]","ProblemSize[1]"],"MemoryType":"Image2D","AccessType":"WriteOnly"}],` +
		`"ReferenceArguments":[{"Name":"r","TargetName":"img","FillType":"Constant","FillValue":3}]}}`
	k, err := datasets.ParseSpec("imgout.json", []byte(spec), "__kernel void k(__write_only image2d_t img) {}", nil)
	if err != nil {
		t.Fatal(err)
	}
	task := features.Task{16, 4}
	args := k.Args(task, rand.New(rand.NewPCG(1, 2)))
	if len(args) != 1 || args[0].Kind != datasets.Image2D || !args[0].Output || args[0].Width != 16 || args[0].Height != 4 || args[0].Channels != 4 || len(args[0].Bytes) != 16*4*4 {
		t.Fatalf("args %+v, want one 16 x 4 output image of RGBA bytes", args)
	}
	want := bytes.Repeat([]byte{3}, 16*4*4)
	if got := k.SpecExpected(task); len(got) != 1 || !bytes.Equal(got[0], want) {
		t.Errorf("expected outputs %v, want %d bytes of 3", got, len(want))
	}
}

// TestParamLabels checks what a spec's string and float parameters'
// numbers stand for, and that an integer parameter has no labels.
func TestParamLabels(t *testing.T) {
	k, err := datasets.ReadSpec("testdata/labels/labels.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		param   int
		want    []string
		numeric bool
	}{
		{0, nil, false},
		{1, []string{"fast", "exact"}, false},
		{2, []string{"0.5", "1.5"}, true},
		{3, nil, false},
		{-1, nil, false},
	} {
		got, numeric := k.ParamLabels(tc.param)
		if !slices.Equal(got, tc.want) || numeric != tc.numeric {
			t.Errorf("ParamLabels(%d) = %q, %v; want %q, %v", tc.param, got, numeric, tc.want, tc.numeric)
		}
	}
	if l, _ := datasets.Conv2D().ParamLabels(0); l != nil {
		t.Errorf("conv2d's first parameter has labels %q", l)
	}
	// A report names each value as the kernel gets it.
	for _, tc := range []struct {
		config features.Config
		want   map[string]any
	}{
		{features.Config{16, 0, 1}, map[string]any{"B": 16, "MODE": "fast", "F": 1.5}},
		{features.Config{8, 1, 0}, map[string]any{"B": 8, "MODE": "exact", "F": 0.5}},
		{features.Config{8, 7}, map[string]any{"B": 8, "MODE": 7}}, // out of range, short: the numbers
	} {
		if got := k.NamedConfig(tc.config); !maps.Equal(got, tc.want) {
			t.Errorf("NamedConfig(%v) = %#v, want %#v", tc.config, got, tc.want)
		}
	}
	// And reads them back, by text or by number.
	for _, tc := range []struct {
		text string
		want features.Config
		err  bool
	}{
		{"B=16,MODE=fast,F=1.5", features.Config{16, 0, 1}, false},
		{"B=8,MODE=exact,F=0.50", features.Config{8, 1, 0}, false},
		{"B=8,MODE=1,F=0", features.Config{8, 1, 0}, false},
		{"B=8,MODE=slow,F=0.5", nil, true},
		{"B=8,MODE=fast", nil, true},
	} {
		got, err := k.ParseConfig(tc.text)
		if (err != nil) != tc.err || !got.Equal(tc.want) && !tc.err {
			t.Errorf("ParseConfig(%q) = %v, %v; want %v (error %v)", tc.text, got, err, tc.want, tc.err)
		}
	}
	for _, c := range []features.Config{{16, 0, 1}, {8, 1, 0}} {
		if got, err := k.ParseConfig(k.FormatConfig(c)); err != nil || !got.Equal(c) {
			t.Errorf("ParseConfig(FormatConfig(%v)) = %v, %v", c, got, err)
		}
	}
	if c := datasets.Conv2D(); c.NamedConfig(c.Reference)[c.Space.Params[0].Name] != any(c.Reference[0]) {
		t.Errorf("conv2d's reference named %v", c.NamedConfig(c.Reference))
	}
	// The same from a bundle that carries the spec; none from one without.
	b := &features.Bundle{Params: k.Space.Params, KernelVersion: k.Version()}
	if err := k.Attach(b); err != nil {
		t.Fatal(err)
	}
	if got := datasets.BundleParamLabels(b); len(got) != 3 || got[0] != nil || !slices.Equal(got[1], []string{"fast", "exact"}) || !slices.Equal(got[2], []string{"0.5", "1.5"}) {
		t.Errorf("BundleParamLabels = %q", got)
	}
	if got := datasets.BundleParamLabels(&features.Bundle{Params: k.Space.Params}); got != nil {
		t.Errorf("a bundle with no spec: %q", got)
	}
	if got := datasets.BundleConditions(b); got != nil {
		t.Errorf("conditions %q of a spec with none", got)
	}
	spec, err := os.ReadFile("testdata/labels/labels.json")
	if err != nil {
		t.Fatal(err)
	}
	cond := strings.Replace(string(spec), `"ConfigurationSpace": {`, `"ConfigurationSpace": {"Conditions": [{"Expression": "MODE != 'fast' or B == 16"}],`, 1)
	kc, err := datasets.ParseSpec("labels.json", []byte(cond), "__kernel void k(__global float *o) {}", nil)
	if err != nil {
		t.Fatal(err)
	}
	bc := &features.Bundle{Params: kc.Space.Params, KernelVersion: kc.Version()}
	if err := kc.Attach(bc); err != nil {
		t.Fatal(err)
	}
	if got := datasets.BundleConditions(bc); !slices.Equal(got, []string{"MODE != 'fast' or B == 16"}) {
		t.Errorf("conditions %q, want the spec's as written", got)
	}
}

// TestSpecConditionForms reads conditions written as T1's objects and as
// Kernel Tuner's strings, and names the condition an unknown name is in
// and a ProblemSize index out of range.
func TestSpecConditionForms(t *testing.T) {
	const base = `{"ConfigurationSpace": {"TuningParameters": [{"Name": "WG", "Type": "int", "Values": "[8, 16, 32]", "Default": 8}],
		"Conditions": %COND%},
	"KernelSpecification": {"Language": "OpenCL", "KernelName": "k", "KernelFile": "k.cl", "ProblemSize": [100],
		"GlobalSize": {"X": "%GX%"}, "LocalSize": {"X": "WG"},
		"Arguments": [{"Name": "out", "Type": "float", "Size": "ProblemSize[0]", "MemoryType": "Vector", "Output": 1}]}}`
	tests := []struct {
		name, cond, gx string
		valid          int    // valid configurations; 0 when an error
		err            string // the error holds it
	}{
		{"object", `[{"Expression": "WG <= 16"}]`, "ProblemSize[0]", 2, ""},
		{"string", `["WG <= 16", "WG != 8"]`, "ProblemSize[0]", 1, ""},
		{"unknown name", `["WG <= 16", {"Expression": "WG * FOO <= 100"}]`, "ProblemSize[0]", 0, "Conditions[1]"},
		{"neither", `[5]`, "ProblemSize[0]", 0, "an object with an Expression or an expression string"},
		{"size out of range", `[]`, "ProblemSize[3]", 0, "ProblemSize[3] is out of range: ProblemSize has 1 entries"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := strings.NewReplacer("%COND%", tt.cond, "%GX%", tt.gx).Replace(base)
			k, err := datasets.ParseSpec("k.json", []byte(spec), "__kernel void k(__global float* out) { out[0] = WG; }", nil)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want one holding %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if n := k.Space.Len(); n != tt.valid {
				t.Errorf("%d valid configurations, want %d", n, tt.valid)
			}
		})
	}
}

// TestReadSpecSyntaxWhere: a spec that is not JSON is refused with the
// line and column where the decoder stopped.
func TestReadSpecSyntaxWhere(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "k.json")
	if err := os.WriteFile(path, []byte("{\n  \"General\": {},,\n  \"KernelSpecification\": {}\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := datasets.ReadSpec(path)
	if err == nil || !strings.Contains(err.Error(), "line 2, column 17: invalid character ','") {
		t.Errorf("ReadSpec = %v, want the line and column of the stray comma", err)
	}
}
