package runtime_test

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/runtime"
)

// fleetData returns testdata/conv2d-fleet.augur changed by edit, with a
// fresh checksum, and a device it has no model of.
func fleetData(t *testing.T, edit func(b *features.Bundle)) ([]byte, features.Platform) {
	t.Helper()
	data, err := os.ReadFile("../testdata/conv2d-fleet.augur")
	if err != nil {
		t.Fatal(err)
	}
	b, err := features.ReadBundle(data)
	if err != nil {
		t.Fatal(err)
	}
	// A device the bundle never measured: an H100 under another name,
	// so that every copied configuration fits it.
	other := *b.Models[0].Platform
	other.Name = "A Future GPU"
	if edit != nil {
		edit(b)
	}
	var buf bytes.Buffer
	if err := features.WriteBundle(&buf, b); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), other
}

// distinctBests returns two measured bests of the bundle with different
// configurations.
func distinctBests(t *testing.T, b *features.Bundle) (features.MeasuredBest, features.MeasuredBest) {
	t.Helper()
	for _, m := range b.Measured[1:] {
		if !m.Config.Equal(b.Measured[0].Config) {
			return b.Measured[0], m
		}
	}
	t.Fatal("every measured best of the fleet bundle is the same configuration")
	return features.MeasuredBest{}, features.MeasuredBest{}
}

func TestUnseenPolicy(t *testing.T) {
	policy := func(p string) func(b *features.Bundle) {
		return func(b *features.Bundle) { b.Unseen = &features.UnseenPolicy{Policy: p, Devices: 2, Shapes: 42} }
	}
	tests := []struct {
		name   string
		edit   func(b *features.Bundle)
		own    bool // ask for a device the bundle has a model of
		opt    runtime.Options
		source string // Chooser.Source; "" when New must fail
		pick   string // prefix of Pick.Source
	}{
		{"no policy recorded: copy", nil, false, runtime.Options{}, runtime.SourceCopy, "copy:nvidia-"},
		{"bundle says fleet", policy(features.UnseenFleet), false, runtime.Options{}, runtime.SourceFleet, "fleet"},
		{"bundle says copy", policy(features.UnseenCopy), false, runtime.Options{}, runtime.SourceCopy, "copy:nvidia-"},
		{"Unseen fleet overrides the bundle", policy(features.UnseenCopy), false, runtime.Options{Unseen: features.UnseenFleet}, runtime.SourceFleet, "fleet"},
		{"Unseen copy overrides the bundle", policy(features.UnseenFleet), false, runtime.Options{Unseen: features.UnseenCopy}, runtime.SourceCopy, "copy:nvidia-"},
		{"no measured bests: fleet", func(b *features.Bundle) { b.Measured = nil }, false, runtime.Options{}, runtime.SourceFleet, "fleet"},
		{"own model: no policy", nil, true, runtime.Options{Unseen: features.UnseenCopy}, "model:nvidia-h100-80gb-hbm3", "model:nvidia-h100-80gb-hbm3"},
		{"Model names the fleet", nil, false, runtime.Options{Model: "fleet"}, runtime.SourceFleet, "fleet"},
		{"Unseen unknown", nil, false, runtime.Options{Unseen: "nearest"}, "", ""},
		{"Unseen unknown, no model fits", func(b *features.Bundle) { b.Models = b.Models[:2] }, false, runtime.Options{Unseen: "nearest"}, "", ""},
	}
	shape := features.Task{1111, 777, 5, 5}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, other := fleetData(t, tt.edit)
			if tt.own {
				other.Name = "NVIDIA H100 80GB HBM3"
			}
			tt.opt.Platform = &other
			ch, err := runtime.New(data, tt.opt)
			if tt.source == "" {
				if err == nil || !strings.Contains(err.Error(), "Options.Unseen") {
					t.Fatalf("New: err = %v, want one naming Options.Unseen", err)
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
			if ch.Source() != tt.source || !strings.HasPrefix(p.Source, tt.pick) {
				t.Errorf("Source() = %q, Pick.Source = %q; want %q and a pick source starting %q", ch.Source(), p.Source, tt.source, tt.pick)
			}
			if !ch.Space().Valid(p.Config) {
				t.Errorf("pick %v is not in the space", p.Config)
			}
		})
	}
}

// TestCopyNearestShape: a device's measured best is copied from its shape
// nearest the asked one on a log scale.
func TestCopyNearestShape(t *testing.T) {
	var small, large features.MeasuredBest
	data, other := fleetData(t, func(b *features.Bundle) {
		small, large = distinctBests(t, b)
		small.Device, large.Device = "dev-a", "dev-a"
		small.Task, large.Task = features.Task{256, 256, 5, 5}, features.Task{4096, 4096, 5, 5}
		b.Measured = []features.MeasuredBest{small, large}
	})
	ch, err := runtime.New(data, runtime.Options{Platform: &other})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		shape features.Task
		want  features.Config
	}{
		{features.Task{300, 200, 5, 5}, small.Config},
		{features.Task{1000, 1000, 5, 5}, small.Config},
		{features.Task{1100, 1100, 5, 5}, large.Config},
		{features.Task{8000, 3000, 5, 5}, large.Config},
	}
	for _, tt := range tests {
		p, err := ch.ChoosePick(tt.shape)
		if err != nil {
			t.Fatal(err)
		}
		if !p.Config.Equal(tt.want) || p.Source != "copy:dev-a" {
			t.Errorf("ChoosePick(%v) = %v from %q, want %v from copy:dev-a", tt.shape, p.Config, p.Source, tt.want)
		}
	}
}

// TestCopyRankedByFleet: of several devices' copies, the one the fleet
// model predicts fastest on the device is picked, with its prediction.
func TestCopyRankedByFleet(t *testing.T) {
	var a, b features.MeasuredBest
	shape := features.Task{1920, 1080, 5, 5}
	data, other := fleetData(t, func(bu *features.Bundle) {
		a, b = distinctBests(t, bu)
		a.Device, b.Device = "dev-a", "dev-b"
		a.Task, b.Task = shape, shape
		bu.Measured = []features.MeasuredBest{a, b}
	})
	ch, err := runtime.New(data, runtime.Options{Platform: &other})
	if err != nil {
		t.Fatal(err)
	}
	va, _ := ch.Predict(shape, a.Config)
	vb, _ := ch.Predict(shape, b.Config)
	want, wantV, from := a.Config, va, "copy:dev-a"
	if vb > va {
		want, wantV, from = b.Config, vb, "copy:dev-b"
	}
	p, err := ch.ChoosePick(shape)
	if err != nil {
		t.Fatal(err)
	}
	ref, _ := ch.Predict(shape, ch.Reference())
	if !p.Config.Equal(want) || p.Source != from || p.LogSpeedup != wantV-ref {
		t.Errorf("pick %v from %q predicted %g; want %v from %q predicted %g (other copy: %g, %g)",
			p.Config, p.Source, p.LogSpeedup, want, from, wantV-ref, va, vb)
	}
}

// TestCopyOneSource: with several devices' copies, every shape copies
// from the one device whose copies the fleet model predicts fastest on
// average over the shapes, not from whichever wins each shape.
func TestCopyOneSource(t *testing.T) {
	var a, b []features.MeasuredBest
	data, other := fleetData(t, func(bu *features.Bundle) {
		// dev-b measured the shapes dev-a did, with dev-a's bests
		// shifted by one shape, so that each shape has two distinct
		// copies and the sources differ in rank from shape to shape.
		var first []features.MeasuredBest
		for _, m := range bu.Measured {
			if m.Device == bu.Measured[0].Device {
				first = append(first, m)
			}
		}
		for i, m := range first {
			m.Device = "dev-a"
			a = append(a, m)
			m.Config = first[(i+1)%len(first)].Config
			m.Device = "dev-b"
			b = append(b, m)
		}
		bu.Measured = append(append([]features.MeasuredBest{}, a...), b...)
	})
	ch, err := runtime.New(data, runtime.Options{Platform: &other})
	if err != nil {
		t.Fatal(err)
	}
	var meanA, meanB float64
	perShape := map[string]bool{}
	for i := range a {
		va, _ := ch.Predict(a[i].Task, a[i].Config)
		vb, _ := ch.Predict(b[i].Task, b[i].Config)
		meanA, meanB = meanA+va, meanB+vb
		perShape[map[bool]string{true: "dev-a", false: "dev-b"}[va >= vb]] = true
	}
	if len(perShape) < 2 {
		t.Fatal("the same device wins every shape; the test needs shapes that disagree")
	}
	want := "copy:dev-a"
	if meanB > meanA {
		want = "copy:dev-b"
	}
	for _, m := range a {
		p, err := ch.ChoosePick(m.Task)
		if err != nil {
			t.Fatal(err)
		}
		if p.Source != want {
			t.Errorf("shape %v copies from %q, want %q (mean predictions: dev-a %g, dev-b %g)", m.Task, p.Source, want, meanA, meanB)
		}
	}
}

// TestCopySameType: copies come from devices of the new device's type
// when the bundle measured any: a CPU's best is never a GPU's pick, however
// the fleet model ranks it, and a CPU copies from the CPU. The type is the
// measured best's own (bundles written now) or that of the device's model.
func TestCopySameType(t *testing.T) {
	shape := features.Task{1920, 1080, 5, 5}
	for _, from := range []string{"measured type", "model platform"} {
		var gpu, cpu features.MeasuredBest
		data, other := fleetData(t, func(bu *features.Bundle) {
			gpu, cpu = distinctBests(t, bu)
			gpu.Task, cpu.Task = shape, shape
			if from == "measured type" {
				gpu.Device, cpu.Device = "dev-gpu", "dev-cpu"
				gpu.Type, cpu.Type = "gpu", "cpu"
			} else {
				gpu.Device, cpu.Device = bu.Models[0].Name, bu.Models[1].Name
				gpu.Type, cpu.Type = "", ""
				bu.Models[1].Platform.Type = "cpu"
			}
			bu.Measured = []features.MeasuredBest{cpu, gpu}
		})
		otherCPU := other
		otherCPU.Type = "cpu"
		tests := []struct {
			name string
			plat features.Platform
			want features.MeasuredBest
		}{
			{"gpu", other, gpu},
			{"cpu", otherCPU, cpu},
		}
		for _, tt := range tests {
			t.Run(from+"/"+tt.name, func(t *testing.T) {
				ch, err := runtime.New(data, runtime.Options{Platform: &tt.plat})
				if err != nil {
					t.Fatal(err)
				}
				p, err := ch.ChoosePick(shape)
				if err != nil {
					t.Fatal(err)
				}
				if !p.Config.Equal(tt.want.Config) || p.Source != "copy:"+tt.want.Device {
					t.Errorf("pick %v from %q, want %v from copy:%s", p.Config, p.Source, tt.want.Config, tt.want.Device)
				}
			})
		}
	}
}

// BenchmarkChooseUnseen chooses for a device the fleet bundle has no model
// of, by copying (the default) and by the fleet model's search.
func BenchmarkChooseUnseen(b *testing.B) {
	data, err := os.ReadFile("../testdata/conv2d-fleet.augur")
	if err != nil {
		b.Fatal(err)
	}
	bu, err := features.ReadBundle(data)
	if err != nil {
		b.Fatal(err)
	}
	other := *bu.Models[0].Platform
	other.Name = "A Future GPU"
	// Loading for a new device ranks the copy sources once
	// (runtime.Options.Unseen copy).
	b.Run("copy-new", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := runtime.New(data, runtime.Options{Platform: &other}); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, policy := range []string{features.UnseenCopy, features.UnseenFleet} {
		ch, err := runtime.New(data, runtime.Options{Platform: &other, Unseen: policy})
		if err != nil {
			b.Fatal(err)
		}
		b.Run(policy+"-cold", func(b *testing.B) { benchCold(b, ch) })
		b.Run(policy+"-cached-into", func(b *testing.B) {
			s := features.Task{1920, 1080, 5, 5}
			dst := make(features.Config, len(ch.Space().Params))
			if err := ch.ChooseInto(dst, s); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if err := ch.ChooseInto(dst, s); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestUnseenNewShapes: a bundle's two policies, for a shape another device
// measured and for a new one, each serve their shapes, with their own
// expected figures.
func TestUnseenNewShapes(t *testing.T) {
	var measured features.Task
	policy := func(p, fresh string) func(b *features.Bundle) {
		return func(b *features.Bundle) {
			measured = b.Measured[0].Task
			b.Unseen = &features.UnseenPolicy{Policy: p, NewShapes: fresh, Devices: 2, Shapes: 42,
				PctGeomean:        map[string]float64{features.UnseenCopy: 95, features.UnseenFleet: 94},
				PctWorstDevice:    map[string]float64{features.UnseenCopy: 93, features.UnseenFleet: 92},
				NewPctGeomean:     map[string]float64{features.UnseenCopy: 91, features.UnseenFleet: 96},
				NewPctWorstDevice: map[string]float64{features.UnseenCopy: 90, features.UnseenFleet: 89}}
		}
	}
	fresh := features.Task{1111, 777, 5, 5}
	tests := []struct {
		name                string
		policy, newShapes   string
		atMeasured, atNew   string  // prefixes of Pick.Source
		expMeasured, expNew float64 // Pick.ExpectedPct
	}{
		{"copy the measured, search the new", features.UnseenCopy, features.UnseenFleet, "copy:", "fleet", 95, 96},
		{"search the measured, copy the new", features.UnseenFleet, features.UnseenCopy, "fleet", "copy:", 94, 91},
		{"copy both", features.UnseenCopy, features.UnseenCopy, "copy:", "copy:", 95, 91},
		{"a bundle without NewShapes: Policy for both", features.UnseenCopy, "", "copy:", "copy:", 95, 95},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, other := fleetData(t, policy(tt.policy, tt.newShapes))
			ch, err := runtime.New(data, runtime.Options{Platform: &other})
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range []struct {
				shape features.Task
				src   string
				exp   float64
			}{{measured, tt.atMeasured, tt.expMeasured}, {fresh, tt.atNew, tt.expNew}} {
				p, err := ch.ChoosePick(c.shape)
				if err != nil {
					t.Fatal(err)
				}
				if !strings.HasPrefix(p.Source, c.src) || p.ExpectedPct != c.exp {
					t.Errorf("ChoosePick(%v): source %q, expected %v%%; want a source starting %q, %v%%", c.shape, p.Source, p.ExpectedPct, c.src, c.exp)
				}
			}
		})
	}
}

// TestSiblingCopy: a device with a model of its own copies another
// device's best at a shape only that device measured when training chose
// to (features.SiblingChoice), and searches its model otherwise; a shape
// it measured itself stays its own.
func TestSiblingCopy(t *testing.T) {
	var mine, theirs features.MeasuredBest
	shape := features.Task{1111, 777, 5, 5}
	own := "nvidia-h100-80gb-hbm3"
	edit := func(copyIt bool) func(b *features.Bundle) {
		return func(b *features.Bundle) {
			mine, theirs = distinctBests(t, b)
			mine.Device, theirs.Device = own, "nvidia-h200"
			theirs.Task = shape
			b.Measured = []features.MeasuredBest{mine, theirs}
			for i := range b.Models {
				if b.Models[i].Name == own {
					b.Models[i].Siblings = &features.SiblingChoice{Copy: copyIt, CopyPct: 99.5, OwnPct: 95, Shapes: 10}
					b.Models[i].Pool = nil
				}
			}
		}
	}
	for _, tc := range []struct {
		name   string
		copyIt bool
		source string
	}{
		{"copy", true, "copy:nvidia-h200"},
		{"search", false, "model:" + own},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data, _ := fleetData(t, edit(tc.copyIt))
			ch, err := runtime.New(data, runtime.Options{Device: own})
			if err != nil {
				t.Fatal(err)
			}
			p, err := ch.ChoosePick(shape)
			if err != nil {
				t.Fatal(err)
			}
			if p.Source != tc.source || (tc.copyIt && (!p.Config.Equal(theirs.Config) || p.ExpectedPct != 99.5)) {
				t.Errorf("ChoosePick(%v): %v from %q (expected %v%%), want %q", shape, p.Config, p.Source, p.ExpectedPct, tc.source)
			}
			if p, err = ch.ChoosePick(mine.Task); err != nil || p.Source != runtime.SourceTable || !p.Config.Equal(mine.Config) {
				t.Errorf("ChoosePick(%v) = %v from %q, %v; want its own measured best from the table", mine.Task, p.Config, p.Source, err)
			}
		})
	}
}

// TestUnseenExpectedOtherType: a device of a type that no device of the
// bundle has (a CPU beside GPUs) gets no expected figure, since the
// held-out devices that measured it were of the bundle's types; one of a
// type the bundle has, or of an unknown type, gets the policy's.
func TestUnseenExpectedOtherType(t *testing.T) {
	for _, tt := range []struct {
		typ  string
		want float64
	}{
		{"gpu", 95},
		{"", 95},
		{"cpu", 0},
	} {
		t.Run("type "+tt.typ, func(t *testing.T) {
			data, other := fleetData(t, func(b *features.Bundle) {
				b.Unseen = &features.UnseenPolicy{Policy: features.UnseenCopy, Devices: 2, Shapes: 42,
					PctGeomean:     map[string]float64{features.UnseenCopy: 95, features.UnseenFleet: 94},
					PctWorstDevice: map[string]float64{features.UnseenCopy: 93, features.UnseenFleet: 92}}
			})
			other.Type = tt.typ
			ch, err := runtime.New(data, runtime.Options{Platform: &other})
			if err != nil {
				t.Fatal(err)
			}
			p, err := ch.ChoosePick(features.Task{1920, 1080, 5, 5})
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(p.Source, "copy:") || p.ExpectedPct != tt.want {
				t.Errorf("source %q, expected %v%%; want a copy, %v%%", p.Source, p.ExpectedPct, tt.want)
			}
		})
	}
}

// TestUnseenPolicyAcrossTypes: a bundle whose devices are each the only one
// of their type decided its policy on copies across types; a device with
// a source of its own type copies at the shapes that source measured even
// where that policy says search, unless Options.Unseen says otherwise or
// two of the bundle's devices share a type (then the policy was decided on
// such copies and holds).
func TestUnseenPolicyAcrossTypes(t *testing.T) {
	shape := features.Task{1920, 1080, 5, 5}
	var gpu, cpu features.MeasuredBest
	edit := func(gpus int) func(bu *features.Bundle) {
		return func(bu *features.Bundle) {
			gpu, cpu = distinctBests(t, bu)
			gpu.Task, cpu.Task = shape, shape
			gpu.Device, cpu.Device = "dev-gpu", "dev-cpu"
			gpu.Type, cpu.Type = "gpu", "cpu"
			bu.Measured = []features.MeasuredBest{cpu, gpu}
			if gpus == 2 {
				twin := gpu
				twin.Device, twin.Task = "dev-gpu2", features.Task{640, 480, 5, 5}
				bu.Measured = append(bu.Measured, twin)
			}
			bu.Unseen = &features.UnseenPolicy{Policy: features.UnseenFleet, NewShapes: features.UnseenFleet, Devices: len(bu.Measured)}
		}
	}
	tests := []struct {
		name   string
		gpus   int
		unseen string
		source string
	}{
		{"one device a type: copies its sibling's", 1, "", "copy:dev-gpu"},
		{"Options.Unseen fleet holds", 1, features.UnseenFleet, "fleet"},
		{"two GPUs: the bundle's policy holds", 2, "", "fleet"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, other := fleetData(t, edit(tt.gpus))
			other.Type = "gpu"
			ch, err := runtime.New(data, runtime.Options{Platform: &other, Unseen: tt.unseen})
			if err != nil {
				t.Fatal(err)
			}
			p, err := ch.ChoosePick(shape)
			if err != nil {
				t.Fatal(err)
			}
			if p.Source != tt.source || (tt.source == "copy:dev-gpu" && !p.Config.Equal(gpu.Config)) {
				t.Errorf("pick %v from %q, want one from %s", p.Config, p.Source, tt.source)
			}
		})
	}
}

// TestUnseenTypeLimits: the fleet model's search for a device keeps to the
// limits of the rows of the device's type (Model.TypeLimits), not to the
// fleet's, which a device of another type may have set.
func TestUnseenTypeLimits(t *testing.T) {
	shape := features.Task{1920, 1080, 5, 5}
	items := func(cfg features.Config) int { return workItems(t, shape, cfg) }
	pick := func(limit float64) features.Config {
		data, other := fleetData(t, func(bu *features.Bundle) {
			for i := range bu.Models {
				if bu.Models[i].Name == "fleet" && limit > 0 {
					bu.Models[i].TypeLimits = map[string]map[string]float64{"gpu": {"wg_items": limit}, "cpu": {"wg_items": 1}}
				}
			}
		})
		other.Type = "gpu"
		ch, err := runtime.New(data, runtime.Options{Platform: &other, Unseen: features.UnseenFleet})
		if err != nil {
			t.Fatal(err)
		}
		c, err := ch.Choose(shape)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	// The reference (64 work-items) serves when nothing within the
	// limits scores; a limit of 64 leaves the search configurations.
	free := items(pick(0))
	if free <= 64 {
		t.Fatalf("the search's pick without type limits has %d work-items; the test needs more than 64", free)
	}
	if got := items(pick(64)); got > 64 {
		t.Errorf("with the GPUs' limit of 64 work-items the pick has %d", got)
	}
}

// workItems returns the work-group size of conv2d's configuration cfg on
// shape.
func workItems(t *testing.T, shape features.Task, cfg features.Config) int {
	t.Helper()
	l, err := datasets.Conv2D().Geometry(shape, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return l.WorkGroupSize()
}
