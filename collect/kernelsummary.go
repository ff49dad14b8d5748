package collect

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/features"
)

// KernelSummary describes one kernel family's tuning space: one row of
// `augur kernels`, whose JSON it is.
type KernelSummary struct {
	Name      string   `json:"name"`
	Doc       string   `json:"doc"`
	Version   string   `json:"version"`
	Params    int      `json:"params"`
	RawSize   int      `json:"raw_size"`
	ValidSize int      `json:"valid_size"`
	Tasks     []string `json:"task_features"`
	// With a device: the shape counted and the configurations the
	// device would run, and the others by reason.
	Shape    string         `json:"shape,omitempty"`
	Runnable *int           `json:"runnable,omitempty"`
	Pruned   map[string]int `json:"pruned,omitempty"`
}

// SummarizeKernels describes every kernel family (datasets.Kernels), as
// SummarizeKernel does each.
func SummarizeKernels(plat *features.Platform) ([]KernelSummary, error) {
	var rows []KernelSummary
	for _, k := range datasets.Kernels() {
		r, err := SummarizeKernel(k, plat)
		if err != nil {
			return nil, err
		}
		rows = append(rows, r)
	}
	return rows, nil
}

// SummarizeKernel describes one kernel's tuning space. When plat is not nil
// it also counts, by Prune and so compiling nothing, what the device's
// limits leave of the space on the kernel's first default shape; a kernel
// without default shapes has no count.
func SummarizeKernel(k *datasets.Kernel, plat *features.Platform) (KernelSummary, error) {
	r := KernelSummary{Name: k.Name, Doc: k.Doc, Version: k.Version(), Params: len(k.Space.Params), RawSize: k.Space.RawSize(), ValidSize: k.Space.Len(), Tasks: k.TaskNames}
	if plat != nil && len(k.Tasks) > 0 {
		p, err := Prune(k, k.Tasks[0], *plat)
		if err != nil {
			return r, err
		}
		r.Shape = features.FormatTask(k.TaskNames, k.Tasks[0])
		r.Runnable = &p.Runnable
		r.Pruned = map[string]int{}
		for reason, n := range p.Pruned {
			r.Pruned[string(reason)] = n
		}
	}
	return r, nil
}

// WriteKernelTable writes rows as a table. With plat (the device of index
// device that SummarizeKernels counted for) it first names the device and
// its limits, and the table gives the shape counted, the configurations
// the device runs and the others by reason.
func WriteKernelTable(w io.Writer, rows []KernelSummary, device int, plat *features.Platform) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	if plat == nil {
		fmt.Fprintln(tw, "KERNEL\tPARAMS\tRAW\tVALID\tSHAPE FEATURES\tDESCRIPTION")
		for _, r := range rows {
			fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%v\t%s\n", r.Name, r.Params, r.RawSize, r.ValidSize, r.Tasks, r.Doc)
		}
		return tw.Flush()
	}
	fmt.Fprintf(w, "device %d: %s (max work-group %d, work-items %v, local memory %d KiB, constant memory %d KiB, images %v)\n",
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
