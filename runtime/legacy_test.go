package runtime_test

import (
	"os"
	"testing"

	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/runtime"
)

// TestLegacyBundlePicks checks that bundles written before the measured
// platform features existed, whose models take the first ten platform
// features, load and choose exactly what they chose then. The picks were
// recorded with augur at commit 6974dac, the last with ten platform
// features; the fleet model is asked about a device it has no model of,
// described without measurements.
func TestLegacyBundlePicks(t *testing.T) {
	a100 := features.Platform{Name: "NVIDIA A100-PCIE-40GB", Type: "gpu", ComputeUnits: 108, ClockMHz: 1410, MaxWorkGroupSize: 1024,
		LocalMemBytes: 49152, GlobalMemBytes: 42949672960, ConstantMemBytes: 65536, GlobalCacheBytes: 3538944, CacheLineBytes: 128, ImageSupport: true}
	tests := []struct {
		bundle string
		opt    runtime.Options
		task   features.Task
		want   features.Config
	}{
		{"../testdata/conv2d-fleet.augur", runtime.Options{Model: "nvidia-h100-80gb-hbm3"}, features.Task{1024, 768, 5, 5}, features.Config{8, 8, 2, 8, 0, 2, 0, 1}},
		{"../testdata/conv2d-fleet.augur", runtime.Options{Model: "nvidia-h100-80gb-hbm3"}, features.Task{1920, 1080, 3, 3}, features.Config{16, 8, 4, 4, 0, 1, 0, 1}},
		{"../testdata/conv2d-fleet.augur", runtime.Options{Model: "nvidia-h100-80gb-hbm3"}, features.Task{4096, 4096, 7, 7}, features.Config{32, 8, 4, 4, 0, 2, 0, 1}},
		{"../testdata/conv2d-fleet.augur", runtime.Options{Model: "nvidia-h100-80gb-hbm3"}, features.Task{640, 480, 11, 11}, features.Config{32, 8, 1, 2, 0, 1, 0, 1}},
		{"../testdata/conv2d-fleet.augur", runtime.Options{Model: "nvidia-h100-80gb-hbm3"}, features.Task{16384, 16, 3, 3}, features.Config{16, 8, 4, 1, 2, 4, 1, 1}},
		{"../testdata/conv2d-fleet.augur", runtime.Options{Model: "nvidia-h100-80gb-hbm3"}, features.Task{300, 200, 9, 3}, features.Config{8, 8, 2, 8, 0, 2, 0, 1}},
		{"../testdata/conv2d-fleet.augur", runtime.Options{Model: "nvidia-h200"}, features.Task{1024, 768, 5, 5}, features.Config{8, 8, 2, 8, 0, 2, 0, 1}},
		{"../testdata/conv2d-fleet.augur", runtime.Options{Model: "nvidia-h200"}, features.Task{1920, 1080, 3, 3}, features.Config{16, 16, 1, 8, 0, 1, 0, 1}},
		{"../testdata/conv2d-fleet.augur", runtime.Options{Model: "nvidia-h200"}, features.Task{4096, 4096, 7, 7}, features.Config{16, 8, 4, 8, 0, 2, 0, 1}},
		{"../testdata/conv2d-fleet.augur", runtime.Options{Model: "nvidia-h200"}, features.Task{640, 480, 11, 11}, features.Config{32, 8, 1, 2, 0, 1, 0, 1}},
		{"../testdata/conv2d-fleet.augur", runtime.Options{Model: "nvidia-h200"}, features.Task{16384, 16, 3, 3}, features.Config{8, 16, 2, 8, 0, 1, 0, 1}},
		{"../testdata/conv2d-fleet.augur", runtime.Options{Model: "nvidia-h200"}, features.Task{300, 200, 9, 3}, features.Config{16, 8, 4, 1, 2, 4, 1, 1}},
		{"../testdata/conv2d-fleet.augur", runtime.Options{Model: "fleet", Platform: &a100}, features.Task{1024, 768, 5, 5}, features.Config{8, 8, 1, 1, 0, 1, 0, 0}},
		{"../testdata/conv2d-fleet.augur", runtime.Options{Model: "fleet", Platform: &a100}, features.Task{1920, 1080, 3, 3}, features.Config{8, 8, 1, 1, 0, 1, 0, 0}},
		{"../testdata/conv2d-fleet.augur", runtime.Options{Model: "fleet", Platform: &a100}, features.Task{4096, 4096, 7, 7}, features.Config{8, 8, 1, 1, 0, 1, 0, 0}},
		{"../testdata/conv2d-fleet.augur", runtime.Options{Model: "fleet", Platform: &a100}, features.Task{640, 480, 11, 11}, features.Config{8, 8, 1, 1, 0, 1, 0, 0}},
		{"../testdata/conv2d-fleet.augur", runtime.Options{Model: "fleet", Platform: &a100}, features.Task{16384, 16, 3, 3}, features.Config{8, 8, 1, 1, 0, 1, 0, 0}},
		{"../testdata/conv2d-fleet.augur", runtime.Options{Model: "fleet", Platform: &a100}, features.Task{300, 200, 9, 3}, features.Config{8, 8, 1, 1, 0, 1, 0, 0}},
		{"../testdata/conv2d-h100.augur", runtime.Options{Model: "nvidia-h100-80gb-hbm3"}, features.Task{1024, 768, 5, 5}, features.Config{8, 8, 2, 8, 0, 2, 0, 1}},
		{"../testdata/conv2d-h100.augur", runtime.Options{Model: "nvidia-h100-80gb-hbm3"}, features.Task{1920, 1080, 3, 3}, features.Config{32, 8, 2, 8, 0, 2, 0, 1}},
		{"../testdata/conv2d-h100.augur", runtime.Options{Model: "nvidia-h100-80gb-hbm3"}, features.Task{4096, 4096, 7, 7}, features.Config{16, 8, 4, 4, 0, 1, 0, 1}},
		{"../testdata/conv2d-h100.augur", runtime.Options{Model: "nvidia-h100-80gb-hbm3"}, features.Task{640, 480, 11, 11}, features.Config{8, 8, 2, 1, 1, 2, 1, 1}},
		{"../testdata/conv2d-h100.augur", runtime.Options{Model: "nvidia-h100-80gb-hbm3"}, features.Task{16384, 16, 3, 3}, features.Config{32, 8, 2, 4, 0, 1, 0, 1}},
		{"../testdata/conv2d-h100.augur", runtime.Options{Model: "nvidia-h100-80gb-hbm3"}, features.Task{300, 200, 9, 3}, features.Config{16, 16, 4, 1, 0, 4, 0, 0}},
		{"../testdata/conv2d-h200.augur", runtime.Options{Model: "nvidia-h200"}, features.Task{1024, 768, 5, 5}, features.Config{32, 8, 2, 8, 0, 2, 0, 1}},
		{"../testdata/conv2d-h200.augur", runtime.Options{Model: "nvidia-h200"}, features.Task{1920, 1080, 3, 3}, features.Config{8, 16, 4, 8, 0, 4, 0, 1}},
		{"../testdata/conv2d-h200.augur", runtime.Options{Model: "nvidia-h200"}, features.Task{4096, 4096, 7, 7}, features.Config{32, 8, 2, 8, 0, 1, 0, 1}},
		{"../testdata/conv2d-h200.augur", runtime.Options{Model: "nvidia-h200"}, features.Task{640, 480, 11, 11}, features.Config{32, 8, 1, 8, 0, 1, 0, 1}},
		{"../testdata/conv2d-h200.augur", runtime.Options{Model: "nvidia-h200"}, features.Task{16384, 16, 3, 3}, features.Config{16, 8, 4, 8, 0, 4, 0, 1}},
		{"../testdata/conv2d-h200.augur", runtime.Options{Model: "nvidia-h200"}, features.Task{300, 200, 9, 3}, features.Config{32, 8, 1, 8, 0, 1, 0, 1}},
		{"../testdata/conv2d-pocl.augur", runtime.Options{Model: "pocl-cpu-pthread-skylake-avx512-amd-epyc"}, features.Task{1024, 768, 5, 5}, features.Config{16, 16, 8, 8, 0, 8, 0, 0}},
		{"../testdata/conv2d-pocl.augur", runtime.Options{Model: "pocl-cpu-pthread-skylake-avx512-amd-epyc"}, features.Task{1920, 1080, 3, 3}, features.Config{16, 64, 1, 2, 0, 1, 0, 1}},
		{"../testdata/conv2d-pocl.augur", runtime.Options{Model: "pocl-cpu-pthread-skylake-avx512-amd-epyc"}, features.Task{4096, 4096, 7, 7}, features.Config{16, 16, 8, 8, 0, 8, 0, 0}},
		{"../testdata/conv2d-pocl.augur", runtime.Options{Model: "pocl-cpu-pthread-skylake-avx512-amd-epyc"}, features.Task{640, 480, 11, 11}, features.Config{16, 16, 8, 8, 0, 8, 0, 0}},
		{"../testdata/conv2d-pocl.augur", runtime.Options{Model: "pocl-cpu-pthread-skylake-avx512-amd-epyc"}, features.Task{16384, 16, 3, 3}, features.Config{32, 8, 8, 2, 2, 8, 0, 1}},
		{"../testdata/conv2d-pocl.augur", runtime.Options{Model: "pocl-cpu-pthread-skylake-avx512-amd-epyc"}, features.Task{300, 200, 9, 3}, features.Config{16, 16, 8, 8, 0, 8, 0, 0}},
		{"../examples/imagefilter/conv2d-pocl.augur", runtime.Options{Model: "pocl-cpu-pthread-skylake-avx512-amd-epyc"}, features.Task{1024, 768, 5, 5}, features.Config{16, 16, 8, 8, 0, 8, 0, 0}},
		{"../examples/imagefilter/conv2d-pocl.augur", runtime.Options{Model: "pocl-cpu-pthread-skylake-avx512-amd-epyc"}, features.Task{1920, 1080, 3, 3}, features.Config{16, 64, 1, 2, 0, 1, 0, 1}},
		{"../examples/imagefilter/conv2d-pocl.augur", runtime.Options{Model: "pocl-cpu-pthread-skylake-avx512-amd-epyc"}, features.Task{4096, 4096, 7, 7}, features.Config{16, 16, 8, 8, 0, 8, 0, 0}},
		{"../examples/imagefilter/conv2d-pocl.augur", runtime.Options{Model: "pocl-cpu-pthread-skylake-avx512-amd-epyc"}, features.Task{640, 480, 11, 11}, features.Config{16, 16, 8, 8, 0, 8, 0, 0}},
		{"../examples/imagefilter/conv2d-pocl.augur", runtime.Options{Model: "pocl-cpu-pthread-skylake-avx512-amd-epyc"}, features.Task{16384, 16, 3, 3}, features.Config{32, 8, 8, 2, 2, 8, 0, 1}},
		{"../examples/imagefilter/conv2d-pocl.augur", runtime.Options{Model: "pocl-cpu-pthread-skylake-avx512-amd-epyc"}, features.Task{300, 200, 9, 3}, features.Config{16, 16, 8, 8, 0, 8, 0, 0}},
	}
	choosers := map[string]*runtime.Chooser{}
	for _, tt := range tests {
		key := tt.bundle + "|" + tt.opt.Model
		ch := choosers[key]
		if ch == nil {
			data, err := os.ReadFile(tt.bundle)
			if err != nil {
				t.Fatal(err)
			}
			b, err := features.ReadBundle(data)
			if err != nil {
				t.Fatalf("%s: %v", tt.bundle, err)
			}
			if n, err := features.PlatformColumns(b.Features); err != nil || n != features.LegacyPlatformFeatures {
				t.Fatalf("%s takes %d platform features (%v), want the legacy %d", tt.bundle, n, err, features.LegacyPlatformFeatures)
			}
			if ch, err = runtime.New(data, tt.opt); err != nil {
				t.Fatalf("%s: %v", tt.bundle, err)
			}
			choosers[key] = ch
		}
		got, err := ch.Choose(tt.task)
		if err != nil {
			t.Errorf("%s model %s, %v: %v", tt.bundle, tt.opt.Model, tt.task, err)
			continue
		}
		if !got.Equal(tt.want) {
			t.Errorf("%s model %s, %v: got %v, want %v", tt.bundle, tt.opt.Model, tt.task, got, tt.want)
		}
	}
}
