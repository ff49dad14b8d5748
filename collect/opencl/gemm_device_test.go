package opencl_test

// TestGEMMDeviceCoverage runs datasets.GEMM's OpenCL source on a real
// device through a Session, as collect does, and compares every output
// with the kernel's Go reference.

import (
	"context"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/augur-tuning/augur/collect/opencl"
	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/features"
)

// gemmCoverage picks configurations from the space so that every value of
// every parameter and every combination of SA, SB, STRM and STRN appears
// at least once, each otherwise drawn at random from the valid ones.
func gemmCoverage(s *features.Space, rng *rand.Rand) []features.Config {
	all := s.All()
	var out []features.Config
	seen := map[string]bool{}
	pick := func(match func(features.Config) bool) {
		var cands []features.Config
		for _, c := range all {
			if match(c) {
				cands = append(cands, c)
			}
		}
		if len(cands) == 0 {
			return
		}
		c := cands[rng.IntN(len(cands))]
		if key := s.Format(c); !seen[key] {
			seen[key] = true
			out = append(out, c)
		}
	}
	for k, p := range s.Params {
		for _, v := range p.Values {
			pick(func(c features.Config) bool { return c[k] == v })
		}
	}
	strm, strn, sa, sb := s.Param("STRM"), s.Param("STRN"), s.Param("SA"), s.Param("SB")
	for bits := range 16 {
		pick(func(c features.Config) bool {
			return c[strm] == bits&1 && c[strn] == bits>>1&1 && c[sa] == bits>>2&1 && c[sb] == bits>>3&1
		})
	}
	return out
}

func TestGEMMDeviceCoverage(t *testing.T) {
	devs, err := opencl.Devices()
	if err != nil || len(devs) == 0 {
		t.Skipf("no OpenCL device: %v", err)
	}
	dev := devs[0]
	plat := dev.Platform()
	sess, err := dev.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	t.Logf("device: %s", dev)

	k := datasets.GEMM()
	configs := append([]features.Config{k.Reference}, gemmCoverage(k.Space, rand.New(rand.NewPCG(2015, 6)))...)
	for k, p := range k.Space.Params {
		for _, v := range p.Values {
			found := false
			for _, c := range configs {
				found = found || c[k] == v
			}
			if !found {
				t.Fatalf("no configuration with %s=%d", p.Name, v)
			}
		}
	}

	// Compile in parallel first, as collect does on a CPU device.
	progs := make([]*opencl.Program, len(configs))
	errs := make([]error, len(configs))
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range runtime.NumCPU() {
		wg.Go(func() {
			for i := range jobs {
				progs[i], errs[i] = sess.Build(k.Source, k.Options(nil, configs[i]), k.Entry)
			}
		})
	}
	for i := range configs {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	defer func() {
		for _, p := range progs {
			if p != nil {
				p.Release()
			}
		}
	}()

	// Non-square shapes, K not a power of two, one and several K steps.
	tasks := []features.Task{{128, 128, 32}, {256, 128, 96}, {128, 384, 64}}
	rng := rand.New(rand.NewPCG(6, 1))
	ran, limited := 0, 0
	for _, task := range tasks {
		args := k.Args(task, rng)
		want := k.Want(task, args)
		a, err := sess.Bind(args)
		if err != nil {
			t.Fatal(err)
		}
		got := make([]float32, len(want))
		for i, c := range configs {
			name := features.FormatTask(k.TaskNames, task) + " " + k.Space.Format(c)
			if errs[i] != nil {
				t.Errorf("%s: build: %v", name, errs[i])
				continue
			}
			l, err := k.Geometry(task, c)
			if err != nil {
				t.Fatalf("%s: geometry: %v", name, err)
			}
			if l.WorkGroupSize() > plat.MaxWorkGroupSize || l.WorkGroupSize() > progs[i].WorkGroupSize || int64(l.LocalMemBytes) > plat.LocalMemBytes {
				limited++
				t.Logf("%s: beyond the device's limits", name)
				continue
			}
			if err := sess.ResetOutput(a); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			_, err = sess.Run(ctx, progs[i], a, l)
			cancel()
			if err != nil {
				t.Errorf("%s: run: %v", name, err)
				continue
			}
			if _, err := sess.ReadOutput(a, got); err != nil {
				t.Fatal(err)
			}
			for j, w := range want {
				if d := math.Abs(float64(got[j] - w)); !(d <= k.Tolerance*math.Abs(float64(w))) {
					t.Errorf("%s: C[n=%d][m=%d] = %g, want %g", name, j/task[0], j%task[0], got[j], w)
					break
				}
			}
			ran++
		}
		a.Release()
	}
	t.Logf("%d configurations x %d shapes: %d ran and matched, %d beyond the device's limits", len(configs), len(tasks), ran, limited)
	if limited > len(configs)*len(tasks)/4 {
		t.Errorf("got %d cases beyond the device's limits, want most to run", limited)
	}
}
