package opencl

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/augur-tuning/augur/datasets"
)

// firstDevice returns the first OpenCL device, or skips the test on a
// machine without one.
func firstDevice(t testing.TB) Device {
	t.Helper()
	devs, err := Devices()
	if err != nil {
		t.Skipf("no OpenCL device: %v", err)
	}
	return devs[0]
}

func TestDevicesPlausible(t *testing.T) {
	devs, err := Devices()
	if err != nil {
		t.Skipf("no OpenCL device: %v", err)
	}
	again, err := Devices()
	if err != nil {
		t.Fatal(err)
	}
	if len(again) != len(devs) {
		t.Fatalf("second listing has %d devices, first had %d", len(again), len(devs))
	}
	for i, d := range devs {
		p := d.Platform()
		if got, want := again[i].Platform(), p; got != want {
			t.Errorf("device %d: second listing %+v, first %+v", i, got, want)
		}
		checks := []struct {
			name string
			ok   bool
		}{
			{"PlatformName non-empty", p.PlatformName != ""},
			{"Name non-empty", p.Name != ""},
			{"Vendor non-empty", p.Vendor != ""},
			{"DriverVersion non-empty", p.DriverVersion != ""},
			{"OpenCLVersion starts with OpenCL", strings.HasPrefix(p.OpenCLVersion, "OpenCL ")},
			{"Type known", p.Type == "cpu" || p.Type == "gpu" || p.Type == "accelerator"},
			{"ComputeUnits >= 1", p.ComputeUnits >= 1},
			{"ClockMHz >= 1", p.ClockMHz >= 1},
			{"MaxWorkGroupSize >= 1", p.MaxWorkGroupSize >= 1},
			{"MaxWorkItemSizes[0] in [1, MaxWorkGroupSize*1024]", p.MaxWorkItemSizes[0] >= 1 && p.MaxWorkItemSizes[0] <= p.MaxWorkGroupSize*1024},
			{"MaxWorkItemSizes[2] >= 1", p.MaxWorkItemSizes[2] >= 1},
			{"LocalMemBytes >= 1 KiB", p.LocalMemBytes >= 1024},
			{"GlobalMemBytes >= 64 MiB", p.GlobalMemBytes >= 64<<20},
			{"ConstantMemBytes >= 1 KiB", p.ConstantMemBytes >= 1024},
			{"GlobalCacheBytes >= 0", p.GlobalCacheBytes >= 0},
			{"CacheLineBytes a power of two or 0", p.CacheLineBytes&(p.CacheLineBytes-1) == 0},
			{"Slug non-empty", p.Slug() != "unknown-device"},
		}
		for _, c := range checks {
			if !c.ok {
				t.Errorf("device %d (%s): want %s, got %+v", i, d, c.name, p)
			}
		}
	}
}

const scaleSource = `
__kernel void scale(__global const float *in, __global float *out, int n) {
	__local float tile[TILE];
	int i = get_global_id(0);
	tile[get_local_id(0)] = in[i];
	barrier(CLK_LOCAL_MEM_FENCE);
	if (i < n) out[i] = FACTOR * tile[get_local_id(0)];
}
`

func TestBuildRunRead(t *testing.T) {
	dev := firstDevice(t)
	s, err := dev.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	const n = 256
	in := make([]float32, n)
	for i := range in {
		in[i] = float32(i)
	}
	args, err := s.Bind([]datasets.Arg{
		{Name: "in", Kind: datasets.Input, Data: in},
		{Name: "out", Kind: datasets.Output, Len: n},
		{Name: "n", Kind: datasets.Int32, Int: n},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer args.Release()

	p, err := s.Build(scaleSource, "-D FACTOR=3.0f -D TILE=64", "scale")
	if err != nil {
		t.Fatal(err)
	}
	defer p.Release()
	if p.WorkGroupSize < 1 || p.WorkGroupSize > dev.Platform().MaxWorkGroupSize {
		t.Errorf("WorkGroupSize = %d, want in [1, %d]", p.WorkGroupSize, dev.Platform().MaxWorkGroupSize)
	}
	// The kernel declares 64 floats of local memory; the query must see
	// at least that much, which also checks the handle cast in cgo.go.
	if p.LocalMemBytes < 64*4 || p.LocalMemBytes > dev.Platform().LocalMemBytes {
		t.Errorf("LocalMemBytes = %d, want in [256, %d]", p.LocalMemBytes, dev.Platform().LocalMemBytes)
	}

	if err := s.ResetOutput(args); err != nil {
		t.Fatal(err)
	}
	launch := datasets.Launch{Dims: 1, Global: [3]int{n, 1, 1}, Local: [3]int{64, 1, 1}}
	ns, err := s.Run(context.Background(), p, args, launch)
	if err != nil {
		t.Fatal(err)
	}
	if ns <= 0 {
		t.Errorf("Run time = %d ns, want > 0", ns)
	}
	got := make([]float32, n)
	if _, err := s.ReadOutput(args, got); err != nil {
		t.Fatal(err)
	}
	for i, v := range got {
		if want := 3 * float32(i); v != want {
			t.Fatalf("out[%d] = %v, want %v", i, v, want)
		}
	}

	// After a reset the output must read NaN again.
	if err := s.ResetOutput(args); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ReadOutput(args, got); err != nil {
		t.Fatal(err)
	}
	if !math.IsNaN(float64(got[0])) {
		t.Errorf("after ResetOutput out[0] = %v, want NaN", got[0])
	}
}

func TestFailureKinds(t *testing.T) {
	dev := firstDevice(t)
	s, err := dev.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	args, err := s.Bind([]datasets.Arg{
		{Name: "in", Kind: datasets.Input, Data: make([]float32, 64)},
		{Name: "out", Kind: datasets.Output, Len: 64},
		{Name: "n", Kind: datasets.Int32, Int: 64},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer args.Release()

	t.Run("syntax error", func(t *testing.T) {
		_, err := s.Build(scaleSource+"\nthis is not C;\n", "-D FACTOR=1.0f -D TILE=64", "scale")
		var e *Error
		if !errors.As(err, &e) || e.Kind != BuildFailed {
			t.Fatalf("Build error = %v, want Kind BuildFailed", err)
		}
		if e.Log == "" {
			t.Errorf("BuildFailed error has an empty Log")
		}
	})
	t.Run("missing entry", func(t *testing.T) {
		_, err := s.Build(scaleSource, "-D FACTOR=1.0f -D TILE=64", "nope")
		if got := KindOf(err); err == nil || got != BuildFailed {
			t.Fatalf("Build error = %v (kind %v), want BuildFailed", err, got)
		}
	})

	p, err := s.Build(scaleSource, "-D FACTOR=1.0f -D TILE=64", "scale")
	if err != nil {
		t.Fatal(err)
	}
	defer p.Release()
	tests := []struct {
		name   string
		launch datasets.Launch
		want   Kind
	}{
		{"work-group above kernel limit", datasets.Launch{Dims: 1, Global: [3]int{64 * (p.WorkGroupSize + 1)}, Local: [3]int{2 * p.WorkGroupSize}}, ResourceLimit},
		// OpenCL reports CL_INVALID_WORK_GROUP_SIZE for this too.
		{"global not a multiple of local", datasets.Launch{Dims: 1, Global: [3]int{63}, Local: [3]int{2}}, ResourceLimit},
		{"zero dimensions", datasets.Launch{Dims: 0}, LaunchFailed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := s.Run(context.Background(), p, args, tt.launch)
			if err == nil {
				t.Fatalf("Run succeeded, want %v", tt.want)
			}
			if got := KindOf(err); got != tt.want {
				t.Errorf("Run error %v has kind %v, want %v", err, got, tt.want)
			}
		})
	}

	t.Run("missing argument", func(t *testing.T) {
		short, err := s.Bind([]datasets.Arg{{Kind: datasets.Input, Data: make([]float32, 64)}, {Kind: datasets.Output, Len: 64}})
		if err != nil {
			t.Fatal(err)
		}
		defer short.Release()
		// A fresh program, because kernel arguments persist between runs.
		fresh, err := s.Build(scaleSource, "-D FACTOR=1.0f -D TILE=64", "scale")
		if err != nil {
			t.Fatal(err)
		}
		defer fresh.Release()
		_, err = s.Run(context.Background(), fresh, short, datasets.Launch{Dims: 1, Global: [3]int{64}, Local: [3]int{64}})
		if got := KindOf(err); err == nil || got != LaunchFailed {
			t.Errorf("Run error %v (kind %v), want LaunchFailed", err, got)
		}
	})
}

func TestBindRejects(t *testing.T) {
	dev := firstDevice(t)
	s, err := dev.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tests := []struct {
		name string
		args []datasets.Arg
	}{
		{"no output", []datasets.Arg{{Kind: datasets.Input, Data: []float32{1}}}},
		{"empty buffer", []datasets.Arg{{Kind: datasets.Buffer, Output: true}}},
		{"scalar without a value", []datasets.Arg{{Kind: datasets.Scalar}, {Kind: datasets.Output, Len: 1}}},
		{"buffers but no output", []datasets.Arg{{Kind: datasets.Buffer, Bytes: make([]byte, 4)}}},
		{"empty input", []datasets.Arg{{Kind: datasets.Input}, {Kind: datasets.Output, Len: 1}}},
		{"zero-length output", []datasets.Arg{{Kind: datasets.Output}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if a, err := s.Bind(tt.args); err == nil {
				a.Release()
				t.Errorf("Bind succeeded, want an error")
			}
		})
	}
}

// BenchmarkBuildRelease builds and releases one small program, the cycle
// collect repeats for every distinct configuration; with -benchmem it
// also shows that nothing accumulates on the Go side.
func BenchmarkBuildRelease(b *testing.B) {
	dev := firstDevice(b)
	s, err := dev.Open()
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	b.ReportAllocs()
	for b.Loop() {
		p, err := s.Build(scaleSource, "-D FACTOR=2.0f -D TILE=64", "scale")
		if err != nil {
			b.Fatal(err)
		}
		p.Release()
	}
}
