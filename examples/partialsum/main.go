// Command partialsum adds up n random floats on an OpenCL device with the
// configuration an augur bundle chooses for n: the kernel writes one
// partial sum a work-group, and the host adds the pick's num_blocks of
// them. It is "your own kernel" for a reduction whose outputs depend on
// the configuration, which the spec verifies by their sum
// (Augur.Verify "sum").
//
//	go run ./examples/partialsum --model partialsum.augur --n 5000000
//
// with a bundle trained on the example's spec (augur train --spec examples/partialsum/partialsum.json
// --data datasets/data --out partialsum.augur).
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
		fmt.Fprintln(os.Stderr, "partialsum:", err)
		os.Exit(1)
	}
}

// maxBlocks is the size of the partial sums' buffer: the spec's largest
// num_blocks.
const maxBlocks = 1024

func run(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("partialsum", flag.ContinueOnError)
	model := fs.String("model", "", "augur bundle trained on partialsum.json")
	n := fs.Int("n", 5000000, "floats to add up")
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
	pick, err := ch.ChoosePick(features.Task{*n})
	if err != nil {
		return err
	}
	blocks := pick.Config[ch.Space().Param("num_blocks")]
	fmt.Fprintf(stdout, "n=%d: %s (%s)\n", *n, ch.Format(pick.Config), pick.Source)
	fmt.Fprintf(stdout, "build options %q, global %v, local %v\n", pick.Plan.BuildOptions, pick.Plan.Global[:pick.Plan.Dims], pick.Plan.Local[:pick.Plan.Dims])
	in := make([]float32, *n)
	want := 0.0
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range in {
		in[i] = rng.Float32()
		want += float64(in[i])
	}
	parts, err := launch(ctx, dev, pick.Plan, in)
	if err != nil {
		return err
	}
	got := 0.0
	for _, p := range parts[:blocks] {
		got += float64(p)
	}
	// The kernel adds in float, in its own order.
	if d := math.Abs(got - want); d > 1e-2+1e-5*want {
		return fmt.Errorf("the %d partial sums add up to %g, want %g", blocks, got, want)
	}
	fmt.Fprintf(stdout, "sum %.6g verified\n", got)
	return nil
}

// source is the kernel the spec partialsum.json names.
//
//go:embed partialsum.cl
var source string

// launch builds the kernel with the plan's options, runs it once and
// returns the partial sums' buffer.
func launch(ctx context.Context, dev opencl.Device, plan augur.Plan, in []float32) ([]float32, error) {
	sess, err := dev.Open()
	if err != nil {
		return nil, err
	}
	defer sess.Close()
	prog, err := sess.Build(source, plan.BuildOptions, "partialsum")
	if err != nil {
		return nil, err
	}
	defer prog.Release()
	args, err := sess.Bind([]datasets.Arg{
		{Name: "out", Kind: datasets.Output, Len: maxBlocks},
		{Name: "in", Kind: datasets.Input, Data: in},
		{Name: "n", Kind: datasets.Int32, Int: int32(len(in))},
	})
	if err != nil {
		return nil, err
	}
	defer args.Release()
	if _, err := sess.Run(ctx, prog, args, plan.Launch); err != nil {
		return nil, err
	}
	out := make([]float32, maxBlocks)
	if _, err := sess.ReadOutput(args, out); err != nil {
		return nil, err
	}
	return out, nil
}
