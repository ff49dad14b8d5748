package features_test

import (
	"bytes"
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/augur-tuning/augur/features"
)

const testBundle = "../testdata/conv2d-pocl.augur"

// TestReadBundleDamaged changes one digit at several places of a real
// bundle: every change is refused with ErrChecksum, never read as data.
func TestReadBundleDamaged(t *testing.T) {
	data, err := os.ReadFile(testBundle)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := features.ReadBundle(data); err != nil {
		t.Fatalf("intact bundle: %v", err)
	}
	changed := 0
	for i := len(data) / 7; i < len(data) && changed < 40; i += len(data) / 50 {
		j := bytes.IndexAny(data[i:], "123456789")
		if j < 0 {
			break
		}
		bad := bytes.Clone(data)
		bad[i+j] = '0' + (bad[i+j]-'0'+1)%10
		changed++
		if _, err := features.ReadBundle(bad); !errors.Is(err, features.ErrChecksum) {
			t.Errorf("digit at byte %d changed: err = %v, want ErrChecksum", i+j, err)
		}
	}
	if changed < 10 {
		t.Fatalf("changed only %d digits", changed)
	}
}

func FuzzReadBundle(f *testing.F) {
	// Small seeds: a whole bundle (1.7 MB) stalls Go's minimization, and
	// its checksum turns nearly every mutation away at the door anyway.
	f.Add([]byte(`{"format":2,"kernel":"k","params":[{"name":"a","values":[1,2]}],"task_names":["n"],"reference":[1],"models":[]}`))
	// A small bundle with a nearest-shape table, its checksum right.
	var withRule bytes.Buffer
	if err := features.WriteBundle(&withRule, &features.Bundle{Format: features.BundleFormat, Kernel: "k",
		Params: []features.Param{{Name: "a", Values: []int{1, 2}}}, TaskNames: []string{"n"}, Reference: features.Config{1},
		Features: append([]string{"task.n", "param.a"}, features.ClassFeatures(nil, nil)...),
		Models: []features.Model{{Name: "d", Kind: "gbrt", Target: "log_speedup", Consensus: &features.Consensus{
			ConsensusRule: features.ConsensusRule{Candidates: 3, Nearest: 5, Tau: 1, Unlisted: 0.1},
			Shapes:        []features.Task{{64}}, Configs: [][]int{{0, 1}}, Speeds: [][]float64{{1, 0.5}},
			Pool: []features.Config{{2}, {1}}}}}}); err != nil {
		f.Fatal(err)
	}
	if _, err := features.ReadBundle(withRule.Bytes()); err != nil {
		f.Fatalf("the seed with a nearest-shape table does not read back: %v", err)
	}
	f.Add(withRule.Bytes())
	// One with a fixed configuration.
	var withFixed bytes.Buffer
	if err := features.WriteBundle(&withFixed, &features.Bundle{Format: features.BundleFormat, Kernel: "k",
		Params: []features.Param{{Name: "a", Values: []int{1, 2}}}, TaskNames: []string{"n"}, Reference: features.Config{1},
		Features: append([]string{"task.n", "param.a"}, features.ClassFeatures(nil, nil)...),
		Models:   []features.Model{{Name: "d", Kind: "gbrt", Target: "log_speedup", Fixed: &features.FixedPick{Config: features.Config{2}}}}}); err != nil {
		f.Fatal(err)
	}
	f.Add(withFixed.Bytes())
	f.Add([]byte(`{"format":2}`))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := features.ReadBundle(data)
		if err != nil {
			return
		}
		s, err := b.Space()
		if err != nil {
			t.Fatalf("ReadBundle accepted a bundle whose space fails: %v", err)
		}
		for _, m := range b.Models {
			if m.Fixed != nil && !s.Valid(m.Fixed.Config) {
				t.Fatalf("ReadBundle accepted a fixed configuration %v outside the space", m.Fixed.Config)
			}
			c := m.Consensus
			if c == nil {
				continue
			}
			for i, idx := range c.Configs {
				for j, k := range idx {
					if k < 0 || k >= len(c.Pool) || !(c.Speeds[i][j] > 0 && c.Speeds[i][j] <= 1) {
						t.Fatalf("ReadBundle accepted a nearest-shape table with index %d of %d, speed %g", k, len(c.Pool), c.Speeds[i][j])
					}
				}
			}
		}
	})
}

// TestBundleClassifiers writes bundles with a classifier and checks that
// ReadBundle keeps a valid one and refuses one that does not fit the
// kernel.
func TestBundleClassifiers(t *testing.T) {
	data, err := os.ReadFile("../testdata/conv2d-pocl.augur")
	if err != nil {
		t.Fatal(err)
	}
	valid := func() features.Classifier {
		return features.Classifier{Param: "LS", Classes: []int{0, 1, 2}, Kind: "forest",
			Features: features.ClassFeatures([]string{"width", "height", "filter_w", "filter_h"}, nil), LightGBM: "text"}
	}
	for _, tt := range []struct {
		name   string
		change func(cs []features.Classifier) []features.Classifier
		want   string // "" for a valid bundle
	}{
		{"valid", func(cs []features.Classifier) []features.Classifier { return cs }, ""},
		{"no such parameter", func(cs []features.Classifier) []features.Classifier { cs[0].Param = "XX"; return cs }, "no such parameter"},
		{"other classes", func(cs []features.Classifier) []features.Classifier { cs[0].Classes = []int{0, 2}; return cs }, "classes"},
		{"other features", func(cs []features.Classifier) []features.Classifier { cs[0].Features = cs[0].Features[1:]; return cs }, "features"},
		{"twice", func(cs []features.Classifier) []features.Classifier { return append(cs, cs[0]) }, "two classifiers"},
		{"legacy platform features", func(cs []features.Classifier) []features.Classifier {
			cs[0].Features = cs[0].Features[:4+features.LegacyPlatformFeatures]
			return cs
		}, ""},
		{"too few platform features", func(cs []features.Classifier) []features.Classifier {
			cs[0].Features = cs[0].Features[:4+features.LegacyPlatformFeatures-1]
			return cs
		}, "9 platform features"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b, err := features.ReadBundle(data)
			if err != nil {
				t.Fatal(err)
			}
			b.Classifiers = tt.change([]features.Classifier{valid()})
			var buf bytes.Buffer
			if err := features.WriteBundle(&buf, b); err != nil {
				t.Fatal(err)
			}
			got, err := features.ReadBundle(buf.Bytes())
			if tt.want == "" {
				if err != nil {
					t.Fatalf("ReadBundle: %v", err)
				}
				if len(got.Classifiers) != 1 || got.Classifiers[0].Param != "LS" {
					t.Errorf("read back classifiers %+v", got.Classifiers)
				}
				return
			}
			if !errors.Is(err, features.ErrSyntax) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("ReadBundle = %v, want ErrSyntax containing %q", err, tt.want)
			}
		})
	}
}

// TestBundlePlatformFeatures checks which platform features a bundle's
// models may take: the first ten (a bundle written before the measured
// features), all of them (one written now), or any count between, in
// PlatformNames' order; anything else is refused.
func TestBundlePlatformFeatures(t *testing.T) {
	data, err := os.ReadFile(testBundle)
	if err != nil {
		t.Fatal(err)
	}
	all := features.PlatformNames()
	with := func(names []string) func([]string) []string {
		return func(fs []string) []string {
			fs = fs[:len(fs)-features.LegacyPlatformFeatures]
			for _, n := range names {
				fs = append(fs, "platform."+n)
			}
			return fs
		}
	}
	swapped := append([]string(nil), all...)
	swapped[0], swapped[1] = swapped[1], swapped[0]
	tests := []struct {
		name   string
		change func([]string) []string
		want   int    // platform features the encoder takes
		err    string // "" for a valid bundle
	}{
		{"legacy", func(fs []string) []string { return fs }, features.LegacyPlatformFeatures, ""},
		{"all", with(all), len(all), ""},
		{"one measured", with(all[:features.LegacyPlatformFeatures+1]), features.LegacyPlatformFeatures + 1, ""},
		{"too few", with(all[:features.LegacyPlatformFeatures-1]), 0, "9 platform features"},
		{"other order", with(swapped), 0, `"platform.clock_mhz", want "platform.compute_units"`},
		{"unknown", with(append(all[:features.LegacyPlatformFeatures:features.LegacyPlatformFeatures], "warp_size")), 0, `"platform.warp_size", want "platform.global_bw_gbs"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := features.ReadBundle(data)
			if err != nil {
				t.Fatal(err)
			}
			b.Features = tt.change(b.Features)
			var buf bytes.Buffer
			if err := features.WriteBundle(&buf, b); err != nil {
				t.Fatal(err)
			}
			got, err := features.ReadBundle(buf.Bytes())
			if tt.err != "" {
				if !errors.Is(err, features.ErrSyntax) || !strings.Contains(err.Error(), tt.err) {
					t.Errorf("ReadBundle = %v, want ErrSyntax containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("ReadBundle: %v", err)
			}
			enc, err := got.Encoder(stubDeriver{got.Derived, got.DerivedNames()})
			if err != nil {
				t.Fatal(err)
			}
			if enc.NumPlatform() != tt.want || strings.Join(enc.Names(), ",") != strings.Join(got.Features, ",") {
				t.Errorf("encoder takes %d platform features, names %v; want %d, the bundle's %v", enc.NumPlatform(), enc.Names(), tt.want, got.Features)
			}
			if pv := enc.PlatformVector(features.Platform{ComputeUnits: 3}); len(pv) != tt.want || pv[0] != 3 {
				t.Errorf("PlatformVector = %v, want %d values starting with 3", pv, tt.want)
			}
		})
	}
}

// stubDeriver names derived features without computing them, for tests
// of a bundle's layout.
type stubDeriver struct {
	id    string
	names []string
}

func (d stubDeriver) ID() string                                                            { return d.id }
func (d stubDeriver) Names() []string                                                       { return d.names }
func (d stubDeriver) Derive(dst []float64, _ features.Task, _ features.Config, _ []float64) {}

// TestWriteBundleFile writes a bundle over an existing file, reads it
// back, and checks that a failed write leaves the old file alone and no
// temporary file behind.
func TestWriteBundleFile(t *testing.T) {
	data, err := os.ReadFile(testBundle)
	if err != nil {
		t.Fatal(err)
	}
	b, err := features.ReadBundle(data)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "k.augur")
	os.WriteFile(path, []byte("old"), 0o644)
	if err := features.WriteBundleFile(path, b); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if back, err := features.ReadBundle(got); err != nil || back.Kernel != b.Kernel || len(back.Models) != len(b.Models) {
		t.Errorf("read back: %v, kernel %q; want kernel %q with %d models", err, back.Kernel, b.Kernel, len(b.Models))
	}

	// A bundle that JSON cannot encode must not replace the file.
	b.Models[0].Stats = map[string]float64{"bad": math.NaN()}
	if err := features.WriteBundleFile(path, b); err == nil {
		t.Fatal("WriteBundleFile wrote a NaN")
	}
	if now, _ := os.ReadFile(path); !bytes.Equal(now, got) {
		t.Errorf("a failed write changed %s", path)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("a failed write left %d files in the directory, want 1", len(entries))
	}
}

func TestReadBundleFile(t *testing.T) {
	b, err := features.ReadBundleFile(testBundle)
	if err != nil || b.Kernel != "conv2d" {
		t.Fatalf("ReadBundleFile(%s): kernel %v, %v; want conv2d", testBundle, b, err)
	}
	dir := t.TempDir()
	damaged := filepath.Join(dir, "damaged.augur")
	os.WriteFile(damaged, []byte(`{"format":2}`), 0o644)
	for _, tt := range []struct {
		path   string
		is     error
		prefix string
	}{
		{filepath.Join(dir, "missing.augur"), fs.ErrNotExist, "open " + dir},
		{damaged, nil, damaged + ": features: "},
	} {
		_, err := features.ReadBundleFile(tt.path)
		if err == nil || !strings.HasPrefix(err.Error(), tt.prefix) || (tt.is != nil && !errors.Is(err, tt.is)) {
			t.Errorf("ReadBundleFile(%s): got %v, want an error starting %q", tt.path, err, tt.prefix)
		}
	}
}

// rewrite writes b and reads it back: the bundle ReadBundle makes of it,
// or its error.
func rewrite(t *testing.T, b *features.Bundle) (*features.Bundle, error) {
	t.Helper()
	var buf bytes.Buffer
	if err := features.WriteBundle(&buf, b); err != nil {
		t.Fatal(err)
	}
	return features.ReadBundle(buf.Bytes())
}

// TestBundleFixed: a model's fixed configuration reads back when it is in
// the space, and a bundle whose fixed configuration is not is refused.
func TestBundleFixed(t *testing.T) {
	for _, tc := range []struct {
		name  string
		fixed features.Config
		ok    bool
	}{
		{"in the space", features.Config{2}, true},
		{"a value the space lacks", features.Config{3}, false},
		{"too many values", features.Config{1, 2}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			err := features.WriteBundle(&buf, &features.Bundle{Format: features.BundleFormat, Kernel: "k",
				Params: []features.Param{{Name: "a", Values: []int{1, 2}}}, TaskNames: []string{"n"}, Reference: features.Config{1},
				Features: append([]string{"task.n", "param.a"}, features.ClassFeatures(nil, nil)...),
				Models: []features.Model{{Name: "d", Kind: "gbrt", Target: "log_speedup",
					Fixed: &features.FixedPick{Config: tc.fixed, PctGeomean: 97, PctWorst: 91, ModelPctGeomean: 95}}}})
			if err != nil {
				t.Fatal(err)
			}
			b, err := features.ReadBundle(buf.Bytes())
			switch {
			case tc.ok && (err != nil || !b.Models[0].Fixed.Config.Equal(tc.fixed) || b.Models[0].Fixed.PctGeomean != 97):
				t.Errorf("read back %+v (%v), want the fixed configuration %v", b, err, tc.fixed)
			case !tc.ok && !errors.Is(err, features.ErrSyntax):
				t.Errorf("err = %v, want ErrSyntax", err)
			}
		})
	}
}

// TestReadBundleNotABundle checks that files which are no bundle get a
// message saying what they are: empty, cut short, another kind of file,
// or damaged JSON.
func TestReadBundleNotABundle(t *testing.T) {
	whole, err := os.ReadFile("../testdata/conv2d-h200.augur")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, data, want string
	}{
		{"empty", "  \n", "the file is empty"},
		{"cut short", string(whole[:len(whole)/2]), "a truncated model bundle"},
		{"another file", "ARROW1\x00\x00...", "does not start with '{'"},
		{"damaged", `{"format": 2,, "models": []}`, "a damaged model bundle: JSON syntax error at byte"},
	} {
		_, err := features.ReadBundle([]byte(c.data))
		if !errors.Is(err, features.ErrSyntax) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want ErrSyntax saying %q", c.name, err, c.want)
		}
	}
}
