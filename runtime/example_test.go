package runtime_test

import (
	"errors"
	"fmt"
	"os"

	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/runtime"
)

func Example() {
	// A library would go:embed the bundle instead.
	data, err := os.ReadFile("../testdata/conv2d-pocl.augur")
	if err != nil {
		panic(err)
	}
	// The device is one the bundle has no model of; with a single model
	// in the bundle, that model chooses.
	chooser, err := runtime.New(data, runtime.Options{Device: "Some GPU"})
	if err != nil {
		panic(err)
	}
	fmt.Println(chooser.TaskNames(), chooser.ParamNames())

	p, err := chooser.ChoosePick(features.Task{1024, 768, 5, 5})
	if err != nil {
		panic(err)
	}
	fmt.Println(p.Source)
	fmt.Println("in the space:", chooser.Space().Valid(p.Config))
	ls, _ := p.Param("LS") // the local-memory strategy, by name
	fmt.Println("LS:", ls == p.Config[4], "local memory used:", (ls != 0) == (p.Plan.LocalMemBytes > 0))
	fmt.Println("dims", p.Plan.Dims, "whole work-groups:", p.Plan.Global[0]%p.Plan.Local[0] == 0 && p.Plan.Global[1]%p.Plan.Local[1] == 0)
	fmt.Println("inside the training shapes:", p.OutsideOctaves == 0, "held-out figure recorded:", p.ExpectedPct > 0)

	// The allocation-free path, for a shape seen before.
	cfg := make(features.Config, len(chooser.ParamNames()))
	if err := chooser.ChooseInto(cfg, features.Task{1024, 768, 5, 5}); err != nil {
		panic(err)
	}
	fmt.Println("same as the pick:", cfg.Equal(p.Config))

	// The reference configuration's launch plan, to fall back on.
	plan, err := chooser.Plan(features.Task{1920, 1080, 5, 5}, chooser.Reference())
	if err != nil {
		panic(err)
	}
	fmt.Println(plan.BuildOptions)
	fmt.Println("global", plan.Global, "local", plan.Local, "local memory", plan.LocalMemBytes)

	far, _ := chooser.ChoosePick(features.Task{16384, 16, 3, 3})
	fmt.Printf("16384x16 lies %.1f octaves outside\n", far.OutsideOctaves)

	_, err = chooser.Choose(features.Task{1024, 768, 4, 4})
	fmt.Println("even filter:", errors.Is(err, runtime.ErrShape))
	// Output:
	// [width height filter_w filter_h] [Xwg Ywg Xwpt Ywpt LS VW PAD UNR]
	// model:pocl-cpu-pthread-skylake-avx512-amd-epyc
	// in the space: true
	// LS: true local memory used: true
	// dims 2 whole work-groups: true
	// inside the training shapes: true held-out figure recorded: true
	// same as the pick: true
	// -D FW=5 -D FH=5 -D Xwg=8 -D Ywg=8 -D Xwpt=1 -D Ywpt=1 -D LS=0 -D VW=1 -D PAD=0 -D UNR=0
	// global [1920 1080 1] local [8 8 1] local memory 0
	// 16384x16 lies 4.0 octaves outside
	// even filter: true
}

// A kernel spec's string parameter: configurations number its values in
// the spec's order; ParamLabels and Format give their texts, as the
// kernel gets them in Plan.BuildOptions.
func ExampleChooser_ParamLabels() {
	data, err := os.ReadFile("../libaugur/testdata/specmode.augur") // MODE of 'mul', 'add', 'sub'
	if err != nil {
		panic(err)
	}
	chooser, err := runtime.New(data, runtime.Options{})
	if err != nil {
		panic(err)
	}
	for i, name := range chooser.ParamNames() {
		labels, numeric := chooser.ParamLabels(i)
		fmt.Println(name, labels, numeric)
	}
	p, err := chooser.ChoosePick(features.Task{5000})
	if err != nil {
		panic(err)
	}
	labels, _ := chooser.ParamLabels(1)
	fmt.Println(p.Config[1] >= 0 && p.Config[1] < len(labels), chooser.Format(p.Config) == "WG="+fmt.Sprint(p.Config[0])+",MODE="+labels[p.Config[1]])
	// Output:
	// WG [] false
	// MODE [mul add sub] false
	// true true
}
