package opencl

import (
	"context"
	"math"
	"testing"
)

func TestBenchPlausible(t *testing.T) {
	if testing.Short() {
		t.Skip("the benchmarks take a few seconds")
	}
	dev := firstDevice(t)
	s, err := dev.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	p, failures, err := s.Bench(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for name, why := range failures {
		t.Errorf("%s failed: %s", name, why)
	}
	t.Logf("%s: global %.3g GB/s, fp32 %.3g GFLOP/s, local %.3g GB/s, launch %.3g us",
		dev, p.GlobalBandwidthGBs, p.FP32GFLOPs, p.LocalBandwidthGBs, p.LaunchOverheadUs)
	// The upper bounds are several times today's fastest devices (an
	// H200: 4.8 TB/s of HBM, 67 TFLOP/s of fp32, about 33 TB/s of shared
	// memory), so that only a wrong unit or a wrong count fails.
	tests := []struct {
		name     string
		got      float64
		low, max float64
	}{
		{BenchGlobalBandwidth, p.GlobalBandwidthGBs, 0.1, 10e3},
		{BenchFP32, p.FP32GFLOPs, 0.1, 1e6},
		{BenchLocalBandwidth, p.LocalBandwidthGBs, 0.1, 200e3},
		{BenchLaunch, p.LaunchOverheadUs, 0.1, 100e3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if math.IsNaN(tt.got) || tt.got < tt.low || tt.got > tt.max {
				t.Errorf("got %g, want in [%g, %g]", tt.got, tt.low, tt.max)
			}
		})
	}
	q := dev.Platform()
	p.GlobalBandwidthGBs, p.FP32GFLOPs, p.LocalBandwidthGBs, p.LaunchOverheadUs = 0, 0, 0, 0
	if p != q {
		t.Errorf("queried fields changed: got %+v, want %+v", p, q)
	}
}
