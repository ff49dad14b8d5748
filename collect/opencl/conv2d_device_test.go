package opencl_test

// These tests run datasets.Conv2D's OpenCL source on a real device and
// compare every output with the kernel's Go reference. They drive the
// binding directly rather than this package's Session, so that the kernel
// family is checked independently of collect's own code.

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"

	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/features"
	"github.com/jgillich/go-opencl/cl"
)

// conv2dGuard is the number of floats after the output buffer that must
// survive a run, so that a store past the image shows up as a failure.
const conv2dGuard = 64

// conv2dRig is one device with a context and queue, and the programs built
// so far, by build options.
type conv2dRig struct {
	dev   *cl.Device
	ctx   *cl.Context
	queue *cl.CommandQueue
	k     *datasets.Kernel

	mu       sync.Mutex
	programs map[string]*conv2dProgram
}

type conv2dProgram struct {
	prog   *cl.Program
	kernel *cl.Kernel
	err    error
}

// newConv2DRig opens the first device of the first platform that has one,
// or skips the test when the machine has no OpenCL.
func newConv2DRig(t *testing.T) *conv2dRig {
	t.Helper()
	platforms, err := cl.GetPlatforms()
	if err != nil || len(platforms) == 0 {
		t.Skipf("no OpenCL platform: %v", err)
	}
	var dev *cl.Device
	for _, p := range platforms {
		devs, err := p.GetDevices(cl.DeviceTypeAll)
		if err == nil && len(devs) > 0 {
			dev = devs[0]
			break
		}
	}
	if dev == nil {
		t.Skip("no OpenCL device")
	}
	ctx, err := cl.CreateContext([]*cl.Device{dev})
	if err != nil {
		t.Fatalf("create context on %s: %v", dev.Name(), err)
	}
	queue, err := ctx.CreateCommandQueue(dev, 0)
	if err != nil {
		t.Fatalf("create queue on %s: %v", dev.Name(), err)
	}
	r := &conv2dRig{dev: dev, ctx: ctx, queue: queue, k: datasets.Conv2D(), programs: map[string]*conv2dProgram{}}
	t.Cleanup(func() {
		for _, p := range r.programs {
			if p.kernel != nil {
				p.kernel.Release()
			}
			if p.prog != nil {
				p.prog.Release()
			}
		}
		queue.Release()
		ctx.Release()
	})
	t.Logf("device: %s (%s)", dev.Name(), dev.Version())
	return r
}

// build compiles the program for options once.
func (r *conv2dRig) build(options string) *conv2dProgram {
	r.mu.Lock()
	p, ok := r.programs[options]
	r.mu.Unlock()
	if ok {
		return p
	}
	p = &conv2dProgram{}
	p.prog, p.err = r.ctx.CreateProgramWithSource([]string{r.k.Source})
	if p.err == nil {
		p.err = p.prog.BuildProgram([]*cl.Device{r.dev}, options)
	}
	if p.err == nil {
		p.kernel, p.err = p.prog.CreateKernel(r.k.Entry)
	}
	r.mu.Lock()
	r.programs[options] = p
	r.mu.Unlock()
	return p
}

// buildAll compiles the programs of every case with one worker a CPU, as
// collect does, since a CPU device's compiler is single-threaded.
func (r *conv2dRig) buildAll(cases []conv2dCase) {
	jobs := make(chan string)
	var wg sync.WaitGroup
	for range runtime.NumCPU() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for o := range jobs {
				r.build(o)
			}
		}()
	}
	seen := map[string]bool{}
	for _, c := range cases {
		o := r.k.Options(c.task, c.config)
		if !seen[o] {
			seen[o] = true
			jobs <- o
		}
	}
	close(jobs)
	wg.Wait()
}

type conv2dCase struct {
	task   features.Task
	config features.Config
}

// errConv2DDeviceLimit marks a configuration that the device cannot run;
// collect prunes those, so the tests skip them.
type errConv2DDeviceLimit struct{ msg string }

func (e errConv2DDeviceLimit) Error() string { return e.msg }

// run launches one case and returns an error describing the first wrong
// output, or an errConv2DDeviceLimit.
func (r *conv2dRig) run(c conv2dCase, rng *rand.Rand) error {
	k := r.k
	launch, err := k.Geometry(c.task, c.config)
	if err != nil {
		return fmt.Errorf("geometry: %w", err)
	}
	if launch.LocalMemBytes > int(r.dev.LocalMemSize()) {
		return errConv2DDeviceLimit{fmt.Sprintf("local memory %d B > device %d B", launch.LocalMemBytes, r.dev.LocalMemSize())}
	}
	if n := launch.WorkGroupSize(); n > r.dev.MaxWorkGroupSize() {
		return errConv2DDeviceLimit{fmt.Sprintf("work-group %d > device %d", n, r.dev.MaxWorkGroupSize())}
	}
	p := r.build(k.Options(c.task, c.config))
	if p.err != nil {
		return fmt.Errorf("build: %w", p.err)
	}
	if n, err := p.kernel.WorkGroupSize(r.dev); err == nil && launch.WorkGroupSize() > n {
		return errConv2DDeviceLimit{fmt.Sprintf("work-group %d > kernel limit %d", launch.WorkGroupSize(), n)}
	}

	args := k.Args(c.task, rng)
	var out []float32
	var outBuf *cl.MemObject
	for i, a := range args {
		switch a.Kind {
		case datasets.Int32:
			err = p.kernel.SetArgInt32(i, a.Int)
		case datasets.Input:
			var buf *cl.MemObject
			buf, err = r.ctx.CreateBufferFloat32(cl.MemReadOnly|cl.MemCopyHostPtr, a.Data)
			if err == nil {
				defer buf.Release()
				err = p.kernel.SetArgBuffer(i, buf)
			}
		case datasets.Output:
			// NaN everywhere: an output the kernel never stores fails the
			// comparison, and so does a store into the guard.
			out = make([]float32, a.Len+conv2dGuard)
			for j := range out {
				out[j] = float32(math.NaN())
			}
			outBuf, err = r.ctx.CreateBufferFloat32(cl.MemReadWrite|cl.MemCopyHostPtr, out)
			if err == nil {
				defer outBuf.Release()
				err = p.kernel.SetArgBuffer(i, outBuf)
			}
		}
		if err != nil {
			return fmt.Errorf("argument %s: %w", a.Name, err)
		}
	}
	global := launch.Global[:launch.Dims]
	local := launch.Local[:launch.Dims]
	ev, err := r.queue.EnqueueNDRangeKernel(p.kernel, nil, global, local, nil)
	if err != nil {
		return fmt.Errorf("launch %v/%v: %w", global, local, err)
	}
	ev.Release()
	// The read blocks and the queue runs in order, so it sees the result.
	ev, err = r.queue.EnqueueReadBufferFloat32(outBuf, true, 0, out, nil)
	if err != nil {
		return fmt.Errorf("read output: %w", err)
	}
	ev.Release()

	want := k.Want(c.task, args)
	w := c.task[0]
	for i, v := range want {
		got := float64(out[i])
		diff := math.Abs(got - float64(v))
		if !(diff <= k.Tolerance*math.Abs(float64(v))+1e-6) {
			return fmt.Errorf("B[y=%d][x=%d] = %g, want %g", i/w, i%w, got, v)
		}
	}
	for i, v := range out[len(want):] {
		if !math.IsNaN(float64(v)) {
			return fmt.Errorf("store past the output: guard float %d = %g", i, v)
		}
	}
	return nil
}

// conv2dRunAll builds every case's program first, then runs the cases one
// by one and reports each failure with its configuration. It returns the
// number of cases run and the number the device could not take.
func conv2dRunAll(t *testing.T, r *conv2dRig, cases []conv2dCase, seed uint64) (ran, limited int) {
	t.Helper()
	r.buildAll(cases)
	rng := rand.New(rand.NewPCG(seed, 1))
	for _, c := range cases {
		name := features.FormatTask(r.k.TaskNames, c.task) + " " + r.k.Space.Format(c.config)
		err := r.run(c, rng)
		var lim errConv2DDeviceLimit
		switch {
		case errors.As(err, &lim):
			limited++
			t.Logf("%s: device limit: %v", name, err)
		case err != nil:
			t.Errorf("%s: %v", name, err)
		default:
			ran++
		}
	}
	return ran, limited
}

// TestConv2DDeviceClasses runs a configuration of every class (each LS,
// each VW, PAD, UNR, work per item in both directions) on image sizes that
// no tile divides and on square and oblong filters.
func TestConv2DDeviceClasses(t *testing.T) {
	r := newConv2DRig(t)
	configs := []string{
		"Xwg=8,Ywg=8,Xwpt=1,Ywpt=1,LS=0,VW=1,PAD=0,UNR=0", // the reference
		"Xwg=16,Ywg=8,Xwpt=2,Ywpt=1,LS=0,VW=2,PAD=0,UNR=1",
		"Xwg=8,Ywg=8,Xwpt=8,Ywpt=2,LS=0,VW=8,PAD=0,UNR=0",
		"Xwg=16,Ywg=16,Xwpt=1,Ywpt=1,LS=1,VW=1,PAD=0,UNR=0",
		"Xwg=8,Ywg=16,Xwpt=4,Ywpt=2,LS=1,VW=4,PAD=1,UNR=1",
		"Xwg=32,Ywg=8,Xwpt=8,Ywpt=4,LS=1,VW=8,PAD=1,UNR=0",
		"Xwg=64,Ywg=16,Xwpt=2,Ywpt=8,LS=1,VW=2,PAD=0,UNR=1",
		"Xwg=8,Ywg=8,Xwpt=1,Ywpt=1,LS=2,VW=1,PAD=0,UNR=0",
		"Xwg=16,Ywg=8,Xwpt=2,Ywpt=2,LS=2,VW=2,PAD=1,UNR=1",
		"Xwg=8,Ywg=8,Xwpt=4,Ywpt=4,LS=2,VW=4,PAD=0,UNR=1",
		"Xwg=8,Ywg=8,Xwpt=8,Ywpt=8,LS=2,VW=8,PAD=1,UNR=0",
		"Xwg=64,Ywg=8,Xwpt=1,Ywpt=8,LS=2,VW=1,PAD=1,UNR=1",
	}
	tasks := []features.Task{
		{100, 75, 3, 3},
		{100, 75, 5, 7},
		{64, 48, 11, 11},
		{16, 16, 9, 3},
		{131, 17, 11, 5},
	}
	var cases []conv2dCase
	for _, s := range configs {
		c, err := r.k.Space.Parse(s)
		if err != nil {
			t.Fatalf("parse %q: %v", s, err)
		}
		for _, task := range tasks {
			cases = append(cases, conv2dCase{task, c})
		}
	}
	ran, limited := conv2dRunAll(t, r, cases, 1)
	t.Logf("%d cases ran, %d beyond the device's limits", ran, limited)
	if limited > 0 {
		t.Errorf("got %d cases beyond the device's limits, want every class to run", limited)
	}
}

// TestConv2DDeviceSample runs 100 configurations drawn from the whole
// space, alternating the smallest and the largest filter. A cold PoCL
// kernel cache costs about half a second a configuration on two cores,
// which sets the sample's size.
func TestConv2DDeviceSample(t *testing.T) {
	r := newConv2DRig(t)
	configs := r.k.Space.Sample(rand.New(rand.NewPCG(2015, 5)), 100)
	var cases []conv2dCase
	for i, c := range configs {
		f := 3
		if i%2 == 1 {
			f = 11
		}
		cases = append(cases, conv2dCase{features.Task{64, 48, f, f}, c})
	}
	ran, limited := conv2dRunAll(t, r, cases, 2)
	t.Logf("%d of %d sampled configurations ran, %d beyond the device's limits", ran, len(cases), limited)
	if ran < len(cases)/2 {
		t.Errorf("got %d configurations run, want at least %d", ran, len(cases)/2)
	}
}
