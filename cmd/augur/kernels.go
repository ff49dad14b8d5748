package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/augur-tuning/augur/collect"
	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/features"
)

func runKernels(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var asJSON bool
	device := -1
	fs := flags("kernels", "[--spec FILE] [--device N|NAME] [--json]", stderr)
	fs.BoolVar(&asJSON, "json", false, "print a JSON array")
	var spec string
	fs.StringVar(&spec, "spec", "", "describe this kernel spec file (a T1 JSON file) instead of augur's own families")
	addDeviceFlag(fs, &device, "also count what the device's limits leave of each space on the family's first default shape, compiling nothing")
	if err := parse(fs, args, stdout); err != nil {
		return err
	}
	var plat *features.Platform
	if device >= 0 {
		devs, err := collect.ListDevices()
		if err != nil {
			return fmt.Errorf("kernels: %w", err)
		}
		if device >= len(devs) {
			return noDevice("kernels", device, len(devs))
		}
		plat = &devs[device]
	}
	var rows []collect.KernelSummary
	var err error
	if spec == "" {
		rows, err = collect.SummarizeKernels(plat)
	} else {
		var k *datasets.Kernel
		if k, err = datasets.ReadSpec(spec); err != nil {
			return err
		}
		printWarnings(stderr, k)
		var r collect.KernelSummary
		r, err = collect.SummarizeKernel(k, plat)
		rows = append(rows, r)
	}
	if err != nil {
		return fmt.Errorf("kernels: %w", err)
	}
	if asJSON {
		return json.NewEncoder(stdout).Encode(rows)
	}
	return collect.WriteKernelTable(stdout, rows, device, plat)
}
