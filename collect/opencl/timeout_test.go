package opencl

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/augur-tuning/augur/datasets"
)

// spinSource runs n dependent steps in one work-item: about a second per
// 10^9 steps on a CPU, far longer than the deadlines below, but finite, so
// that an abandoned kernel does not burn a core for the rest of the tests.
const spinSource = `
__kernel void spin(__global const float *in, __global float *out, int n) {
	uint h = (uint)in[0];
	for (int i = 0; i < n; i++) h = h * 1664525u + 1013904223u + (h >> 13);
	out[0] = (float)h;
}
`

func TestRunDeadline(t *testing.T) {
	dev := firstDevice(t)
	tests := []struct {
		name string
		ctx  func() (context.Context, context.CancelFunc)
		want error
	}{
		{"deadline", func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 100*time.Millisecond)
		}, context.DeadlineExceeded},
		{"cancel", func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(100*time.Millisecond, cancel)
			return ctx, cancel
		}, context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := dev.Open()
			if err != nil {
				t.Fatal(err)
			}
			args, err := s.Bind([]datasets.Arg{
				{Name: "in", Kind: datasets.Input, Data: []float32{1}},
				{Name: "out", Kind: datasets.Output, Len: 1},
				{Name: "n", Kind: datasets.Int32, Int: 1_500_000_000},
			})
			if err != nil {
				t.Fatal(err)
			}
			p, err := s.Build(spinSource, "", "spin")
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := tt.ctx()
			defer cancel()
			t0 := time.Now()
			_, err = s.Run(ctx, p, args, datasets.Launch{Dims: 1, Global: [3]int{1, 1, 1}, Local: [3]int{1, 1, 1}})
			waited := time.Since(t0)
			if KindOf(err) != TimedOut || !errors.Is(err, tt.want) {
				t.Fatalf("Run: err = %v (%v), want TimedOut wrapping %v", err, KindOf(err), tt.want)
			}
			if waited > time.Second {
				t.Errorf("Run returned after %v, want soon after 100ms", waited)
			}
			if !s.Stuck() {
				t.Error("Stuck() = false after an abandoned kernel")
			}
			if _, err := s.Run(context.Background(), p, args, datasets.Launch{Dims: 1, Global: [3]int{1, 1, 1}}); err == nil {
				t.Error("Run on a stuck session succeeded, want an error")
			}
			p.Release()
			args.Release()
			t0 = time.Now()
			if err := s.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
			if d := time.Since(t0); d > closeGrace+time.Second {
				t.Errorf("Close took %v, want at most about %v", d, closeGrace)
			}
		})
	}
	// The device goes on in a new session.
	s, err := dev.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	args, err := s.Bind([]datasets.Arg{
		{Name: "in", Kind: datasets.Input, Data: []float32{1}},
		{Name: "out", Kind: datasets.Output, Len: 1},
		{Name: "n", Kind: datasets.Int32, Int: 10},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer args.Release()
	p, err := s.Build(spinSource, "", "spin")
	if err != nil {
		t.Fatal(err)
	}
	defer p.Release()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := s.Run(ctx, p, args, datasets.Launch{Dims: 1, Global: [3]int{1, 1, 1}}); err != nil {
		t.Errorf("Run in a new session after an abandoned kernel: %v", err)
	}
}

// TestDrain abandons a kernel, waits for it with Drain and runs again in
// the same session: a session whose abandoned kernel has finished is usable.
func TestDrain(t *testing.T) {
	dev := firstDevice(t)
	s, err := dev.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	bind := func(n int32) *Args {
		a, err := s.Bind([]datasets.Arg{
			{Name: "in", Kind: datasets.Input, Data: []float32{1}},
			{Name: "out", Kind: datasets.Output, Len: 1},
			{Name: "n", Kind: datasets.Int32, Int: n},
		})
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	long, short := bind(300_000_000), bind(1)
	defer long.Release()
	defer short.Release()
	p, err := s.Build(spinSource, "", "spin")
	if err != nil {
		t.Fatal(err)
	}
	defer p.Release()
	one := datasets.Launch{Dims: 1, Global: [3]int{1, 1, 1}, Local: [3]int{1, 1, 1}}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := s.Run(ctx, p, long, one); KindOf(err) != TimedOut {
		t.Fatalf("Run of the long kernel: %v, want a timeout", err)
	}
	if !s.Stuck() {
		t.Fatal("Stuck() = false after an abandoned kernel")
	}
	if s.Drain(context.Background(), time.Millisecond) {
		t.Error("Drain of 1 ms reported a kernel of about a third of a second finished")
	}
	if !s.Drain(context.Background(), 30*time.Second) {
		t.Fatal("Drain: the abandoned kernel did not finish within 30 s")
	}
	if s.Stuck() {
		t.Error("Stuck() = true after Drain")
	}
	if _, err := s.Run(context.Background(), p, short, one); err != nil {
		t.Errorf("Run after Drain: %v", err)
	}
}

// TestLateFlush keeps the flush of a GPU's kernel at its enqueue: a
// driver that holds the kernel until a later flush profiles the wait
// (NVIDIA's OpenCL: 20-22% spread instead of 4-5% on 10-30 us kernels).
func TestLateFlush(t *testing.T) {
	for _, tt := range []struct {
		typ  string
		want bool
	}{{"cpu", true}, {"gpu", false}, {"accelerator", false}, {"", false}} {
		if got := lateFlush(tt.typ); got != tt.want {
			t.Errorf("lateFlush(%q) = %v, want %v", tt.typ, got, tt.want)
		}
	}
}
