package features

import (
	"strings"
)

// Platform describes an OpenCL device as collect queried and measured it.
// Sizes are in bytes, clocks in MHz.
//
// The queried limits alone cannot tell some devices apart (an NVIDIA H100
// and H200 differ only in global memory size), so collect also measures
// four figures with micro-benchmarks (see collect.Benchmark). A measured
// field of 0 means "not measured": data recorded before the benchmarks
// existed, imported data, or a benchmark that failed on the device. The
// JSON of an unmeasured field is omitted, so that a description without
// measurements reads and writes as it did before they existed.
type Platform struct {
	PlatformName     string `json:"platform_name"`
	Vendor           string `json:"vendor"`
	Name             string `json:"name"`
	Type             string `json:"type"` // "gpu", "cpu", "accelerator"
	DriverVersion    string `json:"driver_version"`
	OpenCLVersion    string `json:"opencl_version"`
	ComputeUnits     int    `json:"compute_units"`
	ClockMHz         int    `json:"clock_mhz"`
	MaxWorkGroupSize int    `json:"max_work_group_size"`
	MaxWorkItemSizes [3]int `json:"max_work_item_sizes"`
	LocalMemBytes    int64  `json:"local_mem_bytes"`
	GlobalMemBytes   int64  `json:"global_mem_bytes"`
	ConstantMemBytes int64  `json:"constant_mem_bytes"`
	GlobalCacheBytes int64  `json:"global_cache_bytes"`
	CacheLineBytes   int    `json:"cache_line_bytes"`
	ImageSupport     bool   `json:"image_support"`

	// GlobalBandwidthGBs is the global memory bandwidth of a streaming
	// copy over buffers larger than the caches, in GB/s (10^9 bytes a
	// second, bytes read plus bytes written), best of several runs.
	GlobalBandwidthGBs float64 `json:"global_bandwidth_gbs,omitempty"`
	// FP32GFLOPs is the single-precision throughput of independent fused
	// multiply-add chains, in GFLOP/s (an FMA counts as 2 operations).
	FP32GFLOPs float64 `json:"fp32_gflops,omitempty"`
	// LocalBandwidthGBs is the read bandwidth of __local memory summed over
	// the device, in GB/s.
	LocalBandwidthGBs float64 `json:"local_bandwidth_gbs,omitempty"`
	// LaunchOverheadUs is the median host time from enqueueing an empty
	// kernel to clFinish returning, in microseconds.
	LaunchOverheadUs float64 `json:"launch_overhead_us,omitempty"`
}

// PlatformNames are the names of the numeric platform features, in the
// order Vector writes them.
var platformNames = []string{
	"compute_units", "clock_mhz", "max_work_group_size", "local_mem_kib",
	"global_mem_gib", "constant_mem_kib", "global_cache_kib", "cache_line_bytes",
	"image_support", "is_gpu",
}

// PlatformNames returns the names of the numeric platform features, in the
// order Platform.Vector writes them.
func PlatformNames() []string { return append([]string(nil), platformNames...) }

// Vector returns the numeric platform features named by PlatformNames.
func (p Platform) Vector() []float64 {
	b := func(x bool) float64 {
		if x {
			return 1
		}
		return 0
	}
	return []float64{
		float64(p.ComputeUnits), float64(p.ClockMHz), float64(p.MaxWorkGroupSize),
		float64(p.LocalMemBytes) / 1024, float64(p.GlobalMemBytes) / (1 << 30),
		float64(p.ConstantMemBytes) / 1024, float64(p.GlobalCacheBytes) / 1024,
		float64(p.CacheLineBytes), b(p.ImageSupport), b(p.Type == "gpu"),
	}
}

// Slug is a file-name-safe identifier of the device, such as
// "nvidia-h100-80gb-hbm3" or "pocl-cpu-amd-epyc-7b13".
func (p Platform) Slug() string {
	name := p.Name
	if strings.Contains(strings.ToLower(p.PlatformName), "portable computing language") {
		name = "pocl " + p.Type + " " + name
	}
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(name) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
			dash = false
		default:
			if !dash && b.Len() > 0 {
				b.WriteByte('-')
				dash = true
			}
		}
	}
	s := strings.TrimSuffix(b.String(), "-")
	if s == "" {
		return "unknown-device"
	}
	return s
}
