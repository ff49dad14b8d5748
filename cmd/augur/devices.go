package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/augur-tuning/augur/collect"
)

func runDevices(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var asJSON bool
	fs := flags("devices", "[--json]", stderr)
	fs.BoolVar(&asJSON, "json", false, "print a JSON array of the devices' features")
	if err := parse(fs, args, stdout); err != nil {
		return err
	}
	devs, err := collect.ListDevices()
	if err != nil {
		return fmt.Errorf("devices: %w", err)
	}
	if asJSON {
		return json.NewEncoder(stdout).Encode(devs)
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "#\tSLUG\tTYPE\tCU\tMHZ\tMAX WG\tLOCAL KiB\tGLOBAL MiB\tDRIVER")
	for i, d := range devs {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%d\t%d\t%d\t%d\t%d\t%s\n", i, d.Slug(), d.Type, d.ComputeUnits, d.ClockMHz,
			d.MaxWorkGroupSize, d.LocalMemBytes/1024, d.GlobalMemBytes>>20, d.DriverVersion)
	}
	return tw.Flush()
}
