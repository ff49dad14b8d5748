package features

import (
	"fmt"
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

// platformFeatures are the numeric platform features in the order Vector
// writes them, each with how it is read from a Platform. Features are only
// ever appended: a model takes the first n of them (n is at least
// LegacyPlatformFeatures), so that a feature sits at the same position in
// every model's vector and a model trained before a feature existed keeps
// its inputs (see PlatformColumns).
var platformFeatures = []struct {
	name  string
	value func(Platform) float64
}{
	{"compute_units", func(p Platform) float64 { return float64(p.ComputeUnits) }},
	{"clock_mhz", func(p Platform) float64 { return float64(p.ClockMHz) }},
	{"max_work_group_size", func(p Platform) float64 { return float64(p.MaxWorkGroupSize) }},
	{"local_mem_kib", func(p Platform) float64 { return float64(p.LocalMemBytes) / 1024 }},
	{"global_mem_gib", func(p Platform) float64 { return float64(p.GlobalMemBytes) / (1 << 30) }},
	{"constant_mem_kib", func(p Platform) float64 { return float64(p.ConstantMemBytes) / 1024 }},
	{"global_cache_kib", func(p Platform) float64 { return float64(p.GlobalCacheBytes) / 1024 }},
	{"cache_line_bytes", func(p Platform) float64 { return float64(p.CacheLineBytes) }},
	{"image_support", func(p Platform) float64 { return boolValue(p.ImageSupport) }},
	{"is_gpu", func(p Platform) float64 { return boolValue(p.Type == "gpu") }},
	// The measured features, after LegacyPlatformFeatures.
	{"global_bw_gbs", func(p Platform) float64 { return p.GlobalBandwidthGBs }},
	{"fp32_gflops", func(p Platform) float64 { return p.FP32GFLOPs }},
	{"local_bw_gbs", func(p Platform) float64 { return p.LocalBandwidthGBs }},
	{"launch_us", func(p Platform) float64 { return p.LaunchOverheadUs }},
}

// LegacyPlatformFeatures is the number of platform features, all of them
// queried, that models took before the measured ones were added: bundles
// written before then list these first ten.
const LegacyPlatformFeatures = 10

// platformNames are the names of platformFeatures, in order.
var platformNames = func() []string {
	out := make([]string, len(platformFeatures))
	for i, f := range platformFeatures {
		out[i] = f.name
	}
	return out
}()

// PlatformNames returns the names of the numeric platform features, in the
// order Platform.Vector writes them. New models take all of them; a model
// may take only the first few (see PlatformColumns).
func PlatformNames() []string { return append([]string(nil), platformNames...) }

// Vector returns the numeric platform features named by PlatformNames. A
// model that takes the first n features reads Vector()[:n].
func (p Platform) Vector() []float64 {
	out := make([]float64, len(platformFeatures))
	for i, f := range platformFeatures {
		out[i] = f.value(p)
	}
	return out
}

func boolValue(x bool) float64 {
	if x {
		return 1
	}
	return 0
}

// PlatformColumns returns the number of platform features a model takes,
// from its column names: its trailing "platform." columns, which must be
// the first n of PlatformNames with n >= LegacyPlatformFeatures, in order.
// A model trained before the measured features takes the first ten; one
// trained now takes them all. The error names the column that differs.
func PlatformColumns(columns []string) (int, error) {
	n, err := platformColumns(columns)
	if err != nil {
		return 0, fmt.Errorf("%w: %v", ErrSyntax, err)
	}
	return n, nil
}

// platformColumns is PlatformColumns with an error that names no
// sentinel, for callers that add their own.
func platformColumns(columns []string) (int, error) {
	n := 0
	for n < len(columns) && strings.HasPrefix(columns[len(columns)-1-n], "platform.") {
		n++
	}
	if n < LegacyPlatformFeatures || n > len(platformNames) {
		return 0, fmt.Errorf("%d platform features, want %d to %d", n, LegacyPlatformFeatures, len(platformNames))
	}
	at := len(columns) - n
	for i, name := range platformNames[:n] {
		if columns[at+i] != "platform."+name {
			return 0, fmt.Errorf("feature %d is %q, want %q", at+i, columns[at+i], "platform."+name)
		}
	}
	return n, nil
}

// FillMeasured returns p with each measured field that is 0 (not
// measured) taken from spec, a description of the same device from
// another source (datasets' device table of vendor specifications). The
// queried fields stay p's.
func (p Platform) FillMeasured(spec Platform) Platform {
	fill := func(dst *float64, v float64) {
		if *dst == 0 {
			*dst = v
		}
	}
	fill(&p.GlobalBandwidthGBs, spec.GlobalBandwidthGBs)
	fill(&p.FP32GFLOPs, spec.FP32GFLOPs)
	fill(&p.LocalBandwidthGBs, spec.LocalBandwidthGBs)
	fill(&p.LaunchOverheadUs, spec.LaunchOverheadUs)
	return p
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
