package features

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"
)

var names = []string{"width", "height", "filter_w", "filter_h"}

func TestParseTask(t *testing.T) {
	tests := []struct {
		text string
		want Task
		err  error
	}{
		{"width=1024,height=768,filter_w=5,filter_h=3", Task{1024, 768, 5, 3}, nil},
		{" filter_h=3 , filter_w=5,height=768,width=1024", Task{1024, 768, 5, 3}, nil},
		{"width=1024,height=768,filter_w=5", nil, ErrSyntax},
		{"width=1024,height=768,filter_w=5,filter_h=3,depth=2", nil, ErrUnknownName},
		{"width=1024,height=768,filter_w=5,filter_h=x", nil, ErrSyntax},
		{"width=1,width=2", nil, ErrSyntax},
		{"", nil, ErrSyntax},
	}
	for _, tt := range tests {
		got, err := ParseTask(names, tt.text)
		if !errors.Is(err, tt.err) && !(err == nil && tt.err == nil) {
			t.Errorf("ParseTask(%q) error = %v, want %v", tt.text, err, tt.err)
			continue
		}
		if tt.err == nil && got.Key() != tt.want.Key() {
			t.Errorf("ParseTask(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
}

// TestParseTaskMisspelt checks that a misspelt name is named, not only
// the name it stands for.
func TestParseTaskMisspelt(t *testing.T) {
	_, err := ParseTask(names, "widht=1024,height=768,filter_w=5,filter_h=3")
	if !errors.Is(err, ErrSyntax) || !strings.Contains(err.Error(), `lacks width and names "widht"`) {
		t.Errorf("ParseTask with a misspelt name: %v", err)
	}
}

func TestParseTasks(t *testing.T) {
	got, err := ParseTasks(names, "width=64,height=64,filter_w=3,filter_h=3;width=128,height=32,filter_w=7,filter_h=7;")
	if err != nil || len(got) != 2 || got[1][0] != 128 {
		t.Errorf("ParseTasks = %v, %v; want two shapes, the second 128 wide", got, err)
	}
}

func FuzzParseTask(f *testing.F) {
	f.Add("width=1024,height=768,filter_w=5,filter_h=3")
	f.Add("width=-1,height=0,filter_w=5,filter_h=3;")
	f.Fuzz(func(t *testing.T, text string) {
		task, err := ParseTask(names, text)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error spans lines: %q", err)
			}
			return
		}
		again, err := ParseTask(names, FormatTask(names, task))
		if err != nil || again.Key() != task.Key() {
			t.Fatalf("round trip of %q: %v, %v", text, again, err)
		}
	})
}

func TestBundleRoundTrip(t *testing.T) {
	s := testSpace(t)
	b := &Bundle{
		Kernel: "k", KernelVersion: "v", TaskNames: names[:2],
		Params: s.Params, Constraints: s.Constraints,
		Features: NewEncoder(names[:2], s).Names(), Reference: Config{8, 1, 1},
		Models: []Model{{Name: "fleet", Kind: "gbrt", LightGBM: "tree"}},
	}
	var buf bytes.Buffer
	if err := WriteBundle(&buf, b); err != nil {
		t.Fatal(err)
	}
	got, err := ReadBundle(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if got.Kernel != "k" || !got.Reference.Equal(b.Reference) || got.Models[0].LightGBM != "tree" {
		t.Errorf("round trip = %+v", got)
	}
	broken := map[string]func(*Bundle){
		"feature names": func(b *Bundle) { b.Features = b.Features[1:] },
		"reference":     func(b *Bundle) { b.Reference = Config{32, 4, 1} },
		"no models":     func(b *Bundle) { b.Models = nil },
	}
	for name, breakIt := range broken {
		c := *b
		breakIt(&c)
		buf.Reset()
		if err := WriteBundle(&buf, &c); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadBundle(buf.Bytes()); !errors.Is(err, ErrSyntax) {
			t.Errorf("%s: ReadBundle error = %v, want ErrSyntax", name, err)
		}
	}
	if _, err := ReadBundle([]byte(`{"format":99}`)); err == nil {
		t.Error("ReadBundle accepted format 99")
	}
}

func TestEncoder(t *testing.T) {
	s := testSpace(t)
	e := NewEncoder(names, s)
	p := Platform{ComputeUnits: 2, Type: "gpu"}
	dst := make([]float64, e.Len())
	e.Encode(dst, Task{1, 2, 3, 4}, Config{8, 2, 1}, p.Vector())
	n := e.Names()
	if n[0] != "task.width" || n[4] != "param.wg" || n[7] != "platform.compute_units" {
		t.Errorf("Names = %v", n)
	}
	if dst[0] != 1 || dst[4] != 8 || dst[5] != 2 || dst[7] != 2 {
		t.Errorf("Encode = %v", dst)
	}
	if err := e.Check(Task{1}, Config{8, 2, 1}, p.Vector()); err == nil {
		t.Error("Check accepted a short task")
	}
	// An encoder of a bundle written before the measured platform
	// features takes the first ten.
	legacy := e
	legacy.PlatformFeatures = LegacyPlatformFeatures
	if got, want := legacy.Len(), e.Len()-(len(PlatformNames())-LegacyPlatformFeatures); got != want {
		t.Errorf("legacy Len = %d, want %d", got, want)
	}
	if n := legacy.Names(); n[len(n)-1] != "platform.is_gpu" {
		t.Errorf("legacy Names end with %q, want platform.is_gpu", n[len(n)-1])
	}
	if err := legacy.Check(Task{1, 2, 3, 4}, Config{8, 2, 1}, p.Vector()); err == nil {
		t.Error("legacy Check accepted the full platform vector")
	}
	if err := legacy.Check(Task{1, 2, 3, 4}, Config{8, 2, 1}, legacy.PlatformVector(p)); err != nil {
		t.Errorf("legacy Check of its own platform vector: %v", err)
	}
}

func TestPlatformVector(t *testing.T) {
	p := Platform{Type: "gpu", ComputeUnits: 132, LocalMemBytes: 48 << 10, GlobalMemBytes: 80 << 30, ImageSupport: true,
		GlobalBandwidthGBs: 3000, FP32GFLOPs: 50000, LocalBandwidthGBs: 30000, LaunchOverheadUs: 5}
	v := p.Vector()
	if len(v) != len(PlatformNames()) {
		t.Fatalf("Vector has %d values, PlatformNames %d", len(v), len(PlatformNames()))
	}
	tests := []struct {
		name string
		want float64
	}{
		{"compute_units", 132}, {"local_mem_kib", 48}, {"global_mem_gib", 80}, {"image_support", 1}, {"is_gpu", 1},
		{"global_bw_gbs", 3000}, {"fp32_gflops", 50000}, {"local_bw_gbs", 30000}, {"launch_us", 5},
	}
	for _, tt := range tests {
		i := PlatformIndex(tt.name)
		if i < 0 || v[i] != tt.want {
			t.Errorf("%s (index %d) = %v, want %v", tt.name, i, v, tt.want)
		}
	}
	// The measured features come after the legacy ten, whose positions
	// old models rely on.
	if i := PlatformIndex("global_bw_gbs"); i != LegacyPlatformFeatures {
		t.Errorf("global_bw_gbs at %d, want %d", i, LegacyPlatformFeatures)
	}
}

func TestFillMeasured(t *testing.T) {
	spec := Platform{Name: "spec", ComputeUnits: 99, GlobalBandwidthGBs: 900, FP32GFLOPs: 20000, LocalBandwidthGBs: 8000, LaunchOverheadUs: 4}
	tests := []struct {
		name string
		p    Platform
		want Platform
	}{
		{"unmeasured", Platform{Name: "gpu", ComputeUnits: 8},
			Platform{Name: "gpu", ComputeUnits: 8, GlobalBandwidthGBs: 900, FP32GFLOPs: 20000, LocalBandwidthGBs: 8000, LaunchOverheadUs: 4}},
		{"partly measured", Platform{Name: "gpu", GlobalBandwidthGBs: 700, LaunchOverheadUs: 6},
			Platform{Name: "gpu", GlobalBandwidthGBs: 700, FP32GFLOPs: 20000, LocalBandwidthGBs: 8000, LaunchOverheadUs: 6}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.p.FillMeasured(spec); got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestSlug(t *testing.T) {
	tests := []struct {
		p    Platform
		want string
	}{
		{Platform{PlatformName: "NVIDIA CUDA", Name: "NVIDIA H100 80GB HBM3", Type: "gpu"}, "nvidia-h100-80gb-hbm3"},
		{Platform{PlatformName: "Portable Computing Language", Name: "pthread-skylake-avx512-AMD EPYC", Type: "cpu"}, "pocl-cpu-pthread-skylake-avx512-amd-epyc"},
		{Platform{}, "unknown-device"},
	}
	for _, tt := range tests {
		if got := tt.p.Slug(); got != tt.want {
			t.Errorf("Slug(%q) = %q, want %q", tt.p.Name, got, tt.want)
		}
	}
}

func TestShapeLines(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []string
	}{
		{"lines, comments and blanks", "# ours\na=1\n\n  a=2 # big\na=3;a=4\r\n", []string{"a=1", "a=2", "a=3", "a=4"}},
		{"no final newline", "a=1", []string{"a=1"}},
		{"only comments", "# a=1\n#\n", nil},
		{"empty shapes between separators", ";;a=1;\n;", []string{"a=1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ShapeLines(tc.in); !slices.Equal(got, tc.want) {
				t.Errorf("ShapeLines(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func FuzzShapeLines(f *testing.F) {
	f.Add("# ours\na=1\n\n  a=2 # big\na=3;a=4\n")
	f.Add("")
	f.Fuzz(func(t *testing.T, in string) {
		for _, s := range ShapeLines(in) {
			if s == "" || strings.ContainsAny(s, "#;\n") || s != strings.TrimSpace(s) {
				t.Errorf("ShapeLines(%q) gave %q: empty, untrimmed, or a comment, separator or newline left", in, s)
			}
		}
	})
}

func TestAliasProblemSizes(t *testing.T) {
	for _, tc := range []struct {
		name  string
		names []string
		in    string
		want  string
	}{
		{"renamed", []string{"width", "height"}, "problem_size_0=10, problem_size_1=20;height=5,problem_size_0=7", "width=10,height=20;height=5,width=7"},
		{"names kept", []string{"width", "height"}, "width=10,height=20", "width=10,height=20"},
		{"a name that is an alias keeps its field", []string{"n", "problem_size_0"}, "problem_size_0=3,n=4", "problem_size_0=3,n=4"},
		{"beyond the names", []string{"n"}, "problem_size_1=3", "problem_size_1=3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := AliasProblemSizes(tc.names, tc.in); got != tc.want {
				t.Errorf("AliasProblemSizes(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}
