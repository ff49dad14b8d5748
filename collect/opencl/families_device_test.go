package opencl_test

// These tests run the median and fbcorr families on a real device through
// Session (so that the image arguments' binding is tested with them) and
// compare every output with the family's Go reference. Each covers every
// value of every categorical parameter with configurations that ran.

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/augur-tuning/augur/collect/opencl"
	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/features"
)

// familyCase is one (task, configuration) to run.
type familyCase struct {
	task   features.Task
	config features.Config
}

// familyRig is a session on the first device and the programs built for
// one family, by build options.
type familyRig struct {
	sess *opencl.Session
	plat features.Platform
	k    *datasets.Kernel

	mu       sync.Mutex
	programs map[string]*familyProgram
}

type familyProgram struct {
	prog *opencl.Program
	err  error
}

func newFamilyRig(t *testing.T, k *datasets.Kernel) *familyRig {
	t.Helper()
	devs, err := opencl.Devices()
	if err != nil {
		t.Skipf("no OpenCL device: %v", err)
	}
	sess, err := devs[0].Open()
	if err != nil {
		t.Fatal(err)
	}
	r := &familyRig{sess: sess, plat: devs[0].Platform(), k: k, programs: map[string]*familyProgram{}}
	t.Cleanup(func() {
		for _, p := range r.programs {
			if p.prog != nil {
				p.prog.Release()
			}
		}
		sess.Close()
	})
	t.Logf("device: %s", devs[0])
	return r
}

// pruned returns why collect would not compile the case on this device,
// or nil: the checks of collect's pruning that the tests can see.
func (r *familyRig) pruned(c familyCase) error {
	l, err := r.k.Geometry(c.task, c.config)
	if err != nil {
		return err
	}
	if err := r.k.CheckDevice(c.config, r.plat); err != nil {
		return err
	}
	if n := l.WorkGroupSize(); n > r.plat.MaxWorkGroupSize {
		return fmt.Errorf("work-group %d > device %d", n, r.plat.MaxWorkGroupSize)
	}
	if int64(l.LocalMemBytes) > r.plat.LocalMemBytes {
		return fmt.Errorf("local memory %d B > device %d B", l.LocalMemBytes, r.plat.LocalMemBytes)
	}
	return nil
}

// buildAll compiles the unpruned cases' programs, one worker a CPU.
func (r *familyRig) buildAll(cases []familyCase) {
	jobs := make(chan string)
	var wg sync.WaitGroup
	for range runtime.NumCPU() {
		wg.Go(func() {
			for o := range jobs {
				p := &familyProgram{}
				p.prog, p.err = r.sess.Build(r.k.Source, o, r.k.Entry)
				r.mu.Lock()
				r.programs[o] = p
				r.mu.Unlock()
			}
		})
	}
	seen := map[string]bool{}
	for _, c := range cases {
		if o := r.k.Options(c.task, c.config); !seen[o] && r.pruned(c) == nil {
			seen[o] = true
			jobs <- o
		}
	}
	close(jobs)
	wg.Wait()
}

// run runs one built case and compares its output with the reference.
func (r *familyRig) run(c familyCase, rng *rand.Rand) error {
	l, err := r.k.Geometry(c.task, c.config)
	if err != nil {
		return err
	}
	p := r.programs[r.k.Options(c.task, c.config)]
	if p.err != nil {
		return fmt.Errorf("build: %w", p.err)
	}
	args := r.k.Args(c.task, rng)
	a, err := r.sess.Bind(args)
	if err != nil {
		return err
	}
	defer a.Release()
	if err := r.sess.ResetOutput(a); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := r.sess.Run(ctx, p.prog, a, l); err != nil {
		return err
	}
	got := make([]float32, a.OutputLen())
	if _, err := r.sess.ReadOutput(a, got); err != nil {
		return err
	}
	want := r.k.Want(c.task, args)
	for i, v := range want {
		diff := math.Abs(float64(got[i]) - float64(v))
		if !(diff <= r.k.Tolerance*math.Abs(float64(v))+1e-6) {
			return fmt.Errorf("output %d of %d = %g, want %g", i, len(want), got[i], v)
		}
	}
	return nil
}

// runFamily runs every unpruned case and returns, for each parameter,
// the values that cases which ran correctly covered.
func runFamily(t *testing.T, r *familyRig, cases []familyCase) []map[int]bool {
	t.Helper()
	start := time.Now()
	r.buildAll(cases)
	t.Logf("%d programs built in %v", len(r.programs), time.Since(start).Round(time.Millisecond))
	covered := make([]map[int]bool, len(r.k.Space.Params))
	for i := range covered {
		covered[i] = map[int]bool{}
	}
	rng := rand.New(rand.NewPCG(10, 3))
	ran := 0
	for _, c := range cases {
		name := features.FormatTask(r.k.TaskNames, c.task) + " " + r.k.Space.Format(c.config)
		if err := r.pruned(c); err != nil {
			t.Logf("%s: pruned: %v", name, err)
			continue
		}
		err := r.run(c, rng)
		if opencl.KindOf(err) == opencl.ResourceLimit {
			t.Logf("%s: device limit: %v", name, err)
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		ran++
		for i, v := range c.config {
			covered[i][v] = true
		}
	}
	t.Logf("%d of %d cases ran correctly in %v", ran, len(cases), time.Since(start).Round(time.Millisecond))
	return covered
}

// checkCoverage fails for each value of the named parameters that no
// correct case took.
func checkCoverage(t *testing.T, s *features.Space, covered []map[int]bool, names ...string) {
	t.Helper()
	for _, n := range names {
		i := s.Param(n)
		for _, v := range s.Params[i].Values {
			if !covered[i][v] {
				t.Errorf("no configuration with %s=%d ran correctly", n, v)
			}
		}
	}
}

// TestMedianDevice runs all 16 combinations of median's four switches,
// with work-group sizes and pixels per work-item walking Table 1's twelve
// values, on images no tile divides, each filter size.
func TestMedianDevice(t *testing.T) {
	k := datasets.Median()
	r := newFamilyRig(t, k)
	sizes := k.Space.Params[0].Values
	tasks := []features.Task{{37, 29, 3}, {40, 17, 5}, {16, 23, 7}}
	var cases []familyCase
	for i := range 24 {
		sw := i % 16
		c := features.Config{
			sizes[i%12], sizes[(5*i+3)%12], sizes[(7*i+1)%12], sizes[(11*i+2)%12],
			sw & 1, sw >> 1 & 1, sw >> 2 & 1, sw >> 3 & 1,
		}
		// Keep work-groups within every device's 1024 work-items.
		for c[0]*c[1] > 1024 {
			c[1] /= 2
		}
		// And local memory within 48 KiB, NVIDIA's: the largest size
		// steps down until it fits.
		task := tasks[i%3]
		for {
			l, err := k.Geometry(task, c)
			if err != nil {
				t.Fatal(err)
			}
			if l.LocalMemBytes <= 48<<10 {
				break
			}
			j := 2 // the larger of the four sizes shrinks
			for m := range 4 {
				if c[m] > c[j] {
					j = m
				}
			}
			c[j] = sizes[slices.Index(sizes, c[j])-1]
		}
		cases = append(cases, familyCase{task, c})
	}
	covered := runFamily(t, r, cases)
	checkCoverage(t, k.Space, covered, "IMG", "LMEM", "ALG", "LARR")
}

// TestFbcorrDevice runs configurations covering every value of fbcorr's
// categorical parameters on small shapes with filter counts that are not
// multiples of 4 or 8, and checks that maxrreg other than inf is pruned
// on a platform other than NVIDIA's.
func TestFbcorrDevice(t *testing.T) {
	k := datasets.Fbcorr()
	r := newFamilyRig(t, k)
	blocks := []int{4, 8, 16, 32, 64, 4, 16, 8}
	tasks := []features.Task{{12, 14, 3, 6, 3, 3}, {20, 17, 5, 9, 5, 3}, {9, 11, 2, 1, 3, 5}, {16, 16, 4, 8, 1, 1}}
	var cases []familyCase
	for i := range 12 {
		c := features.Config{
			blocks[i%8], blocks[(3*i+2)%8], 1 + i%2, []int{0, 1, 2}[i%3],
			i >> 1 & 1, i >> 2 & 1, (i + 1) % 2, (i>>1)%2 ^ i%2, 0, i >> 3 & 1,
		}
		cases = append(cases, familyCase{tasks[i%4], c})
	}
	// The reference, and fast math with every other switch on.
	cases = append(cases, familyCase{tasks[1], k.Reference}, familyCase{tasks[0], features.Config{8, 4, 2, 2, 1, 1, 1, 1, 0, 1}})
	covered := runFamily(t, r, cases)
	checkCoverage(t, k.Space, covered, "n_filter_r", "n_output_4s", "spill", "imul_fast", "pad_shared", "use_tex1d", "fast_math")

	limited := features.Config{8, 8, 1, 0, 0, 1, 1, 1, 24, 0}
	err := k.CheckDevice(limited, r.plat)
	if nvidia := strings.Contains(strings.ToUpper(r.plat.PlatformName), "NVIDIA"); nvidia != (err == nil) || (!nvidia && !errors.Is(err, datasets.ErrDevice)) {
		t.Errorf("maxrreg=24 on %s: CheckDevice gives %v", r.plat.PlatformName, err)
	}
}
