package opencl

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"
	"unsafe"

	"github.com/augur-tuning/augur/features"
	"github.com/jgillich/go-opencl/cl"
)

// Names of the micro-benchmarks: the keys of the failures Bench reports,
// and the names of the platform features their results become.
const (
	BenchGlobalBandwidth = "global_bw_gbs"
	BenchFP32            = "fp32_gflops"
	BenchLocalBandwidth  = "local_bw_gbs"
	BenchLaunch          = "launch_us"
)

// Sizes and counts of the micro-benchmarks. Together they take a few
// seconds a device, most of it compiling the four programs (PoCL on the
// 2-core EPYC dev VM: about 2 s).
const (
	// benchMaxCopyBytes bounds each of the copy's two buffers: far above
	// the last-level cache of current devices (50 MiB of L2 on an H100,
	// 32 MiB of L3 a core complex on an EPYC), so that the copy streams
	// from memory. A device gets at most an eighth of its global memory
	// and its largest allocation.
	benchMaxCopyBytes = 256 << 20
	// benchMinCopyBytes is the smallest copy worth reporting: anything
	// smaller would fit in a cache.
	benchMinCopyBytes = 16 << 20
	// benchCopyRuns is the number of timed copies; the fastest counts.
	benchCopyRuns = 10
	// benchTargetNs is how long one run of the fp32 and local memory
	// kernels is made to take, in nanoseconds: long enough that the launch
	// and the profiling resolution do not matter.
	benchTargetNs = 50e6
	// benchComputeRuns is the number of timed runs of the fp32 and local
	// memory kernels after calibration; the fastest counts.
	benchComputeRuns = 3
	// benchStartIters and benchMaxIters bound the loop count calibration
	// tries.
	benchStartIters = 64
	benchMaxIters   = 1 << 24
	// benchGroupsPerUnit is the number of work-groups a compute unit of
	// the fp32 and local memory kernels: several resident groups a unit
	// hide latency, and more even out the tail.
	benchGroupsPerUnit = 16
	// benchGroupSize is the largest work-group the benchmarks use.
	benchGroupSize = 256
	// benchLocalBytes is the local memory one work-group reads, at most
	// half the device's.
	benchLocalBytes = 16 << 10
	// benchWarmups and benchLaunches are the untimed and timed launches
	// of the empty kernel; the median counts.
	benchWarmups  = 20
	benchLaunches = 200
	// benchRunTimeout is the longest one benchmark kernel may run.
	benchRunTimeout = 10 * time.Second
)

// benchCopySource streams one buffer into another, 16 bytes a work-item.
const benchCopySource = `
__kernel void copy(__global const float4 *restrict in, __global float4 *restrict out) {
	size_t i = get_global_id(0);
	out[i] = in[i];
}
`

// benchFMASource runs 8 independent chains of float8 fused multiply-adds
// a work-item: 64 independent FMAs an iteration, enough to cover the FMA
// latency of a GPU lane, and vectors wide enough for a CPU's vector
// units, which PoCL does not fill across work-items when the kernel
// loops (PoCL on the 2-core EPYC dev VM: 16 scalar chains 14 GFLOP/s,
// float4 110, float8 227, float16 221). With 0 < y < 1 the chains
// converge to z/(1-y), so no value overflows or turns denormal; y and z
// are arguments, so the compiler cannot fold the loop.
const benchFMASource = `
#define STEP(x) x = fma(x, y, z)
__kernel void fma_chains(__global float *out, int iters, float ys, float zs) {
	float8 y = (float8)(ys), z = (float8)(zs);
	float8 x0 = (float8)((float)get_global_id(0) * 1e-9f) + (float8)(0.0f, 0.1f, 0.2f, 0.3f, 0.4f, 0.5f, 0.6f, 0.7f);
	float8 x1 = x0 + 0.01f, x2 = x0 + 0.02f, x3 = x0 + 0.03f;
	float8 x4 = x0 + 0.04f, x5 = x0 + 0.05f, x6 = x0 + 0.06f, x7 = x0 + 0.07f;
	for (int i = 0; i < iters; i++) {
		STEP(x0); STEP(x1); STEP(x2); STEP(x3);
		STEP(x4); STEP(x5); STEP(x6); STEP(x7);
	}
	float8 s = x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7;
	float4 h = s.lo + s.hi;
	out[get_global_id(0)] = h.x + h.y + h.z + h.w;
}
`

// benchFMAFlops is the floating-point operations a work-item does an
// iteration of fma_chains: 8 chains of 8 FMAs of 2 operations.
const benchFMAFlops = 8 * 8 * 2

// benchLocalSource fills LOCAL_N float4 of local memory, then reads it
// four float4 an iteration a work-item. Neighbouring work-items read
// neighbouring addresses (no bank conflicts), the addresses move every
// iteration (nothing can be hoisted out of the loop), and the sums are
// stored (nothing is dead). LOCAL_N is a power of two at least four times
// the work-group size.
const benchLocalSource = `
__kernel void local_read(__global float *out, int iters) {
	__local float4 buf[LOCAL_N];
	uint l = get_local_id(0);
	uint n = get_local_size(0);
	for (uint j = l; j < LOCAL_N; j += n)
		buf[j] = (float4)((float)j);
	barrier(CLK_LOCAL_MEM_FENCE);
	float4 a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f;
	const uint m = LOCAL_N - 1;
	for (int i = 0; i < iters; i++) {
		uint b = l + (uint)i * 4u * n;
		a0 += buf[b & m];
		a1 += buf[(b + n) & m];
		a2 += buf[(b + 2u * n) & m];
		a3 += buf[(b + 3u * n) & m];
	}
	float4 s = a0 + a1 + a2 + a3;
	out[get_global_id(0)] = s.x + s.y + s.z + s.w;
}
`

// benchLocalReads is the float4 reads a work-item does an iteration of
// local_read.
const benchLocalReads = 4

const benchEmptySource = `__kernel void empty(void) {}`

// Bench runs four micro-benchmarks on the session's device and returns
// its description with the measured fields filled in
// (features.Platform.GlobalBandwidthGBs and the three after it):
//
//   - global memory bandwidth: a copy between two buffers of
//     min(256 MiB, global memory/8, largest allocation) each, bytes read
//     plus written over the fastest of 10 runs;
//   - fp32 throughput: 8 independent float8 FMA chains a work-item, 16
//     work-groups a compute unit, run long enough to take about 50 ms;
//   - local memory bandwidth: float4 reads of 16 KiB of __local memory a
//     work-group (less on a device with under 32 KiB), likewise;
//   - launch overhead: the median of 200 launches of an empty kernel.
//
// The first three are timed by profiling events, the last by the host's
// clock (see benchLaunchOverhead). A benchmark that fails leaves its
// field 0 and its reason in failures, keyed by its name (BenchFP32, ...);
// failures is nil when all succeed. The error is for a ctx done before
// the benchmarks finished.
func (s *Session) Bench(ctx context.Context) (p features.Platform, failures map[string]string, err error) {
	p = s.dev.info
	benches := []struct {
		name  string
		field *float64
		run   func(context.Context) (float64, error)
	}{
		{BenchLaunch, &p.LaunchOverheadUs, s.benchLaunchOverhead},
		{BenchGlobalBandwidth, &p.GlobalBandwidthGBs, s.benchGlobalBandwidth},
		{BenchFP32, &p.FP32GFLOPs, s.benchFP32},
		{BenchLocalBandwidth, &p.LocalBandwidthGBs, s.benchLocalBandwidth},
	}
	for _, b := range benches {
		v, err := b.run(ctx)
		if ctx.Err() != nil {
			return p, failures, fmt.Errorf("opencl: benchmarks interrupted: %w", context.Cause(ctx))
		}
		if err == nil && (v <= 0 || math.IsInf(v, 0) || math.IsNaN(v)) {
			err = fmt.Errorf("opencl: %s measured %g", b.name, v)
		}
		if err != nil {
			if failures == nil {
				failures = map[string]string{}
			}
			failures[b.name] = err.Error()
			continue
		}
		*b.field = v
	}
	return p, failures, nil
}

// benchGroup returns the work-group size of the benchmark kernel p: the
// largest power of two no greater than benchGroupSize, the kernel's limit
// and the device's first work-item dimension.
func (s *Session) benchGroup(p *Program) int {
	n := min(benchGroupSize, p.WorkGroupSize, s.dev.info.MaxWorkItemSizes[0])
	wg := 1
	for wg*2 <= n {
		wg *= 2
	}
	return wg
}

// timeKernel runs k once and returns its time from the profiling events,
// in nanoseconds, waiting at most benchRunTimeout.
func (s *Session) timeKernel(ctx context.Context, k *cl.Kernel, global, local []int) (int64, error) {
	if s.stuck != nil {
		return 0, &Error{Kind: LaunchFailed, Op: "run on a queue stuck behind an unfinished kernel"}
	}
	ev, err := s.queue.EnqueueNDRangeKernel(k, nil, global, local, nil)
	if err != nil {
		if ev != nil {
			ev.Release()
		}
		return 0, wrap("enqueue kernel", err)
	}
	rctx, cancel := context.WithTimeout(ctx, benchRunTimeout)
	defer cancel()
	if err := s.await(rctx, ev); err != nil {
		return 0, err
	}
	defer ev.Release()
	ns, err := elapsed(ev)
	if err != nil {
		return 0, wrap("read profiling times", err)
	}
	return ns, nil
}

// fastest runs k runs times after one warm-up and returns the shortest
// time, in nanoseconds.
func (s *Session) fastest(ctx context.Context, k *cl.Kernel, global, local []int, runs int) (int64, error) {
	best := int64(math.MaxInt64)
	for run := 0; run <= runs; run++ {
		ns, err := s.timeKernel(ctx, k, global, local)
		if err != nil {
			return 0, err
		}
		if run > 0 {
			best = min(best, ns)
		}
	}
	if best <= 0 {
		return 0, fmt.Errorf("opencl: kernel ran in %d ns by its profiling events", best)
	}
	return best, nil
}

// calibrate finds the loop count, argument iterArg of k, that makes one
// run take about benchTargetNs, and leaves the argument set to it. Its
// first run warms the kernel up.
func (s *Session) calibrate(ctx context.Context, k *cl.Kernel, iterArg int, global, local []int) (int32, error) {
	iters := int32(benchStartIters)
	for {
		if err := k.SetArgInt32(iterArg, iters); err != nil {
			return 0, wrap("set the loop count", err)
		}
		ns, err := s.timeKernel(ctx, k, global, local)
		if err != nil {
			return 0, err
		}
		if float64(ns) >= benchTargetNs/2 || iters >= benchMaxIters {
			return iters, nil
		}
		grow := min(max(benchTargetNs/float64(max(ns, 1)), 2), 64)
		iters = int32(min(float64(benchMaxIters), float64(iters)*grow))
	}
}

// benchGlobalBandwidth measures a streaming copy, in GB/s.
func (s *Session) benchGlobalBandwidth(ctx context.Context) (float64, error) {
	p, err := s.Build(benchCopySource, "", "copy")
	if err != nil {
		return 0, err
	}
	defer p.Release()
	wg := s.benchGroup(p)
	maxAlloc, err := maxAllocBytes(s.dev.dev)
	if err != nil {
		return 0, wrap("query the largest allocation", err)
	}
	size := min(benchMaxCopyBytes, s.dev.info.GlobalMemBytes/8, maxAlloc)
	size -= size % int64(16*wg)
	if size < benchMinCopyBytes {
		return 0, fmt.Errorf("opencl: the copy needs buffers of %d MiB, the device allows %d bytes", benchMinCopyBytes>>20, size)
	}
	in, err := s.ctx.CreateEmptyBuffer(cl.MemReadOnly, int(size))
	if err != nil {
		return 0, wrap("create the copy's input", err)
	}
	defer in.Release()
	out, err := s.ctx.CreateEmptyBuffer(cl.MemWriteOnly, int(size))
	if err != nil {
		return 0, wrap("create the copy's output", err)
	}
	defer out.Release()
	// Written first: a CPU device would otherwise read pages the kernel
	// never touched, which all map to one page of zeros in the cache.
	one := float32(1)
	ev, err := s.queue.EnqueueFillBuffer(in, unsafe.Pointer(&one), 4, 0, int(size), nil)
	if err == nil {
		err = cl.WaitForEvents([]*cl.Event{ev})
	}
	if ev != nil {
		ev.Release()
	}
	if err != nil {
		return 0, wrap("fill the copy's input", err)
	}
	if err := p.kernel.SetArgs(in, out); err != nil {
		return 0, wrap("set arguments", err)
	}
	ns, err := s.fastest(ctx, p.kernel, []int{int(size / 16)}, []int{wg}, benchCopyRuns)
	if err != nil {
		return 0, err
	}
	// Bytes a nanosecond are GB/s.
	return float64(2*size) / float64(ns), nil
}

// benchFP32 measures FMA throughput, in GFLOP/s.
func (s *Session) benchFP32(ctx context.Context) (float64, error) {
	p, err := s.Build(benchFMASource, "", "fma_chains")
	if err != nil {
		return 0, err
	}
	defer p.Release()
	wg := s.benchGroup(p)
	items := max(s.dev.info.ComputeUnits, 1) * benchGroupsPerUnit * wg
	out, err := s.ctx.CreateEmptyBuffer(cl.MemWriteOnly, 4*items)
	if err != nil {
		return 0, wrap("create the output", err)
	}
	defer out.Release()
	if err := p.kernel.SetArgs(out, int32(0), float32(0.9), float32(0.1)); err != nil {
		return 0, wrap("set arguments", err)
	}
	global, local := []int{items}, []int{wg}
	iters, err := s.calibrate(ctx, p.kernel, 1, global, local)
	if err != nil {
		return 0, err
	}
	ns, err := s.fastest(ctx, p.kernel, global, local, benchComputeRuns)
	if err != nil {
		return 0, err
	}
	return float64(items) * float64(iters) * benchFMAFlops / float64(ns), nil
}

// benchLocalBandwidth measures reads of local memory, in GB/s.
func (s *Session) benchLocalBandwidth(ctx context.Context) (float64, error) {
	bytes := min(benchLocalBytes, s.dev.info.LocalMemBytes/2)
	n := 1 // float4 in local memory: a power of two
	for int64(32*n) <= bytes {
		n *= 2
	}
	if n < 16 {
		return 0, fmt.Errorf("opencl: the device has %d bytes of local memory, the benchmark needs 512", s.dev.info.LocalMemBytes)
	}
	p, err := s.Build(benchLocalSource, fmt.Sprintf("-DLOCAL_N=%du", n), "local_read")
	if err != nil {
		return 0, err
	}
	defer p.Release()
	wg := min(s.benchGroup(p), n/benchLocalReads)
	items := max(s.dev.info.ComputeUnits, 1) * benchGroupsPerUnit * wg
	out, err := s.ctx.CreateEmptyBuffer(cl.MemWriteOnly, 4*items)
	if err != nil {
		return 0, wrap("create the output", err)
	}
	defer out.Release()
	if err := p.kernel.SetArgs(out, int32(0)); err != nil {
		return 0, wrap("set arguments", err)
	}
	global, local := []int{items}, []int{wg}
	iters, err := s.calibrate(ctx, p.kernel, 1, global, local)
	if err != nil {
		return 0, err
	}
	ns, err := s.fastest(ctx, p.kernel, global, local, benchComputeRuns)
	if err != nil {
		return 0, err
	}
	return float64(items) * float64(iters) * benchLocalReads * 16 / float64(ns), nil
}

// benchLaunchOverhead measures the median time of an empty kernel, in
// microseconds. It reads the host's clock around enqueue and clFinish, not
// the profiling events: those time the kernel on the device and leave out
// the submission and completion that the overhead is made of.
func (s *Session) benchLaunchOverhead(ctx context.Context) (float64, error) {
	if s.stuck != nil {
		return 0, &Error{Kind: LaunchFailed, Op: "run on a queue stuck behind an unfinished kernel"}
	}
	p, err := s.Build(benchEmptySource, "", "empty")
	if err != nil {
		return 0, err
	}
	defer p.Release()
	times := make([]float64, 0, benchLaunches)
	for i := range benchWarmups + benchLaunches {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		t0 := time.Now()
		ev, err := s.queue.EnqueueNDRangeKernel(p.kernel, nil, []int{1}, []int{1}, nil)
		if err == nil {
			err = s.queue.Finish()
		}
		d := time.Since(t0)
		if ev != nil {
			ev.Release()
		}
		if err != nil {
			return 0, wrap("launch the empty kernel", err)
		}
		if i >= benchWarmups {
			times = append(times, float64(d.Nanoseconds())/1e3)
		}
	}
	slices.Sort(times)
	return times[len(times)/2], nil
}
