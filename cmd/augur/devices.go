package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/augur-tuning/augur/collect"
	"github.com/augur-tuning/augur/features"
)

// benchedDevice is one device of `devices --bench --json`: its features,
// measured ones included, and why any benchmark failed.
type benchedDevice struct {
	features.Platform
	Failures map[string]string `json:"bench_failures,omitempty"`
}

func runDevices(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var (
		asJSON, bench bool
		device        int
	)
	fs := flags("devices", "[--bench] [--device N] [--json]", stderr)
	fs.BoolVar(&asJSON, "json", false, "print a JSON array of the devices' features")
	fs.BoolVar(&bench, "bench", false, "also measure global and local memory bandwidth, fp32 throughput and launch overhead (a few seconds a device)")
	fs.IntVar(&device, "device", -1, "only this device index (-1: every device)")
	if err := parse(fs, args, stdout); err != nil {
		return err
	}
	devs, err := collect.ListDevices()
	if err != nil {
		return fmt.Errorf("devices: %w", err)
	}
	if device < -1 || device >= len(devs) {
		return fmt.Errorf("devices: --device must be in [0, %d] or -1, got %d", len(devs)-1, device)
	}
	index := make([]int, len(devs))
	for i := range index {
		index[i] = i
	}
	if device >= 0 {
		index = []int{device}
	}
	out := make([]benchedDevice, len(index))
	for j, i := range index {
		out[j].Platform = devs[i]
		if !bench {
			continue
		}
		b, err := collect.Benchmark(ctx, i)
		if err != nil {
			return fmt.Errorf("devices: device %d: %w", i, err)
		}
		out[j] = benchedDevice{b.Platform, b.Failures}
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
	return printDevices(stdout, index, out, bench)
}

// printDevices writes the devices as a table, with the measured columns
// when bench is set; "-" marks a benchmark that failed.
func printDevices(w io.Writer, index []int, devs []benchedDevice, bench bool) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	head := "#\tSLUG\tTYPE\tCU\tMHZ\tMAX WG\tLOCAL KiB\tGLOBAL MiB"
	if bench {
		head += "\tGLOBAL GB/S\tFP32 GFLOP/S\tLOCAL GB/S\tLAUNCH US"
	}
	fmt.Fprintln(tw, head+"\tDRIVER")
	for j, d := range devs {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%d\t%d\t%d\t%d\t%d", index[j], d.Slug(), d.Type, d.ComputeUnits, d.ClockMHz,
			d.MaxWorkGroupSize, d.LocalMemBytes/1024, d.GlobalMemBytes>>20)
		if bench {
			for _, v := range []float64{d.GlobalBandwidthGBs, d.FP32GFLOPs, d.LocalBandwidthGBs, d.LaunchOverheadUs} {
				fmt.Fprintf(tw, "\t%s", measured(v))
			}
		}
		fmt.Fprintf(tw, "\t%s\n", d.DriverVersion)
	}
	return tw.Flush()
}

// measured formats a measured value with three significant digits, or
// "-" for 0 (not measured).
func measured(v float64) string {
	if v == 0 {
		return "-"
	}
	return fmt.Sprintf("%.3g", v)
}

// firstLine is the first line of s: a build log can run to pages.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
