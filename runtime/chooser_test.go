package runtime_test

import (
	"cmp"
	"errors"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/runtime"
)

// testBundle is a model trained by 'augur train' on conv2d timings recorded
// on PoCL (see ../testdata/README.md).
const testBundle = "../testdata/conv2d-pocl.augur"

func load(t testing.TB, opt runtime.Options) *runtime.Chooser {
	t.Helper()
	data, err := os.ReadFile(testBundle)
	if err != nil {
		t.Fatal(err)
	}
	ch, err := runtime.New(data, opt)
	if err != nil {
		t.Fatal(err)
	}
	return ch
}

func TestChoose(t *testing.T) {
	ch := load(t, runtime.Options{})
	shapes := []features.Task{{640, 480, 3, 3}, {800, 600, 7, 7}, {4096, 16, 11, 11}, {16, 16, 3, 3}}
	for _, s := range shapes {
		cfg, err := ch.Choose(s)
		if err != nil {
			t.Fatalf("Choose(%v): %v", s, err)
		}
		if !ch.Space().Valid(cfg) {
			t.Errorf("Choose(%v) = %v, not in the space", s, cfg)
		}
		ref, _ := ch.Predict(s, ch.Reference())
		got, _ := ch.Predict(s, cfg)
		if got < ref {
			t.Errorf("Choose(%v) predicted log-speedup %g below the reference's %g", s, got, ref)
		}
		again, _ := ch.Choose(s)
		if !again.Equal(cfg) {
			t.Errorf("second Choose(%v) = %v, first %v", s, again, cfg)
		}
		// A fresh Chooser gives the same answer: the search is deterministic.
		other, _ := load(t, runtime.Options{}).Choose(s)
		if !other.Equal(cfg) {
			t.Errorf("fresh Chooser: Choose(%v) = %v, want %v", s, other, cfg)
		}
	}
}

func TestChooseErrors(t *testing.T) {
	ch := load(t, runtime.Options{})
	for _, s := range []features.Task{{640, 480, 3}, {1, 2, 3, 4, 5}, nil} {
		if _, err := ch.Choose(s); err == nil {
			t.Errorf("Choose(%v) accepted a shape of the wrong length", s)
		}
	}
	if _, err := runtime.New([]byte("{}"), runtime.Options{}); err == nil {
		t.Error("New accepted an empty bundle")
	}
	data, _ := os.ReadFile(testBundle)
	if _, err := runtime.New(data, runtime.Options{Model: "no-such-device"}); err == nil {
		t.Error("New accepted an unknown model name")
	}
	if _, err := runtime.New(data, runtime.Options{Steps: -1}); err == nil {
		t.Error("New accepted Steps = -1")
	}
}

// benchBundle is the bundle 'augur train' writes with its defaults from the
// H200 data in testdata/h200 (see ../testdata/README.md).
const benchBundle = "../testdata/conv2d-h200.augur"

// BenchmarkChoose times Choose on benchBundle, or on the conv2d bundle
// that AUGUR_BENCH_BUNDLE names, with the model of the device that
// AUGUR_BENCH_DEVICE names (runtime.Options.Device) if set: the latency of
// the model that training selected on other data.
func BenchmarkChoose(b *testing.B) {
	path := cmp.Or(os.Getenv("AUGUR_BENCH_BUNDLE"), benchBundle)
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	newChooser := func(b *testing.B) *runtime.Chooser {
		ch, err := runtime.New(data, runtime.Options{Device: os.Getenv("AUGUR_BENCH_DEVICE")})
		if err != nil {
			b.Fatal(err)
		}
		return ch
	}
	b.Run("cold", func(b *testing.B) { benchCold(b, newChooser(b)) })
	b.Run("cached", func(b *testing.B) {
		ch := newChooser(b)
		s := features.Task{1920, 1080, 5, 5}
		if _, err := ch.Choose(s); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			if _, err := ch.Choose(s); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("cycling-past-the-cache", func(b *testing.B) {
		// A caller cycling through 5% more shapes than the cache holds
		// (4,096): each call after the first round a look-up or, for about
		// one shape in twenty, a search.
		ch := newChooser(b)
		const n = 4300
		for i := range n {
			if _, err := ch.Choose(features.Task{64 + i, 64, 5, 5}); err != nil {
				b.Fatal(err)
			}
		}
		i := 0
		for b.Loop() {
			i++
			if _, err := ch.Choose(features.Task{64 + i%n, 64, 5, 5}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("cached-into", func(b *testing.B) {
		ch := newChooser(b)
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

// benchCold chooses for a shape not seen before at every call and reports
// the latency's median and 99th percentile.
func benchCold(b *testing.B, ch *runtime.Chooser) {
	var lat []time.Duration
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		i++
		s := features.Task{64 + i%8192, 64 + i/8192, 3 + 2*(i%5), 3 + 2*(i%5)}
		start := time.Now()
		if _, err := ch.Choose(s); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds()), "p50-ns")
	b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds()), "p99-ns")
}

func BenchmarkNew(b *testing.B) {
	data, err := os.ReadFile(benchBundle)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := runtime.New(data, runtime.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestChooseConcurrent calls Choose from 16 goroutines on shapes old and
// new; run with -race.
func TestChooseConcurrent(t *testing.T) {
	ch := load(t, runtime.Options{})
	want := map[int]features.Config{}
	for i := 0; i < 8; i++ {
		c, err := ch.Choose(features.Task{256 + 64*i, 256, 3, 3})
		if err != nil {
			t.Fatal(err)
		}
		want[i] = c
	}
	var wg sync.WaitGroup
	for g := 0; g < 16; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				k := (g + i) % 8
				c, err := ch.Choose(features.Task{256 + 64*k, 256, 3, 3})
				if err != nil || !c.Equal(want[k]) {
					t.Errorf("goroutine %d: Choose = %v, %v; want %v", g, c, err, want[k])
					return
				}
				c[0] = -1 // the caller owns the result: this must not reach the cache
				if _, err := ch.Choose(features.Task{300 + g, 200 + i, 5, 5}); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
}

func TestChooseBadShapes(t *testing.T) {
	ch := load(t, runtime.Options{})
	for _, s := range []features.Task{{0, 0, 3, 3}, {-5, 100, 3, 3}, {640, 480, 4, 4}, {640, 480, 101, 101}, {100000, 1080, 5, 5}} {
		if _, err := ch.Choose(s); !errors.Is(err, runtime.ErrShape) {
			t.Errorf("Choose(%v): err = %v, want ErrShape", s, err)
		}
	}
	p, err := ch.ChoosePick(features.Task{16384, 16, 3, 3})
	if err != nil {
		t.Fatal(err)
	}
	if p.OutsideOctaves < 2 {
		t.Errorf("16384x16 lies %.2f octaves outside training shapes of 256 to 1024, want >= 2", p.OutsideOctaves)
	}
	if in, _ := ch.ChoosePick(features.Task{1024, 768, 5, 5}); in.OutsideOctaves != 0 || in.ExpectedPct <= 0 {
		t.Errorf("1024x768 5x5: outside %.2f octaves, expected %.1f%%; want 0 and a held-out figure", in.OutsideOctaves, in.ExpectedPct)
	}
}

// TestTableHit: a shape measured on the bundle's device gets its fastest
// measured configuration, with no model involved; another shape gets the
// model's pick.
func TestTableHit(t *testing.T) {
	data, err := os.ReadFile("../testdata/conv2d-h100.augur")
	if err != nil {
		t.Fatal(err)
	}
	b, err := features.ReadBundle(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Measured) == 0 {
		t.Fatal("the H100 bundle has no measured table")
	}
	want := b.Measured[0]
	ch, err := runtime.New(data, runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := ch.ChoosePick(want.Task)
	if err != nil {
		t.Fatal(err)
	}
	if p.Source != runtime.SourceTable || !p.Config.Equal(want.Config) {
		t.Errorf("measured shape %v: source %q config %v, want %q %v", want.Task, p.Source, p.Config, runtime.SourceTable, want.Config)
	}
	q, err := ch.ChoosePick(features.Task{1111, 777, 5, 5})
	if err != nil {
		t.Fatal(err)
	}
	if q.Source == runtime.SourceTable {
		t.Errorf("unmeasured shape answered from the table")
	}
}
