// Command boxfilter blurs a random float image on an OpenCL device with the
// configuration an augur bundle chooses for its size and radius, and checks
// the result on the host. The kernel tunes how a work-group loads its
// pixels (a buffer, a 2D image or a tile in local memory), so its launch
// binds the image and sizes the local tile as the pick's plan says.
//
//	go run ./examples/boxfilter --model boxfilter.augur --width 1920 --height 1080 --radius 3
//
// with a bundle trained on the example's spec (augur train --spec examples/boxfilter/boxfilter.json
// --data datasets/data --out boxfilter.augur).
package main

import (
	"context"
	_ "embed"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"

	"github.com/augur-tuning/augur/collect/opencl"
	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/features"
	augur "github.com/augur-tuning/augur/runtime"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "boxfilter:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("boxfilter", flag.ContinueOnError)
	model := fs.String("model", "", "augur bundle trained on boxfilter.json")
	width := fs.Int("width", 1920, "image width in pixels")
	height := fs.Int("height", 1080, "image height in pixels")
	radius := fs.Int("radius", 2, "the box's radius: it averages (2 radius + 1)^2 pixels")
	device := fs.Int("device", 0, "OpenCL device index")
	if err := fs.Parse(args); err != nil {
		return err
	}
	bundle, err := os.ReadFile(*model)
	if err != nil {
		return err
	}
	devs, err := opencl.Devices()
	if err != nil {
		return err
	}
	if *device < 0 || *device >= len(devs) {
		return fmt.Errorf("--device must be in [0, %d]", len(devs)-1)
	}
	dev := devs[*device]
	plat := dev.Platform()
	ch, err := augur.New(bundle, augur.Options{Platform: &plat})
	if err != nil {
		return err
	}
	w, h, r := *width, *height, *radius
	pick, err := ch.ChoosePick(features.Task{w, h, r})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%dx%d radius %d: %s (%s)\n", w, h, r, ch.Format(pick.Config), pick.Source)
	fmt.Fprintf(stdout, "build options %q, global %v, local %v, local tile %v bytes\n", pick.Plan.BuildOptions,
		pick.Plan.Global[:pick.Plan.Dims], pick.Plan.Local[:pick.Plan.Dims], pick.Plan.Values["tile"])
	in := make([]float32, w*h)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range in {
		in[i] = rng.Float32()
	}
	out, err := launch(ctx, dev, pick.Plan, in, w, h, r)
	if err != nil {
		return err
	}
	if err := check(in, out, w, h, r); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%d pixels verified\n", w*h)
	return nil
}

// source is the kernel the spec boxfilter.json names.
//
//go:embed boxfilter.cl
var source string

// launch builds the kernel with the plan's options, runs it once on the
// image in (bound both as a buffer and as a 2D image: the configuration
// reads one of them) and returns the output.
func launch(ctx context.Context, dev opencl.Device, plan augur.Plan, in []float32, w, h, r int) ([]float32, error) {
	sess, err := dev.Open()
	if err != nil {
		return nil, err
	}
	defer sess.Close()
	prog, err := sess.Build(source, plan.BuildOptions, "boxfilter")
	if err != nil {
		return nil, err
	}
	defer prog.Release()
	args, err := sess.Bind([]datasets.Arg{
		{Name: "in", Kind: datasets.Input, Data: in},
		{Name: "img", Kind: datasets.Image2D, Data: in, Width: w, Height: h},
		{Name: "out", Kind: datasets.Output, Len: w * h},
		{Name: "tile", Kind: datasets.LocalMem, Len: int(plan.Values["tile"])},
		{Name: "width", Kind: datasets.Int32, Int: int32(w)},
		{Name: "height", Kind: datasets.Int32, Int: int32(h)},
		{Name: "radius", Kind: datasets.Int32, Int: int32(r)},
	})
	if err != nil {
		return nil, err
	}
	defer args.Release()
	if _, err := sess.Run(ctx, prog, args, plan.Launch); err != nil {
		return nil, err
	}
	out := make([]float32, w*h)
	if _, err := sess.ReadOutput(args, out); err != nil {
		return nil, err
	}
	return out, nil
}

// check compares out with the box filter computed on the host, in float64.
func check(in, out []float32, w, h, r int) error {
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			s := 0.0
			for dy := -r; dy <= r; dy++ {
				row := min(max(y+dy, 0), h-1) * w
				for dx := -r; dx <= r; dx++ {
					s += float64(in[row+min(max(x+dx, 0), w-1)])
				}
			}
			want := s / float64((2*r+1)*(2*r+1))
			if got := float64(out[y*w+x]); math.Abs(got-want) > 1e-4 {
				return fmt.Errorf("pixel (%d, %d) is %g, want %g", x, y, got, want)
			}
		}
	}
	return nil
}
