package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/augur-tuning/augur/collect"
	"github.com/augur-tuning/augur/features"
)

func runDevices(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var (
		asJSON, bench bool
		device        = -1
	)
	fs := flags("devices", "[--bench] [--device N|NAME] [--json]", stderr)
	fs.BoolVar(&asJSON, "json", false, "print a JSON array of the devices' features")
	fs.BoolVar(&bench, "bench", false, "also measure global and local memory bandwidth, fp32 throughput and launch overhead (a few seconds a device)")
	addDeviceFlag(fs, &device, "only this device (default: every device)")
	if err := parse(fs, args, stdout); err != nil {
		return err
	}
	devs, err := collect.ListDevices()
	if err != nil {
		return fmt.Errorf("devices: %w", err)
	}
	if device < -1 || device >= len(devs) {
		return noDevice("devices", device, len(devs))
	}
	index := make([]int, len(devs))
	for i := range index {
		index[i] = i
	}
	if device >= 0 {
		index = []int{device}
	}
	out := make([]collect.Bench, len(index))
	for j, i := range index {
		out[j].Platform = devs[i]
		if !bench {
			continue
		}
		b, err := collect.Benchmark(ctx, i)
		if err != nil {
			return fmt.Errorf("devices: device %d: %w", i, err)
		}
		out[j] = b
		for _, name := range slices.Sorted(maps.Keys(b.Failures)) {
			fmt.Fprintf(stderr, "devices: device %d: %s not measured: %s\n", i, name, firstLine(b.Failures[name]))
		}
	}
	if asJSON {
		if bench {
			return json.NewEncoder(stdout).Encode(out)
		}
		ps := make([]features.Platform, len(out))
		for j, d := range out {
			ps[j] = d.Platform
		}
		return json.NewEncoder(stdout).Encode(ps)
	}
	return collect.WriteDeviceTable(stdout, index, out, bench)
}

// firstLine is the first line of s: a build log can run to pages.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
