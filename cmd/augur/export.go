package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/augur-tuning/augur/train"
)

func runExport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var data, kernel, out, invalid string
	fs := flags("export", "--data DIR --kernel NAME --csv FILE [--invalid ignore|zeta]", stderr)
	fs.StringVar(&data, "data", "", "dataset directory written by 'augur collect' or 'augur import'")
	fs.StringVar(&kernel, "kernel", "", "kernel family whose rows to export")
	fs.StringVar(&out, "csv", "", "CSV file to write (refuses to overwrite): the features, log_speedup, time_ns, ref_time_ns, platform, shape, config")
	fs.StringVar(&invalid, "invalid", "ignore", "configurations that failed or were pruned: ignore (leave out) or zeta (keep with target ln(0.1) and empty times)")
	if err := parse(fs, args, stdout); err != nil {
		return err
	}
	if err := required(fs, "data", "kernel", "csv"); err != nil {
		return err
	}
	var opt train.LoadOptions
	switch invalid {
	case "ignore":
	case "zeta":
		opt.Invalid = train.InvalidZeta
	default:
		return fmt.Errorf("export: --invalid must be ignore or zeta, got %q", invalid)
	}
	// Check before loading, which can take a while, that the file is new.
	if _, err := os.Stat(out); err == nil {
		return fmt.Errorf("export: %s exists; remove it first", out)
	}
	d, err := train.LoadWith(data, kernel, opt)
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	if err := writeCSV(out, d); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	fmt.Fprintf(stdout, "wrote %s: %d rows, %d features, %d platforms\n", out, d.Len(), len(d.Features), len(d.Platforms))
	return nil
}

// writeCSV writes d to a new file at path; O_EXCL makes the refusal to
// overwrite hold even against a file created since the first check. A
// failed write removes the partial file.
func writeCSV(path string, d *train.Data) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	err = d.WriteCSV(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return errors.Join(err, os.Remove(path))
	}
	return nil
}
