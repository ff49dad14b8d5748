package runtime_test

import (
	"bytes"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/predict"
	"github.com/augur-tuning/augur/runtime"
)

// poclSlug is the name of testBundle's only model.
const poclSlug = "pocl-cpu-pthread-skylake-avx512-amd-epyc"

// rebundle returns testBundle changed by edit, written again with a fresh
// checksum.
func rebundle(t testing.TB, edit func(b *features.Bundle)) []byte {
	t.Helper()
	data, err := os.ReadFile(testBundle)
	if err != nil {
		t.Fatal(err)
	}
	b, err := features.ReadBundle(data)
	if err != nil {
		t.Fatal(err)
	}
	edit(b)
	var buf bytes.Buffer
	if err := features.WriteBundle(&buf, b); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// h200 is a device testBundle has no data of.
var h200 = features.Platform{PlatformName: "NVIDIA CUDA", Vendor: "NVIDIA Corporation", Name: "NVIDIA H200",
	Type: "gpu", ComputeUnits: 132, ClockMHz: 1980, MaxWorkGroupSize: 1024, MaxWorkItemSizes: [3]int{1024, 1024, 64},
	LocalMemBytes: 48 << 10, GlobalMemBytes: 140 << 30, ConstantMemBytes: 64 << 10, GlobalCacheBytes: 4 << 20, CacheLineBytes: 128}

// fleetBundle holds three models, all testBundle's trees: PoCL's own, one
// labelled as the H200's, and a fleet model (no platform).
func fleetBundle(t testing.TB, withFleet bool) []byte {
	return rebundle(t, func(b *features.Bundle) {
		pocl := b.Models[0]
		nv := pocl
		nv.Name, nv.Platform = "nvidia-h200", &h200
		b.Models = append(b.Models, nv)
		if withFleet {
			fleet := pocl
			fleet.Name, fleet.Platform = "fleet", nil
			b.Models = append(b.Models, fleet)
		}
	})
}

func TestDeviceFallback(t *testing.T) {
	single, _ := os.ReadFile(testBundle)
	several, noFleet := fleetBundle(t, true), fleetBundle(t, false)
	other := h200
	other.Name = "Some Future GPU"
	tests := []struct {
		name   string
		bundle []byte
		opt    runtime.Options
		source string // "" when New must fail
		model  string
	}{
		{"own model by slug", several, runtime.Options{Device: poclSlug}, "model:" + poclSlug, poclSlug},
		{"own model by slug, any case", several, runtime.Options{Device: "NVIDIA-H200"}, "model:nvidia-h200", "nvidia-h200"},
		{"own model by device name", several, runtime.Options{Device: "nvidia h200"}, "model:nvidia-h200", "nvidia-h200"},
		{"own model by platform", several, runtime.Options{Platform: &h200}, "model:nvidia-h200", "nvidia-h200"},
		{"fleet with the platform", several, runtime.Options{Platform: &other}, "fleet", "fleet"},
		{"unknown name, no platform: reference", several, runtime.Options{Device: "Some Future GPU"}, "reference", ""},
		// A name the shipped device table knows gives its features, as
		// ResolveDevice would: the fleet model serves it.
		{"a name of the device table", several, runtime.Options{Device: "NVIDIA A100-PCIE-40GB"}, "fleet", "fleet"},
		{"unknown platform, no fleet: reference", noFleet, runtime.Options{Platform: &other}, "reference", ""},
		{"unknown device, the only model", single, runtime.Options{Device: "Some Future GPU"}, "model:" + poclSlug, poclSlug},
		{"unknown platform, the only model", single, runtime.Options{Platform: &other}, "model:" + poclSlug, poclSlug},
		{"no device: the fleet", several, runtime.Options{}, "fleet", "fleet"},
		{"no device: the only model", single, runtime.Options{}, "model:" + poclSlug, poclSlug},
		{"no device, several models, no fleet", noFleet, runtime.Options{}, "", ""},
		{"Model overrides Device", several, runtime.Options{Model: "nvidia-h200", Device: poclSlug}, "model:nvidia-h200", "nvidia-h200"},
		{"Model names the fleet", several, runtime.Options{Model: "fleet", Platform: &h200}, "fleet", "fleet"},
		{"Model unknown", several, runtime.Options{Model: "no-such-device"}, "", ""},
	}
	shape := features.Task{800, 600, 5, 5}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ch, err := runtime.New(tt.bundle, tt.opt)
			if tt.source == "" {
				if !errors.Is(err, predict.ErrNoModel) {
					t.Fatalf("New: err = %v, want predict.ErrNoModel", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			p, err := ch.ChoosePick(shape)
			if err != nil {
				t.Fatal(err)
			}
			if p.Source != tt.source || p.Model != tt.model || ch.Source() != tt.source {
				t.Errorf("Source, Model = %q, %q; want %q, %q", p.Source, p.Model, tt.source, tt.model)
			}
			if tt.source == runtime.SourceReference {
				if !p.Config.Equal(ch.Reference()) || ch.Model() != nil {
					t.Errorf("reference pick = %v, Model() = %v; want the reference %v and no model", p.Config, ch.Model(), ch.Reference())
				}
				if _, err := ch.Predict(shape, p.Config); err == nil {
					t.Error("Predict without a model: no error")
				}
			}
		})
	}
}

// TestFleetPlatform checks that the fleet model sees the device's platform
// features: the fleet model here is PoCL's own trees, so with PoCL's
// platform it must predict what PoCL's model predicts, and with no
// platform (zeros: one compute unit, no local memory limit in the derived
// features) something else.
func TestFleetPlatform(t *testing.T) {
	data := fleetBundle(t, true)
	b, err := features.ReadBundle(data)
	if err != nil {
		t.Fatal(err)
	}
	renamed := *b.Models[0].Platform
	renamed.Name = "PoCL under another name"
	newChooser := func(opt runtime.Options) *runtime.Chooser {
		ch, err := runtime.New(data, opt)
		if err != nil {
			t.Fatal(err)
		}
		return ch
	}
	own, fleet, blind := newChooser(runtime.Options{Device: poclSlug}), newChooser(runtime.Options{Platform: &renamed}), newChooser(runtime.Options{Model: "fleet"})
	if fleet.Source() != runtime.SourceFleet || blind.Source() != runtime.SourceFleet {
		t.Fatalf("sources %q, %q; want fleet", fleet.Source(), blind.Source())
	}
	differ := 0
	configs := []features.Config{own.Reference(), {16, 16, 2, 2, 1, 2, 1, 1}, {32, 8, 4, 1, 2, 4, 0, 1}, {64, 64, 8, 8, 1, 8, 1, 0}}
	for _, s := range []features.Task{{256, 256, 3, 3}, {2048, 2048, 9, 9}, {16384, 16, 11, 11}} {
		for _, c := range configs {
			want, _ := own.Predict(s, c)
			if got, _ := fleet.Predict(s, c); got != want {
				t.Errorf("fleet with PoCL's platform: Predict(%v, %v) = %g, PoCL's model %g", s, c, got, want)
			}
			if got, _ := blind.Predict(s, c); got != want {
				differ++
			}
		}
	}
	if differ == 0 {
		t.Error("fleet without a platform predicts what it does with PoCL's: the platform does not reach the model")
	}
}

func TestKernelVersion(t *testing.T) {
	have := datasets.Conv2D().Version()
	tests := []struct {
		name    string
		version string
		wantErr bool
	}{
		{"same version", have, false},
		{"other version", "0123456789ab", true},
		{"no version", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := rebundle(t, func(b *features.Bundle) { b.KernelVersion = tt.version })
			_, err := runtime.New(data, runtime.Options{})
			if !tt.wantErr {
				if err != nil {
					t.Fatalf("New: %v", err)
				}
				return
			}
			if !errors.Is(err, runtime.ErrKernelVersion) {
				t.Fatalf("New: err = %v, want ErrKernelVersion", err)
			}
			var ve *runtime.KernelVersionError
			if !errors.As(err, &ve) || ve.Kernel != "conv2d" || ve.Bundle != tt.version || ve.Have != have {
				t.Errorf("New: err = %#v, want conv2d, %q, %q", ve, tt.version, have)
			}
			if want := "bundle is for conv2d version " + tt.version + ", the kernel here is version " + have + "; train again"; !strings.Contains(err.Error(), want) {
				t.Errorf("New: err = %q, want it to say %q", err, want)
			}
		})
	}
}

func TestParamsByName(t *testing.T) {
	ch := load(t, runtime.Options{})
	want := []string{"Xwg", "Ywg", "Xwpt", "Ywpt", "LS", "VW", "PAD", "UNR"}
	if got := ch.ParamNames(); !slices.Equal(got, want) {
		t.Fatalf("ParamNames() = %v, want %v", got, want)
	}
	p, err := ch.ChoosePick(features.Task{1280, 720, 3, 3})
	if err != nil {
		t.Fatal(err)
	}
	for i, name := range want {
		if v, ok := p.Param(name); !ok || v != p.Config[i] {
			t.Errorf("Pick.Param(%q) = %d, %v; want %d, true", name, v, ok, p.Config[i])
		}
		if v, ok := ch.Value(p.Config, name); !ok || v != p.Config[i] {
			t.Errorf("Value(cfg, %q) = %d, %v; want %d, true", name, v, ok, p.Config[i])
		}
	}
	for _, name := range []string{"", "xwg", "WG"} {
		if v, ok := p.Param(name); ok {
			t.Errorf("Pick.Param(%q) = %d, true; want false", name, v)
		}
		if v, ok := ch.Value(p.Config, name); ok {
			t.Errorf("Value(cfg, %q) = %d, true; want false", name, v)
		}
	}
	if _, ok := ch.Value(features.Config{8}, "UNR"); ok {
		t.Error("Value of a short configuration: ok")
	}
}

func TestLaunchPlan(t *testing.T) {
	ch := load(t, runtime.Options{})
	k := datasets.Conv2D()
	for _, s := range []features.Task{{16, 16, 3, 3}, {640, 480, 5, 5}, {1920, 1080, 7, 7}, {4099, 17, 11, 3}, {16384, 16384, 9, 9}} {
		p, err := ch.ChoosePick(s)
		if err != nil {
			t.Fatalf("ChoosePick(%v): %v", s, err)
		}
		for _, c := range []features.Config{p.Config, ch.Reference()} {
			want, err := k.Geometry(s, c)
			if err != nil {
				t.Fatal(err)
			}
			wantOpts := k.Options(s, c)
			got, err := ch.Plan(s, c)
			if err != nil || got.Launch != want || got.BuildOptions != wantOpts {
				t.Errorf("Plan(%v, %v) = %+v, %v; want %+v, %q", s, c, got, err, want, wantOpts)
			}
		}
		if p.Plan.Launch != mustGeometry(t, k, s, p.Config) || p.Plan.BuildOptions != k.Options(s, p.Config) {
			t.Errorf("ChoosePick(%v).Plan = %+v, want datasets' geometry of %v", s, p.Plan, p.Config)
		}
		again, _ := ch.ChoosePick(s) // from the cache
		if again.Plan.Launch != p.Plan.Launch || again.Plan.BuildOptions != p.Plan.BuildOptions {
			t.Errorf("cached pick's plan %+v, first %+v", again.Plan, p.Plan)
		}
	}
	if _, err := ch.Plan(features.Task{640, 480, 4, 4}, ch.Reference()); !errors.Is(err, runtime.ErrShape) {
		t.Errorf("Plan of a bad shape: err = %v, want ErrShape", err)
	}
	if _, err := ch.Plan(features.Task{640, 480, 5, 5}, features.Config{8, 8, 1, 1, 0, 2, 0, 0}); !errors.Is(err, datasets.ErrConfig) {
		t.Errorf("Plan of a configuration outside the space: err = %v, want datasets.ErrConfig", err)
	}
}

func mustGeometry(t *testing.T, k *datasets.Kernel, s features.Task, c features.Config) datasets.Launch {
	t.Helper()
	l, err := k.Geometry(s, c)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestChooseIntoNoAllocs keeps the cached path free of allocations now that
// a pick carries its launch plan.
func TestChooseIntoNoAllocs(t *testing.T) {
	ch := load(t, runtime.Options{})
	s := features.Task{1920, 1080, 5, 5}
	dst := make(features.Config, len(ch.ParamNames()))
	if err := ch.ChooseInto(dst, s); err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(100, func() { _ = ch.ChooseInto(dst, s) }); n != 0 {
		t.Errorf("cached ChooseInto: %g allocations, want 0", n)
	}
}

// TestPicksFitTheDevice chooses from the fleet bundle for a device no
// model measured, one with small work-groups and no local memory: every
// pick must fit those limits, which the training data cannot vouch for,
// while the same device without the limits gets picks that break them.
func TestPicksFitTheDevice(t *testing.T) {
	data, err := os.ReadFile("../testdata/conv2d-fleet.augur")
	if err != nil {
		t.Fatal(err)
	}
	b, err := features.ReadBundle(data)
	if err != nil {
		t.Fatal(err)
	}
	small := *b.Models[0].Platform
	small.Name, small.MaxWorkGroupSize, small.LocalMemBytes = "a small GPU", 64, 0
	ch, err := runtime.New(data, runtime.Options{Platform: &small})
	if err != nil {
		t.Fatal(err)
	}
	roomy := small
	roomy.MaxWorkGroupSize, roomy.LocalMemBytes = 1024, 48<<10
	free, err := runtime.New(data, runtime.Options{Platform: &roomy})
	if err != nil {
		t.Fatal(err)
	}
	broke := 0
	for _, s := range []features.Task{{512, 512, 3, 3}, {1920, 1080, 5, 5}, {4096, 4096, 7, 7}, {700, 3000, 5, 5}} {
		p, err := ch.ChoosePick(s)
		if err != nil {
			t.Fatal(err)
		}
		if wg, lm := p.Plan.WorkGroupSize(), p.Plan.LocalMemBytes; wg > 64 || lm > 0 {
			t.Errorf("ChoosePick(%v) = %s: %d work-items a group and %d bytes of local memory, on a device of 64 and none", s, ch.Space().Format(p.Config), wg, lm)
		}
		q, err := free.ChoosePick(s)
		if err != nil {
			t.Fatal(err)
		}
		if q.Plan.WorkGroupSize() > 64 || q.Plan.LocalMemBytes > 0 {
			broke++
		}
	}
	if broke == 0 {
		t.Error("no pick for the roomy device breaks the small one's limits: the test shows nothing")
	}
}

// TestOnlyModelOtherType: a bundle's only model serves a device of
// another type (a CPU's model asked for a GPU) without an expected figure,
// its held-out figures being its own device's; a device of its type, or
// of an unknown type, gets them.
func TestOnlyModelOtherType(t *testing.T) {
	single, err := os.ReadFile(testBundle)
	if err != nil {
		t.Fatal(err)
	}
	b, err := features.ReadBundle(single)
	if err != nil {
		t.Fatal(err)
	}
	cpu := *b.Models[0].Platform
	cpu.Name = "Another CPU"
	untyped := h200
	untyped.Type = ""
	for _, tt := range []struct {
		name     string
		plat     features.Platform
		expected bool
	}{
		{"a GPU", h200, false},
		{"another CPU", cpu, true},
		{"a device of unknown type", untyped, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ch, err := runtime.New(single, runtime.Options{Platform: &tt.plat})
			if err != nil {
				t.Fatal(err)
			}
			p, err := ch.ChoosePick(features.Task{800, 600, 5, 5})
			if err != nil {
				t.Fatal(err)
			}
			if p.Source != "model:"+poclSlug || (p.ExpectedPct > 0) != tt.expected {
				t.Errorf("source %q, expected %v%%; want the only model, an expected figure %v", p.Source, p.ExpectedPct, tt.expected)
			}
		})
	}
}

// TestOneShapeModel: a device's model trained on one shape (Model.Shapes
// 1) answers another shape with that shape's measured best (Source near,
// no expected figure) and its own shape from the table; a model of more
// shapes, or of an unknown count (a bundle written before the count),
// searches its predictions.
func TestOneShapeModel(t *testing.T) {
	only := features.Task{1024, 1024, 3, 3}
	var best features.Config
	edit := func(shapes int) func(b *features.Bundle) {
		return func(b *features.Bundle) {
			b.Models[0].Shapes = shapes
			// A configuration the model does not rank first at the
			// other shape, so that copying it shows.
			best = b.Models[0].Candidates[len(b.Models[0].Candidates)-1]
			b.Measured = []features.MeasuredBest{{Device: poclSlug, Task: only, Config: best, TimeNs: 1e6}}
		}
	}
	other := features.Task{640, 480, 5, 5}
	for _, tt := range []struct {
		name   string
		shapes int
		source string // at the other shape
	}{
		{"one shape", 1, runtime.SourceNear},
		{"two shapes", 2, "model:" + poclSlug},
		{"unknown count", 0, "model:" + poclSlug},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ch, err := runtime.New(rebundle(t, edit(tt.shapes)), runtime.Options{})
			if err != nil {
				t.Fatal(err)
			}
			p, err := ch.ChoosePick(only)
			if err != nil || p.Source != runtime.SourceTable || !p.Config.Equal(best) {
				t.Fatalf("its own shape: %v from %q (%v), want the table's %v", p.Config, p.Source, err, best)
			}
			if p, err = ch.ChoosePick(other); err != nil {
				t.Fatal(err)
			}
			if p.Source != tt.source {
				t.Errorf("another shape: source %q, want %q", p.Source, tt.source)
			}
			if tt.source == runtime.SourceNear && (!p.Config.Equal(best) || p.ExpectedPct != 0) {
				t.Errorf("another shape: %v, expected %v%%; want its shape's best %v and no expected figure", p.Config, p.ExpectedPct, best)
			}
		})
	}
}

// TestResolveDevice: a device of the bundle goes to Options.Device (and
// the Chooser then uses its own model, as with the name given directly),
// one of the device table to Options.Platform, and another name is an
// error naming the closest.
func TestResolveDevice(t *testing.T) {
	b, err := features.ReadBundle(fleetBundle(t, true))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, device, platform, err string
	}{
		{"NVIDIA H200", "NVIDIA H200", "", ""},
		{"nvidia-h200", "nvidia-h200", "", ""},
		{"NVIDIA A100-PCIE-40GB", "", "NVIDIA A100-PCIE-40GB", ""},
		{"nvidia-h2O0", "", "", "closest: "},
	} {
		var opt runtime.Options
		err := runtime.ResolveDevice(b, tt.name, nil, &opt)
		switch {
		case tt.err != "":
			if !errors.Is(err, runtime.ErrUnknownDevice) || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: %v, want ErrUnknownDevice with %q", tt.name, err, tt.err)
			}
			continue
		case err != nil:
			t.Fatalf("%s: %v", tt.name, err)
		}
		platform := ""
		if opt.Platform != nil {
			platform = opt.Platform.Name
		}
		if opt.Device != tt.device || platform != tt.platform {
			t.Errorf("%s: Device %q, Platform %q; want %q, %q", tt.name, opt.Device, platform, tt.device, tt.platform)
		}
	}
}
