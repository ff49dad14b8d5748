package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/augur-tuning/augur/tune"
)

func runQuickstart(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var opt tune.QuickstartOptions
	fs := flags("quickstart", "[--kernel NAME|--spec FILE] [--out DIR] [--device N|NAME] [--shapes S] [--test-shapes S]", stderr)
	fs.StringVar(&opt.Out, "out", "augur-quickstart", "directory for the collected data and the model")
	addDeviceFlag(fs, &opt.Device, "device to measure on")
	fs.IntVar(&opt.TrainSample, "train-sample", 0, "random configurations per training shape (0: 300)")
	fs.IntVar(&opt.HoldoutSample, "test-sample", 0, "random configurations compared per test shape (0: 300)")
	shapes := fs.String("shapes", "", "training shapes separated by ';', or a file of them (default: five shapes of the family sized for a CPU device)")
	testShapes := fs.String("test-shapes", "", "shapes the model never sees, on which its picks are compared with the best of a random sample, separated by ';' (default: two shapes of the family sized for a CPU device)")
	// eval's --holdout is a mode; quickstart's were these shapes.
	deprecatedAlias(fs, "holdout", "test-shapes", stderr)
	deprecatedAlias(fs, "holdout-sample", "test-sample", stderr)
	var kr kernelRef
	addKernelFlags(fs, &kr, "kernel family (default conv2d)")
	if err := parse(fs, args, stdout); err != nil {
		return err
	}
	if kr.name == "" && kr.spec == "" {
		kr.name = "conv2d"
	}
	k, err := kr.kernel("quickstart")
	if err != nil {
		return err
	}
	opt.Kernel = k.Name
	if k.FromSpec() {
		opt.Spec = k
	}
	if *shapes != "" {
		list, err := readShapes("quickstart: --shapes", *shapes, nil)
		if err != nil {
			return err
		}
		if opt.TrainShapes, err = parseShapes(k, strings.Join(list, ";")); err != nil {
			return fmt.Errorf("quickstart: --shapes: %w", err)
		}
	}
	if *testShapes != "" {
		list, err := readShapes("quickstart: --test-shapes", *testShapes, nil)
		if err != nil {
			return err
		}
		if opt.HoldoutShapes, err = parseShapes(k, strings.Join(list, ";")); err != nil {
			return fmt.Errorf("quickstart: --test-shapes: %w", err)
		}
	}
	opt.Progress = progressTo(fs, stderr)
	res, err := tune.Quickstart(ctx, opt)
	if err != nil {
		return fmt.Errorf("quickstart: %w", err)
	}
	return res.WriteTable(stdout)
}
