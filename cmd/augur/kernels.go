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
	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/features"
)

func runKernels(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var asJSON bool
	device := -1
	fs := flags("kernels", "[--device N] [--json]", stderr)
	fs.BoolVar(&asJSON, "json", false, "print a JSON array")
	fs.IntVar(&device, "device", -1, "also count what the device's limits leave of each space on the family's first default shape, compiling nothing (see 'augur devices')")
	if err := parse(fs, args, stdout); err != nil {
		return err
	}
	type row struct {
		Name      string   `json:"name"`
		Doc       string   `json:"doc"`
		Version   string   `json:"version"`
		Params    int      `json:"params"`
		RawSize   int      `json:"raw_size"`
		ValidSize int      `json:"valid_size"`
		Tasks     []string `json:"task_features"`
		// With --device: the shape counted and the configurations the
		// device would run, and the others by reason.
		Shape    string         `json:"shape,omitempty"`
		Runnable *int           `json:"runnable,omitempty"`
		Pruned   map[string]int `json:"pruned,omitempty"`
	}
	var plat *features.Platform
	if device >= 0 {
		devs, err := collect.ListDevices()
		if err != nil {
			return fmt.Errorf("kernels: %w", err)
		}
		if device >= len(devs) {
			return fmt.Errorf("kernels: --device must be in [0, %d], got %d", len(devs)-1, device)
		}
		plat = &devs[device]
	}
	var rows []row
	for _, k := range datasets.Kernels() {
		r := row{Name: k.Name, Doc: k.Doc, Version: k.Version(), Params: len(k.Space.Params), RawSize: k.Space.RawSize(), ValidSize: k.Space.Len(), Tasks: k.TaskNames}
		if plat != nil && len(k.Tasks) > 0 {
			p, err := collect.Prune(k, k.Tasks[0], *plat)
			if err != nil {
				return fmt.Errorf("kernels: %w", err)
			}
			r.Shape = features.FormatTask(k.TaskNames, k.Tasks[0])
			r.Runnable = &p.Runnable
			r.Pruned = map[string]int{}
			for reason, n := range p.Pruned {
				r.Pruned[string(reason)] = n
			}
		}
		rows = append(rows, r)
	}
	if asJSON {
		return json.NewEncoder(stdout).Encode(rows)
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	if plat == nil {
		fmt.Fprintln(tw, "KERNEL\tPARAMS\tRAW\tVALID\tSHAPE FEATURES\tDESCRIPTION")
		for _, r := range rows {
			fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%v\t%s\n", r.Name, r.Params, r.RawSize, r.ValidSize, r.Tasks, r.Doc)
		}
		return tw.Flush()
	}
	fmt.Fprintf(stdout, "device %d: %s (max work-group %d, work-items %v, local memory %d KiB, constant memory %d KiB, images %v)\n",
		device, plat.Slug(), plat.MaxWorkGroupSize, plat.MaxWorkItemSizes, plat.LocalMemBytes>>10, plat.ConstantMemBytes>>10, plat.ImageSupport)
	fmt.Fprintln(tw, "KERNEL\tRAW\tVALID\tSHAPE\tON DEVICE\tPRUNED BY DEVICE")
	for _, r := range rows {
		if r.Runnable == nil { // a family without default shapes
			fmt.Fprintf(tw, "%s\t%d\t%d\t-\t-\t-\n", r.Name, r.RawSize, r.ValidSize)
			continue
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%d\t%s\n", r.Name, r.RawSize, r.ValidSize, r.Shape, *r.Runnable, formatPruned(r.Pruned))
	}
	return tw.Flush()
}

// formatPruned writes counts by reason as "reason=n, ...", sorted, or "-".
func formatPruned(m map[string]int) string {
	if len(m) == 0 {
		return "-"
	}
	var parts []string
	for _, reason := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%s=%d", reason, m[reason]))
	}
	return strings.Join(parts, ", ")
}
