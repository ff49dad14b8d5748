// Command transpose transposes a random matrix on an OpenCL device with the
// configuration an augur bundle chooses for its shape, and checks the
// result. It is the runtime side of "your own kernel": everything it needs
// to build and launch the kernel comes from Pick.Plan (build options,
// global and local sizes); the kernel's arguments are its own business.
//
//	go run ./examples/transpose --model testdata/transpose-h200.augur --width 1920 --height 1080
package main

import (
	"context"
	_ "embed"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"

	"github.com/augur-tuning/augur/collect/opencl"
	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/features"
	augur "github.com/augur-tuning/augur/runtime"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "transpose:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("transpose", flag.ContinueOnError)
	model := fs.String("model", "", "augur bundle trained on transpose.json")
	width := fs.Int("width", 1920, "matrix width")
	height := fs.Int("height", 1080, "matrix height")
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
	pick, err := ch.ChoosePick(features.Task{*width, *height})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: %s (%s)\n", features.FormatTask([]string{"width", "height"}, features.Task{*width, *height}), ch.Format(pick.Config), pick.Source)
	fmt.Fprintf(stdout, "build options %q, global %v, local %v\n", pick.Plan.BuildOptions, pick.Plan.Global[:pick.Plan.Dims], pick.Plan.Local[:pick.Plan.Dims])
	in := make([]float32, *width**height)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range in {
		in[i] = rng.Float32()
	}
	out, err := launch(ctx, dev, pick.Plan, in, *width, *height)
	if err != nil {
		return err
	}
	for y := 0; y < *height; y++ {
		for x := 0; x < *width; x++ {
			if out[x**height+y] != in[y**width+x] {
				return fmt.Errorf("out[%d][%d] = %g, want %g", x, y, out[x**height+y], in[y**width+x])
			}
		}
	}
	fmt.Fprintln(stdout, "output verified")
	return nil
}

// source is the kernel the spec transpose.json names.
//
//go:embed transpose.cl
var source string

// launch builds the kernel with the plan's options and runs it once.
func launch(ctx context.Context, dev opencl.Device, plan augur.Plan, in []float32, width, height int) ([]float32, error) {
	sess, err := dev.Open()
	if err != nil {
		return nil, err
	}
	defer sess.Close()
	prog, err := sess.Build(source, plan.BuildOptions, "transpose")
	if err != nil {
		return nil, err
	}
	defer prog.Release()
	args, err := sess.Bind([]datasets.Arg{
		{Name: "in", Kind: datasets.Input, Data: in},
		{Name: "out", Kind: datasets.Output, Len: width * height},
		{Name: "width", Kind: datasets.Int32, Int: int32(width)},
		{Name: "height", Kind: datasets.Int32, Int: int32(height)},
	})
	if err != nil {
		return nil, err
	}
	defer args.Release()
	if _, err := sess.Run(ctx, prog, args, plan.Launch); err != nil {
		return nil, err
	}
	out := make([]float32, width*height)
	if _, err := sess.ReadOutput(args, out); err != nil {
		return nil, err
	}
	return out, nil
}
