package collect

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/augur-tuning/augur/collect/record"
	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/features"
)

func TestSummarize(t *testing.T) {
	tests := []struct {
		times               []float64
		median, minimum, cv float64
	}{
		{[]float64{5}, 5, 5, 0},
		{[]float64{3, 1, 2}, 2, 1, math.Sqrt(2.0/3) / 2},
		{[]float64{4, 1, 3, 2}, 2.5, 1, math.Sqrt(1.25) / 2.5},
	}
	for _, tt := range tests {
		med, mn, cv := record.Summarize(append([]float64(nil), tt.times...))
		if med != tt.median || mn != tt.minimum || math.Abs(cv-tt.cv) > 1e-12 {
			t.Errorf("Summarize(%v) = %v, %v, %v; want %v, %v, %v", tt.times, med, mn, cv, tt.median, tt.minimum, tt.cv)
		}
	}
}

func TestVerify(t *testing.T) {
	nan := float32(math.NaN())
	tests := []struct {
		name      string
		got, want []float32
		ok        bool
	}{
		{"equal", []float32{1, 2, 3}, []float32{1, 2, 3}, true},
		{"within relative tolerance", []float32{1000.05}, []float32{1000}, true},
		{"beyond relative tolerance", []float32{1000.5}, []float32{1000}, false},
		{"near zero under the floor", []float32{1000, 0.00005}, []float32{1000, 0}, true},
		{"near zero over the floor", []float32{1000, 0.0002}, []float32{1000, 0}, false},
		{"NaN", []float32{1, nan}, []float32{1, 2}, false},
		{"length", []float32{1}, []float32{1, 2}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := verify(tt.got, tt.want, 1e-4)
			if (err == nil) != tt.ok {
				t.Errorf("verify(%v, %v) = %v, want ok=%v", tt.got, tt.want, err, tt.ok)
			}
		})
	}
}

func TestPruneReason(t *testing.T) {
	dev := features.Platform{MaxWorkGroupSize: 256, MaxWorkItemSizes: [3]int{256, 128, 64}, LocalMemBytes: 48 << 10}
	tests := []struct {
		name   string
		launch datasets.Launch
		want   string // "" for no pruning, else a word of the reason
	}{
		{"fits", datasets.Launch{Dims: 2, Global: [3]int{512, 512}, Local: [3]int{16, 16}, LocalMemBytes: 48 << 10}, ""},
		{"work-group too large", datasets.Launch{Dims: 2, Global: [3]int{512, 512}, Local: [3]int{32, 16}}, "exceeds the device's 256"},
		{"dimension 1 too large", datasets.Launch{Dims: 2, Global: [3]int{512, 512}, Local: [3]int{1, 256}}, "dimension 1"},
		{"local memory", datasets.Launch{Dims: 1, Global: [3]int{64}, Local: [3]int{64}, LocalMemBytes: 48<<10 + 1}, "local memory"},
		{"not a multiple", datasets.Launch{Dims: 1, Global: [3]int{100}, Local: [3]int{64}}, "multiple"},
		{"no dimensions", datasets.Launch{}, "dimensions"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := pruneReason(tt.launch, dev)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("pruned: %v, want no pruning", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("reason %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestOptionsResolve(t *testing.T) {
	tests := []struct {
		name    string
		opt     Options
		wantErr string // a field name, or "" for valid options
	}{
		{"zero", Options{}, ""},
		{"all", Options{Sample: "all"}, ""},
		{"random", Options{Sample: "random:7"}, ""},
		{"bad sample", Options{Sample: "some"}, "sample \""},
		{"zero sample", Options{Sample: "random:0"}, "sample \""},
		{"random each", Options{Sample: "random-each:7"}, ""},
		{"zero each", Options{Sample: "random-each:0"}, "sample \""},
		{"negative device", Options{Device: -1}, "Device"},
		{"too many repeats", Options{Repeats: MaxRepeats + 1}, "Repeats"},
		{"negative workers", Options{Workers: -2}, "Workers"},
		{"negative timeout", Options{Timeout: -time.Second}, "Timeout"},
		{"negative batch", Options{BatchRows: -1}, "BatchRows"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _, err := tt.opt.resolve()
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.HasPrefix(err.Error(), "collect: ") {
					t.Errorf("error %v, want a collect error naming %s", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Repeats < 1 || got.Workers < 1 || got.Timeout <= 0 || got.BatchRows < 1 || got.Sample == "" {
				t.Errorf("resolve() = %+v, want every default filled", got)
			}
		})
	}
	got, _, _ := Options{}.resolve()
	if got.Sample != DefaultSample || got.Repeats != DefaultRepeats || got.Timeout != DefaultTimeout || got.BatchRows != DefaultBatchRows {
		t.Errorf("zero Options resolve to %+v, want the documented defaults", got)
	}
}

// BenchmarkVerify checks one 1024x1024 output, the work verification adds
// to every configuration of a mid-sized conv2d task.
func BenchmarkVerify(b *testing.B) {
	want := make([]float32, 1<<20)
	for i := range want {
		want[i] = float32(i%1000) / 7
	}
	got := append([]float32(nil), want...)
	b.ReportAllocs()
	for b.Loop() {
		if err := verify(got, want, 1e-4); err != nil {
			b.Fatal(err)
		}
	}
}

func TestCVHistogram(t *testing.T) {
	for _, tc := range []struct {
		name string
		cvs  []float64
		want float64
	}{
		{"none", nil, 0},
		{"one", []float64{0.023}, 0.025},
		{"middle of three", []float64{0.01, 0.15, 0.40}, 0.155},
		{"lower middle of four", []float64{0.01, 0.02, 0.30, 0.31}, 0.025},
		{"over 100% in the last bin", []float64{2.5, 3}, 1.005},
		{"NaN and negatives ignored", []float64{math.NaN(), -1, 0.07}, 0.075},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var h CVHistogram
			for _, cv := range tc.cvs {
				h.Add(cv)
			}
			if got := h.Median(); math.Abs(got-tc.want) > 1e-9 {
				t.Errorf("Median() = %g, want %g", got, tc.want)
			}
		})
	}
}
