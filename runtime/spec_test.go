package runtime_test

import (
	"errors"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/runtime"
)

// specBundles are bundles of kernels read from spec files, trained with
// augur train's defaults on the H200 data in datasets/data (see
// ../testdata/README.md).
var specBundles = []struct{ bundle, spec string }{
	{"../testdata/transpose-h200.augur", "../examples/transpose/transpose.json"},
	{"../testdata/rowsum-h200.augur", "../examples/rowsum/rowsum.json"},
}

// TestSpecBundle checks that a bundle carries its spec kernel whole: the
// runtime gives launch plans equal to the spec's own, and refuses the
// bundle for a caller whose kernel changed.
func TestSpecBundle(t *testing.T) {
	for _, sb := range specBundles {
		data, err := os.ReadFile(sb.bundle)
		if err != nil {
			t.Fatal(err)
		}
		k, err := datasets.ReadSpec(sb.spec)
		if err != nil {
			t.Fatal(err)
		}
		ch, err := runtime.New(data, runtime.Options{Device: "nvidia-h200", KernelVersion: k.Version()})
		if err != nil {
			t.Fatalf("%s: %v", sb.bundle, err)
		}
		shape := features.Task{777, 333}
		p, err := ch.ChoosePick(shape)
		if err != nil {
			t.Fatal(err)
		}
		want, err := k.Geometry(shape, p.Config)
		if err != nil {
			t.Fatal(err)
		}
		if p.Plan.Launch != want || p.Plan.BuildOptions != k.Options(shape, p.Config) || p.Plan.Dims == 0 {
			t.Errorf("%s: plan %+v, want %+v with options %q", sb.bundle, p.Plan, want, k.Options(shape, p.Config))
		}
		if p.Source != "model:nvidia-h200" {
			t.Errorf("%s: source %s", sb.bundle, p.Source)
		}
		_, err = runtime.New(data, runtime.Options{KernelVersion: "0123456789ab"})
		if !errors.Is(err, runtime.ErrKernelVersion) {
			t.Errorf("%s with another kernel version: error %v, want ErrKernelVersion", sb.bundle, err)
		}
	}
}

// BenchmarkChooseSpec times a cold Choose of the spec bundles' models,
// whose launch-geometry features come from the spec's expressions.
func BenchmarkChooseSpec(b *testing.B) {
	for _, sb := range specBundles {
		data, err := os.ReadFile(sb.bundle)
		if err != nil {
			b.Fatal(err)
		}
		ch, err := runtime.New(data, runtime.Options{Device: "nvidia-h200"})
		if err != nil {
			b.Fatal(err)
		}
		b.Run(sb.bundle[len("../testdata/"):], func(b *testing.B) {
			var lat []time.Duration
			i := 0
			b.ReportAllocs()
			for b.Loop() {
				i++
				s := features.Task{64 + i%8192, 64 + i/8192}
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
	}
}
