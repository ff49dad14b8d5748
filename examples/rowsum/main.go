// Command rowsum sums the rows of a random matrix on an OpenCL device with the
// configuration an augur bundle chooses for its shape, and checks the
// result. It is the runtime side of "your own kernel": everything it needs
// to build and launch the kernel comes from Pick.Plan (build options,
// global and local sizes); the kernel's arguments are its own business.
//
//	go run ./examples/rowsum --model testdata/rowsum-h200.augur --cols 30000 --rows 300
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
		fmt.Fprintln(os.Stderr, "rowsum:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("rowsum", flag.ContinueOnError)
	model := fs.String("model", "", "augur bundle trained on rowsum.json")
	cols := fs.Int("cols", 30000, "matrix columns")
	rows := fs.Int("rows", 300, "matrix rows")
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
	pick, err := ch.ChoosePick(features.Task{*cols, *rows})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: %s (%s)\n", features.FormatTask([]string{"cols", "rows"}, features.Task{*cols, *rows}), ch.Format(pick.Config), pick.Source)
	fmt.Fprintf(stdout, "build options %q, global %v, local %v\n", pick.Plan.BuildOptions, pick.Plan.Global[:pick.Plan.Dims], pick.Plan.Local[:pick.Plan.Dims])
	in := make([]float32, *cols**rows)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range in {
		in[i] = rng.Float32()
	}
	out, err := launch(ctx, dev, pick.Plan, in, *cols, *rows)
	if err != nil {
		return err
	}
	for r := 0; r < *rows; r++ {
		want := 0.0
		for _, v := range in[r**cols : (r+1)**cols] {
			want += float64(v)
		}
		// The kernel adds in float, in its own order.
		if d := math.Abs(float64(out[r]) - want); d > 1e-4*float64(*cols) {
			return fmt.Errorf("out[%d] = %g, want %g", r, out[r], want)
		}
	}
	fmt.Fprintln(stdout, "output verified")
	return nil
}

// source is the kernel the spec rowsum.json names.
//
//go:embed rowsum.cl
var source string

// launch builds the kernel with the plan's options and runs it once.
func launch(ctx context.Context, dev opencl.Device, plan augur.Plan, in []float32, cols, rows int) ([]float32, error) {
	sess, err := dev.Open()
	if err != nil {
		return nil, err
	}
	defer sess.Close()
	prog, err := sess.Build(source, plan.BuildOptions, "rowsum")
	if err != nil {
		return nil, err
	}
	defer prog.Release()
	args, err := sess.Bind([]datasets.Arg{
		{Name: "in", Kind: datasets.Input, Data: in},
		{Name: "out", Kind: datasets.Output, Len: rows},
		{Name: "cols", Kind: datasets.Int32, Int: int32(cols)},
		{Name: "rows", Kind: datasets.Int32, Int: int32(rows)},
	})
	if err != nil {
		return nil, err
	}
	defer args.Release()
	if _, err := sess.Run(ctx, prog, args, plan.Launch); err != nil {
		return nil, err
	}
	out := make([]float32, rows)
	if _, err := sess.ReadOutput(args, out); err != nil {
		return nil, err
	}
	return out, nil
}
