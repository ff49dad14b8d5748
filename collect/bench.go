package collect

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/augur-tuning/augur/collect/opencl"
	"github.com/augur-tuning/augur/features"
)

// Bench is the result of Benchmark on one device.
type Bench struct {
	// Platform is the device's description with the measured fields
	// (GlobalBandwidthGBs, FP32GFLOPs, LocalBandwidthGBs,
	// LaunchOverheadUs) filled in; a benchmark that failed leaves its
	// field 0.
	Platform features.Platform
	// Failures says why each failed benchmark failed, keyed by the name
	// of its platform feature (such as "fp32_gflops"); nil when none did.
	Failures map[string]string
}

// Benchmark measures the device with index device (the order ListDevices
// returns) with four micro-benchmarks: global memory bandwidth, fp32
// throughput, local memory bandwidth and launch overhead (see
// opencl.Session.Bench). They take a few seconds. A benchmark the device
// fails is recorded in Bench.Failures, not returned as an error: the
// error is for an unknown device, a session that cannot be opened, or a
// ctx done first.
func Benchmark(ctx context.Context, device int) (Bench, error) {
	devs, err := opencl.Devices()
	if err != nil {
		return Bench{}, fmt.Errorf("collect: %w", err)
	}
	if device < 0 || device >= len(devs) {
		return Bench{}, fmt.Errorf("collect: device must be in [0, %d], got %d", len(devs)-1, device)
	}
	sess, err := devs[device].Open()
	if err != nil {
		return Bench{}, fmt.Errorf("collect: %w", err)
	}
	b, err := bench(ctx, sess)
	return b, errors.Join(err, closeSession(sess))
}

// bench runs the benchmarks in an open session.
func bench(ctx context.Context, sess *opencl.Session) (Bench, error) {
	p, failures, err := sess.Bench(ctx)
	if err != nil {
		return Bench{}, fmt.Errorf("collect: %w", err)
	}
	return Bench{Platform: p, Failures: failures}, nil
}

// closeSession closes sess with the package's error prefix.
func closeSession(sess *opencl.Session) error {
	if err := sess.Close(); err != nil {
		return fmt.Errorf("collect: %w", err)
	}
	return nil
}

// bench measures the engine's device with the micro-benchmarks, in its
// session, and records the results in e.plat, which goes into the file's
// metadata. A benchmark that fails is a note, not an error.
//
// `augur collect` measures in child processes (see cmd/augur), and each
// child runs its own benchmarks rather than being handed its parent's
// results: a few seconds a child of hundreds of programs, no flag to
// carry them, no OpenCL in the parent (which would hold the driver's
// memory for the whole collection), and each file records what was
// measured in the process that wrote it.
func (e *engine) bench(ctx context.Context, sum *Summary, log io.Writer) error {
	b, err := bench(ctx, e.sess)
	if err != nil {
		return err
	}
	e.plat = b.Platform
	for _, name := range slices.Sorted(maps.Keys(b.Failures)) {
		why, _, _ := strings.Cut(b.Failures[name], "\n")
		sum.note(log, "benchmark %s failed, recorded as 0 (not measured): %s", name, why)
	}
	if e.sess.Stuck() {
		// A benchmark kernel that never finished blocks the queue.
		if err := e.reopen(); err != nil {
			return err
		}
	}
	// The benchmarks' buffers (up to 512 MiB) may stay in the process's
	// resident memory; growth counts from after them, or
	// Options.MaxGrowthBytes would stop every child at its first batch.
	e.startRSS = e.rss()
	return nil
}
