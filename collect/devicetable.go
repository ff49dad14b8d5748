package collect

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/augur-tuning/augur/features"
)

// MarshalJSON writes b as its platform's features, measured ones
// included, and "bench_failures" saying why any benchmark failed: one
// device of `augur devices --bench --json`.
func (b Bench) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		features.Platform
		Failures map[string]string `json:"bench_failures,omitempty"`
	}{b.Platform, b.Failures})
}

// WriteDeviceTable writes devices as a table, one row a device labelled
// with its index in index (the order ListDevices returns), with the
// measured columns when bench is set; "-" marks a benchmark that failed.
func WriteDeviceTable(w io.Writer, index []int, devs []Bench, bench bool) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	head := "#\tSLUG\tTYPE\tCU\tMHZ\tMAX WG\tLOCAL KiB\tGLOBAL MiB"
	if bench {
		head += "\tGLOBAL GB/S\tFP32 GFLOP/S\tLOCAL GB/S\tLAUNCH US"
	}
	fmt.Fprintln(tw, head+"\tDRIVER")
	for j, b := range devs {
		d := b.Platform
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
