package runtime_test

import (
	"os"
	"slices"
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
		// A fresh Chooser gives the same answer: the climb is seeded by the shape.
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

func BenchmarkChoose(b *testing.B) {
	b.Run("cold", func(b *testing.B) {
		ch := load(b, runtime.Options{})
		var lat []time.Duration
		i := 0
		b.ReportAllocs()
		for b.Loop() {
			i++
			// A shape not seen before at every call.
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
	})
	b.Run("cached", func(b *testing.B) {
		ch := load(b, runtime.Options{})
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
}
