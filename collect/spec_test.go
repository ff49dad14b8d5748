package collect

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/augur-tuning/augur/collect/record"
	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/features"
)

// specScale reads testdata/specscale, its Default values changed by defaults
// (parameter name to value) and its spec by edit, from a temporary copy.
func specScale(t *testing.T, defaults map[string]int, edit func(m map[string]any)) *datasets.Kernel {
	t.Helper()
	dir := t.TempDir()
	src, _ := os.ReadFile("testdata/specscale/scale.cl")
	os.WriteFile(filepath.Join(dir, "scale.cl"), src, 0o644)
	raw, _ := os.ReadFile("testdata/specscale/scale.json")
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	for _, p := range m["ConfigurationSpace"].(map[string]any)["TuningParameters"].([]any) {
		p := p.(map[string]any)
		if v, ok := defaults[p["Name"].(string)]; ok {
			p["Default"] = v
		}
	}
	if edit != nil {
		edit(m)
	}
	out, _ := json.Marshal(m)
	os.WriteFile(filepath.Join(dir, "scale.json"), out, 0o644)
	k, err := datasets.ReadSpec(filepath.Join(dir, "scale.json"))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// TestRunSpec checks a spec kernel's collection: every configuration is
// verified against the reference configuration's outputs (VAR 2 adds 1 and
// fails; VAR 1 reorders a product and passes), a resumed run verifies
// against a reference it runs again without recording it twice, and a
// configuration that does not compile is a row, not a stop.
func TestRunSpec(t *testing.T) {
	skipWithoutDevice(t)
	k := specScale(t, nil, nil)
	dir := t.TempDir()
	opt := Options{Tasks: []features.Task{{1000}, {77}}, Sample: "all", Repeats: 2, Progress: io.Discard, Log: io.Discard,
		Where: "VAR != 1"}
	if _, err := Run(context.Background(), k, dir, opt); err != nil {
		t.Fatal(err)
	}
	opt.Where = ""
	if _, err := Run(context.Background(), k, dir, opt); err != nil {
		t.Fatal(err)
	}
	rows := readAll(t, dir, k)
	seen := map[string]bool{}
	for _, r := range rows {
		key := pairKey(r.Task, r.Config)
		if seen[key] {
			t.Errorf("%v %s recorded twice", r.Task, k.Space.Format(r.Config))
		}
		seen[key] = true
		want := record.StatusOK
		switch {
		case r.Config[2] == 1:
			want = record.StatusCompileError
		case r.Config[1] == 2:
			want = record.StatusVerifyError
		}
		if r.Status != want {
			t.Errorf("%v %s: %s (%s), want %s", r.Task, k.Space.Format(r.Config), r.Status, r.Error, want)
		}
	}
	if n := 2 * k.Space.Len(); len(rows) != n {
		t.Errorf("%d rows, want %d", len(rows), n)
	}
}

// TestRunSpecReferenceFails checks that collect stops when a spec kernel's
// reference configuration fails: nothing could be verified against it.
func TestRunSpecReferenceFails(t *testing.T) {
	skipWithoutDevice(t)
	tests := []struct {
		name     string
		defaults map[string]int
		edit     func(m map[string]any)
		want     string
	}{
		{"does not compile", map[string]int{"BROKEN": 1}, nil, "compile_error"},
		{"wrong against ReferenceArguments", nil, func(m map[string]any) {
			m["KernelSpecification"].(map[string]any)["ReferenceArguments"] = []any{
				map[string]any{"Name": "expected", "TargetName": "out", "FillType": "Constant", "FillValue": 3}}
		}, "ReferenceArguments"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k := specScale(t, tc.defaults, tc.edit)
			_, err := Run(context.Background(), k, t.TempDir(), Options{Tasks: []features.Task{{64}}, Sample: "all", Repeats: 1, Progress: io.Discard, Log: io.Discard})
			if !errors.Is(err, ErrReferenceFailed) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "n=64") {
				t.Errorf("error %v, want ErrReferenceFailed naming the shape and %q", err, tc.want)
			}
		})
	}
}

// readAll reads every row recorded for k under dir.
// collectAll collects k's whole space once on each task and returns the
// rows, one a configuration and task.
func collectAll(t *testing.T, k *datasets.Kernel, tasks []features.Task) []record.Row {
	t.Helper()
	out := t.TempDir()
	opt := Options{Tasks: tasks, Sample: "all", Repeats: 1, Progress: io.Discard, Log: io.Discard}
	if _, err := Run(context.Background(), k, out, opt); err != nil {
		t.Fatal(err)
	}
	rows := readAll(t, out, k)
	if len(rows) != len(tasks)*k.Space.Len() {
		t.Fatalf("%d rows, want %d", len(rows), len(tasks)*k.Space.Len())
	}
	return rows
}

func readAll(t *testing.T, dir string, k *datasets.Kernel) []record.Row {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, k.Name, "*", "*.arrow"))
	var rows []record.Row
	for _, f := range files {
		_, rs, err := record.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, rs...)
	}
	return rows
}

// TestRunSpecKernelTunerConventions checks two conventions of kernels
// written for Kernel Tuner: an output the kernel adds to, or writes only in
// part, starts from its fill (a reference that leaves NaN in a NaN-filled
// output is run again from the fill), and the macros Kernel Tuner defines
// besides the parameters (grid_size_x, kernel_tuner) are defined.
func TestRunSpecKernelTunerConventions(t *testing.T) {
	skipWithoutDevice(t)
	k, err := datasets.ReadSpec("testdata/specadd/add.json")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var log strings.Builder
	opt := Options{Tasks: []features.Task{{1024}, {4096}}, Sample: "all", Repeats: 3, Progress: io.Discard, Log: &log}
	if _, err := Run(context.Background(), k, dir, opt); err != nil {
		t.Fatal(err)
	}
	rows := readAll(t, dir, k)
	if len(rows) != 12 {
		t.Fatalf("%d rows, want 12", len(rows))
	}
	for _, r := range rows {
		want := record.StatusOK
		if r.Config[1] == 1 {
			want = record.StatusVerifyError
		}
		if r.Status != want {
			t.Errorf("%v %s: %s (%s), want %s", r.Task, k.Space.Format(r.Config), r.Status, r.Error, want)
		}
	}
	if !strings.Contains(log.String(), "start from the spec's fill") {
		t.Errorf("log %q does not say outputs start from their fill", log.String())
	}
}

// TestRunSpecVerifyRules checks Augur.Verify on partial sums whose values
// depend on the configuration and whose total does not: "sum" passes every
// configuration but the one whose total is wrong, "none" passes every one,
// and the default fails every configuration whose values differ from the
// reference's.
func TestRunSpecVerifyRules(t *testing.T) {
	skipWithoutDevice(t)
	for _, tc := range []struct {
		rule string
		ok   func(c features.Config) bool
	}{
		{"sum", func(c features.Config) bool { return c[2] == 0 }},
		{"none", func(c features.Config) bool { return true }},
		{"outputs", func(c features.Config) bool { return c[0] == 16 && c[1] == 4 && c[2] == 0 }}, // the reference alone
	} {
		t.Run(tc.rule, func(t *testing.T) {
			dir := t.TempDir()
			for _, f := range []string{"partial.cl", "partial.json"} {
				b, err := os.ReadFile(filepath.Join("testdata/specpartial", f))
				if err != nil {
					t.Fatal(err)
				}
				if f == "partial.json" {
					b = []byte(strings.Replace(string(b), `"Verify": "sum"`, `"Verify": "`+tc.rule+`"`, 1))
				}
				os.WriteFile(filepath.Join(dir, f), b, 0o644)
			}
			k, err := datasets.ReadSpec(filepath.Join(dir, "partial.json"))
			if err != nil {
				t.Fatal(err)
			}
			if k.VerifyRule() != tc.rule {
				t.Fatalf("rule %q, want %q", k.VerifyRule(), tc.rule)
			}
			opt := Options{Tasks: []features.Task{{4096}}, Sample: "all", Repeats: 1, Progress: io.Discard, Log: io.Discard}
			if _, err := Run(context.Background(), k, filepath.Join(dir, "data"), opt); err != nil {
				t.Fatal(err)
			}
			rows := readAll(t, filepath.Join(dir, "data"), k)
			if len(rows) != 12 {
				t.Fatalf("%d rows, want 12", len(rows))
			}
			for _, r := range rows {
				want := record.StatusVerifyError
				if tc.ok(r.Config) {
					want = record.StatusOK
				}
				if r.Status != want {
					t.Errorf("%s: %s (%s), want %s", k.Space.Format(r.Config), r.Status, r.Error, want)
				}
			}
		})
	}
}

// TestRunSpecStringParameter checks a string parameter end to end: each
// value reaches the kernel as its text, rows record its number, and a
// condition comparing it with a string holds.
func TestRunSpecStringParameter(t *testing.T) {
	skipWithoutDevice(t)
	k, err := datasets.ReadSpec("testdata/specmode/mode.json")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	opt := Options{Tasks: []features.Task{{1024}}, Sample: "all", Repeats: 1, Progress: io.Discard, Log: io.Discard}
	if _, err := Run(context.Background(), k, dir, opt); err != nil {
		t.Fatal(err)
	}
	rows := readAll(t, dir, k)
	if len(rows) != 5 { // mul and sub at WG 8 and 16, add at 16
		t.Fatalf("%d rows, want 5", len(rows))
	}
	for _, r := range rows {
		want := record.StatusOK
		if r.Config[1] == 2 { // sub
			want = record.StatusVerifyError
		}
		if r.Status != want {
			t.Errorf("%s: %s (%s), want %s", k.Space.Format(r.Config), r.Status, r.Error, want)
		}
	}
}

// TestRunSpecImages checks spec kernels that read their input from a
// buffer or an image as LOAD says: a 2D image or a 1D image buffer of
// floats (blur), and RGBA 2D images of bytes and of floats (rgba, LOAD's
// bits). Every way agrees with the reference's (the buffers') when each
// image holds its buffer's values, and an image of other values fails
// verification where it is read, which shows its contents reach the
// kernel.
func TestRunSpecImages(t *testing.T) {
	skipWithoutDevice(t)
	for _, tc := range []struct {
		name, kernel string
		old, new     string // an edit of the spec
		fail         []int  // the LOADs whose rows fail verification
	}{
		{"floats", "blur", "", "", nil},
		{"floats, other values in the 2D image", "blur", `"Image2D", "FillType": "Random", "RandomSeed": 7`, `"Image2D", "FillType": "Random", "RandomSeed": 8`, []int{1}},
		{"RGBA", "rgba", "", "", nil},
		{"RGBA, other bytes in the image", "rgba", `"uchar4", "Size": ["ProblemSize[0]", "ProblemSize[1]"], "MemoryType": "Image2D", "FillType": "Random", "FillValue": 256, "RandomSeed": 3`,
			`"uchar4", "Size": ["ProblemSize[0]", "ProblemSize[1]"], "MemoryType": "Image2D", "FillType": "Random", "FillValue": 256, "RandomSeed": 9`, []int{1, 3}},
		{"RGBA, other floats in the image", "rgba", `"Image2D", "FillType": "Random", "RandomSeed": 4`, `"Image2D", "FillType": "Random", "RandomSeed": 9`, []int{2, 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			src, _ := os.ReadFile("testdata/specimage/" + tc.kernel + ".cl")
			os.WriteFile(filepath.Join(dir, tc.kernel+".cl"), src, 0o644)
			raw, _ := os.ReadFile("testdata/specimage/" + tc.kernel + ".json")
			if tc.old != "" && !strings.Contains(string(raw), tc.old) {
				t.Fatalf("the spec lacks %s", tc.old)
			}
			raw = []byte(strings.Replace(string(raw), tc.old, tc.new, 1))
			os.WriteFile(filepath.Join(dir, tc.kernel+".json"), raw, 0o644)
			k, err := datasets.ReadSpec(filepath.Join(dir, tc.kernel+".json"))
			if err != nil {
				t.Fatal(err)
			}
			rows := collectAll(t, k, []features.Task{{64, 16}, {100, 30}})
			load := k.Space.Param("LOAD")
			for _, r := range rows {
				want := record.StatusOK
				if slices.Contains(tc.fail, r.Config[load]) {
					want = record.StatusVerifyError
				}
				if r.Status != want {
					t.Errorf("%v %s: %s (%s), want %s", r.Task, k.Space.Format(r.Config), r.Status, r.Error, want)
				}
			}
		})
	}
}

// TestRunSpecOutputs checks outputs of other kinds than float buffers,
// each spec's MODE 0 and 1 writing the same values two ways, 2 leaving a
// value unwritten and 3 writing another. Images the kernel writes, of
// floats and of RGBA bytes (imgout): both are read back and compared with
// the reference configuration's, the float image starting as NaN. Half
// buffers read with vload_half and written with vstore_half (halfio): the
// output starts as NaN halves. A spec whose only outputs are images needs
// no Vector.
func TestRunSpecOutputs(t *testing.T) {
	skipWithoutDevice(t)
	for _, tc := range []struct {
		spec  string
		tasks []features.Task
		fail  map[int]string // MODE: what its rows' error says
	}{
		{"testdata/specimage/imgout.json", []features.Task{{64, 16}, {100, 30}}, map[int]string{2: "output 0", 3: "output 1"}},
		{"testdata/specimage/intimg.json", []features.Task{{64, 16}, {100, 30}}, map[int]string{2: "output 0", 3: "output 1"}},
		{"testdata/specimage/bufout.json", []features.Task{{1000}, {4096}}, map[int]string{2: "NaN", 3: "output 0"}},
		{"testdata/specimage/layers.json", []features.Task{{32, 16, 3}, {100, 30, 7}}, map[int]string{2: "NaN"}},
		{"testdata/specimage/volume.json", []features.Task{{32, 16, 8}, {100, 30, 5}}, map[int]string{2: "output 0", 3: "output 1"}},
		{"testdata/spechalf/halfio.json", []features.Task{{1000}, {4096}}, map[int]string{2: "NaN", 3: "differ"}},
	} {
		t.Run(filepath.Base(tc.spec), func(t *testing.T) {
			k, err := datasets.ReadSpec(tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			mode := k.Space.Param("MODE")
			for _, r := range collectAll(t, k, tc.tasks) {
				want, says := record.StatusOK, ""
				if m, ok := tc.fail[r.Config[mode]]; ok {
					want, says = record.StatusVerifyError, m
				}
				if r.Status != want || !strings.Contains(r.Error, says) {
					t.Errorf("%v %s: %s (%s), want %s naming %q", r.Task, k.Space.Format(r.Config), r.Status, r.Error, want, says)
				}
			}
		})
	}
}

// TestRunSpecImageTooLarge checks a shape whose 2D image is beyond the
// device's largest: the shape is skipped with a line naming the image and
// the device's limit, and a run whose every shape was skipped is an error.
func TestRunSpecImageTooLarge(t *testing.T) {
	skipWithoutDevice(t)
	for _, tc := range []struct {
		name, spec string
		tasks      []features.Task
		fails      bool
		says       string
	}{
		{"every shape", "blur.json", []features.Task{{70000, 4}}, true, "image img is 70000 x 4 pixels, beyond the device's largest 2D image"},
		{"one shape of two", "blur.json", []features.Task{{70000, 4}, {64, 16}}, false, "image img is 70000 x 4 pixels, beyond the device's largest 2D image"},
		{"3D", "volume.json", []features.Task{{8, 4, 70000}, {8, 4, 2}}, false, "image vol is 8 x 4 x 70000 pixels, beyond the device's largest 3D image"},
		{"array", "layers.json", []features.Task{{8, 4, 70000}, {8, 4, 2}}, false, "image maps is 8 x 4 x 70000 pixels, beyond the device's largest 2D image array"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k, err := datasets.ReadSpec(filepath.Join("testdata/specimage", tc.spec))
			if err != nil {
				t.Fatal(err)
			}
			opt := Options{Tasks: tc.tasks, Sample: "random:2", Repeats: 1, Progress: io.Discard, Log: io.Discard}
			sum, err := Run(context.Background(), k, t.TempDir(), opt)
			if tc.fails != errors.Is(err, ErrNoShape) {
				t.Fatalf("error %v; want ErrNoShape: %v", err, tc.fails)
			}
			if sum == nil || len(sum.TaskErrors) != 1 || !strings.Contains(sum.TaskErrors[0], tc.says) {
				t.Errorf("summary %v, want one skipped shape saying %q", sum, tc.says)
			}
			if !tc.fails && sum.Rows() == 0 {
				t.Error("the shape that fits wrote no rows")
			}
		})
	}
}

// TestRunSpecHalfImages: a spec reading and writing half images, its
// outputs checked against ReferenceArguments, either runs and verifies or,
// on a device that reads or writes such images wrong (PoCL 5.0), has its
// shape skipped with a line saying so: never rows timed on wrong values
// and verified against a reference as wrong.
func TestRunSpecHalfImages(t *testing.T) {
	skipWithoutDevice(t)
	k, err := datasets.ReadSpec("testdata/spechalf/himg.json")
	if err != nil {
		t.Fatal(err)
	}
	opt := Options{Tasks: []features.Task{{64, 16}}, Sample: "all", Repeats: 1, Progress: io.Discard, Log: io.Discard}
	sum, err := Run(context.Background(), k, t.TempDir(), opt)
	switch {
	case errors.Is(err, ErrNoShape):
		if len(sum.TaskErrors) != 1 || !strings.Contains(sum.TaskErrors[0], "reads or writes half images (CL_HALF_FLOAT) wrong") {
			t.Errorf("skipped for %q, want the half images' probe", sum.TaskErrors)
		}
	case err != nil:
		t.Fatal(err)
	default:
		if sum.Counts[record.StatusOK] != sum.Rows() || sum.Rows() == 0 {
			t.Errorf("rows %v on a device whose half images passed the probe, want every one ok", sum.Counts)
		}
	}
}
