package imagefilter

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
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

	mu       sync.Mutex
	sess     *opencl.Session
	programs map[string]*opencl.Program // by build options
}

// New opens dev and loads the embedded model for it.
func New(dev opencl.Device) (*Filter, error) {
	plat := dev.Platform()
	chooser, err := runtime.New(conv2dModel, runtime.Options{Platform: &plat})
	if err != nil {
		return nil, fmt.Errorf("imagefilter: %w", err)
	}
	k, err := datasets.Lookup("conv2d")
	if err != nil {
		return nil, fmt.Errorf("imagefilter: %w", err)
	}
	sess, err := dev.Open()
	if err != nil {
		return nil, fmt.Errorf("imagefilter: %w", err)
	}
	return &Filter{chooser: chooser, kernel: k, sess: sess, programs: map[string]*opencl.Program{}}, nil
}

// Close releases the compiled programs and the device.
func (f *Filter) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, p := range f.programs {
		p.Release()
	}
	clear(f.programs)
	return f.sess.Close()
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
	err = f.run(ctx, args, pick.Plan)
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

// run builds the plan's program once and launches it.
func (f *Filter) run(ctx context.Context, args *opencl.Args, plan runtime.Plan) error {
	prog, ok := f.programs[plan.BuildOptions]
	if !ok {
		var err error
		if prog, err = f.sess.Build(f.kernel.Source, plan.BuildOptions, f.kernel.Entry); err != nil {
			return err
		}
		f.programs[plan.BuildOptions] = prog
	}
	_, err := f.sess.Run(ctx, prog, args, plan.Launch)
	return err
}
