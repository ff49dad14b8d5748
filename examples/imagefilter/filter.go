package imagefilter

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/augur-tuning/augur/collect/opencl"
	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/runtime"
)

//go:embed conv2d-pocl.augur
var conv2dModel []byte

// Filter convolves images on one OpenCL device. It is safe for concurrent
// use; calls run one at a time.
type Filter struct {
	chooser *runtime.Chooser
	kernel  *datasets.Kernel // the OpenCL source and entry point
	opt     Options
	wisdom  *runtime.Wisdom // nil without Options.WisdomPath

	mu       sync.Mutex
	sess     *opencl.Session
	programs map[string]*opencl.Program // by build options
	// winners are the timed winners of the shapes tuned (Options.Tune)
	// when there is no wisdom file to keep them.
	winners map[features.TaskKey]runtime.Pick
}

// Options configures Open. The zero value filters with the model's pick
// and measures nothing.
type Options struct {
	// Tune is how many of the model's candidates (runtime.Chooser.
	// Candidates) the first call for a shape times, once each, before
	// using the fastest for that shape from then on; 0 times none and
	// uses the model's pick. 3 is the figure to start from: on three
	// GPU data sets, shapes held out of training, the best of the first 3
	// reached 94.2-99.1% of the optimum (bench/RESULTS.md, "Top-k
	// candidates: variants"). The first call of a shape costs a compile
	// and a run per candidate.
	Tune int
	// WisdomPath, when set with Tune, is a wisdom file (runtime.Wisdom)
	// that keeps the timings, for the device and this kernel version:
	// a shape timed once, by this process or an earlier one, is answered
	// from it (Pick.Source "wisdom") with no timing. "" keeps the winners
	// in memory, for the Filter's life.
	WisdomPath string
	// Warn receives the wisdom file's warnings (a damaged line skipped);
	// nil discards them.
	Warn io.Writer
}

// New opens dev and loads the embedded model for it, with the zero
// Options.
func New(dev opencl.Device) (*Filter, error) { return Open(dev, Options{}) }

// Open opens dev and loads the embedded model for it.
func Open(dev opencl.Device, opt Options) (*Filter, error) {
	if opt.Tune < 0 {
		return nil, fmt.Errorf("imagefilter: Options.Tune must be >= 0, got %d", opt.Tune)
	}
	k, err := datasets.Lookup("conv2d")
	if err != nil {
		return nil, fmt.Errorf("imagefilter: %w", err)
	}
	plat := dev.Platform()
	f := &Filter{kernel: k, opt: opt, programs: map[string]*opencl.Program{}, winners: map[features.TaskKey]runtime.Pick{}}
	if opt.Tune > 0 && opt.WisdomPath != "" {
		f.wisdom, err = runtime.OpenWisdom(opt.WisdomPath, runtime.WisdomOptions{KernelVersion: k.Version(), Device: plat.Slug(), Warn: opt.Warn})
		if err != nil {
			return nil, fmt.Errorf("imagefilter: %w", err)
		}
	}
	f.chooser, err = runtime.New(conv2dModel, runtime.Options{Platform: &plat, Wisdom: f.wisdom})
	if err == nil {
		f.sess, err = dev.Open()
	}
	if err != nil {
		if f.wisdom != nil {
			f.wisdom.Close()
		}
		return nil, fmt.Errorf("imagefilter: %w", err)
	}
	return f, nil
}

// Close releases the compiled programs and the device.
func (f *Filter) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, p := range f.programs {
		p.Release()
	}
	clear(f.programs)
	err := f.sess.Close()
	if f.wisdom != nil {
		err = errors.Join(err, f.wisdom.Close())
	}
	return err
}

// Apply correlates the width x height image img (row-major) with the
// fw x fh filter (odd sides of 3 to 11), reading zeros outside the image,
// and returns the output image and the pick that ran. A shape the kernel
// does not take gives an error wrapping runtime.ErrShape.
func (f *Filter) Apply(ctx context.Context, img []float32, width, height int, filter []float32, fw, fh int) ([]float32, runtime.Pick, error) {
	if len(img) != width*height || len(filter) != fw*fh {
		return nil, runtime.Pick{}, fmt.Errorf("imagefilter: image has %d values for %dx%d, filter %d for %dx%d", len(img), width, height, len(filter), fw, fh)
	}
	shape := features.Task{width, height, fw, fh}
	pick, err := f.chooser.ChoosePick(shape)
	if err != nil {
		return nil, runtime.Pick{}, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	args, err := f.sess.Bind([]datasets.Arg{
		{Name: "width", Kind: datasets.Int32, Int: int32(width)},
		{Name: "height", Kind: datasets.Int32, Int: int32(height)},
		{Name: "A", Kind: datasets.Input, Data: img},
		{Name: "F", Kind: datasets.Input, Data: filter},
		{Name: "B", Kind: datasets.Output, Len: width * height},
	})
	if err != nil {
		return nil, runtime.Pick{}, fmt.Errorf("imagefilter: %w", err)
	}
	defer args.Release()
	if w, ok := f.winners[shape.Key()]; ok && f.wisdom == nil {
		pick = w // with a wisdom file, the Chooser answers from it
	}
	if f.opt.Tune > 0 && pick.Source != runtime.SourceWisdom && !f.tuned(shape) {
		pick, err = f.tune(ctx, args, shape)
	} else {
		err = f.run(ctx, args, pick.Plan)
	}
	if opencl.KindOf(err) == opencl.ResourceLimit || opencl.KindOf(err) == opencl.BuildFailed {
		// The device refuses the pick: the reference runs everywhere.
		ref := f.chooser.Reference()
		plan, perr := f.chooser.Plan(shape, ref)
		if perr != nil {
			return nil, runtime.Pick{}, errors.Join(err, perr)
		}
		pick = runtime.Pick{Config: ref, Source: runtime.SourceReference, Plan: plan}
		err = f.run(ctx, args, plan)
	}
	if err != nil {
		return nil, runtime.Pick{}, fmt.Errorf("imagefilter: %w", err)
	}
	out := make([]float32, width*height)
	if _, err := f.sess.ReadOutput(args, out); err != nil {
		return nil, runtime.Pick{}, fmt.Errorf("imagefilter: %w", err)
	}
	return out, pick, nil
}

// tuned reports whether shape's winner is known, in memory or (from
// another Filter or process) in the wisdom file.
func (f *Filter) tuned(shape features.Task) bool {
	if _, ok := f.winners[shape.Key()]; ok {
		return true
	}
	if f.wisdom != nil && f.wisdom.Refresh() == nil {
		_, _, ok := f.wisdom.Best(shape)
		return ok
	}
	return false
}

// tune times the shape's first Options.Tune candidates once each on args,
// keeps the fastest (in the wisdom file, or in memory) and returns it. The
// output buffer then holds a correct result: every candidate that ran
// computed the same image. When the device refused every candidate, the
// error is the last refusal (the caller falls back to the reference); a
// timeout ends the tuning.
func (f *Filter) tune(ctx context.Context, args *opencl.Args, shape features.Task) (runtime.Pick, error) {
	cands, err := f.chooser.Candidates(shape, f.opt.Tune)
	if err != nil {
		return runtime.Pick{}, err
	}
	var best runtime.Pick
	bestNs := int64(0)
	for _, c := range cands {
		ns, rerr := f.time(ctx, args, c.Plan)
		if k := opencl.KindOf(rerr); k == opencl.ResourceLimit || k == opencl.BuildFailed {
			err = rerr // passed over, as a library measuring it would
			continue
		} else if rerr != nil {
			return c, rerr
		}
		if f.wisdom != nil {
			if err := f.chooser.Record(shape, c.Config, float64(ns)); err != nil {
				return c, err
			}
		}
		if bestNs == 0 || ns < bestNs {
			best, bestNs = c, ns
		}
	}
	if bestNs == 0 {
		return cands[0], err
	}
	f.winners[shape.Key()] = best
	return best, nil
}

// run builds the plan's program once and launches it.
func (f *Filter) run(ctx context.Context, args *opencl.Args, plan runtime.Plan) error {
	_, err := f.time(ctx, args, plan)
	return err
}

// time is run returning the kernel's time in nanoseconds.
func (f *Filter) time(ctx context.Context, args *opencl.Args, plan runtime.Plan) (int64, error) {
	prog, ok := f.programs[plan.BuildOptions]
	if !ok {
		var err error
		if prog, err = f.sess.Build(f.kernel.Source, plan.BuildOptions, f.kernel.Entry); err != nil {
			return 0, err
		}
		f.programs[plan.BuildOptions] = prog
	}
	return f.sess.Run(ctx, prog, args, plan.Launch)
}
