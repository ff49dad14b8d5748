package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/augur-tuning/augur/train"
)

func runExport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var data, out, invalid, target, foldBy string
	var rows bool
	var kr kernelRef
	fs := flags("export", "--data DIR --kernel NAME|--spec FILE --csv FILE [--rows | --invalid ignore|zeta | --target PARAM [--fold-by NAME,...]]", stderr)
	fs.StringVar(&data, "data", "", "dataset directory written by 'augur collect' or 'augur import'")
	addKernelFlags(fs, &kr, "kernel family whose rows to export")
	fs.StringVar(&out, "csv", "", "CSV file to write (refuses to overwrite): the features, log_speedup, time_ns, ref_time_ns, platform, shape, config")
	fs.StringVar(&invalid, "invalid", "ignore", "configurations that failed or were pruned: ignore (leave out) or zeta (keep with target ln(0.1) and empty times)")
	fs.StringVar(&target, "target", "", "write instead the classifier's groups of this parameter: one row a (shape, device) with the task, static (task-only derived) and platform features, the held-out fold (see --fold-by), the device, the label (the index of the parameter's value in the fastest configuration) and the fastest time of each value")
	fs.StringVar(&foldBy, "fold-by", "", "with --target: comma-separated task features whose values make the folds, as 'augur train --fold-by'; empty: one fold a shape")
	fs.BoolVar(&rows, "rows", false, "write instead the rows as recorded, every status, one line a row: the file, the platform, then the dataset's columns, times_ns last (the timed runs in the order they ran, separated by ';', empty where the file keeps none)")
	if err := parse(fs, args, stdout); err != nil {
		return err
	}
	if err := kr.check("export"); err != nil {
		return err
	}
	if err := required(fs, "data", "csv"); err != nil {
		return err
	}
	kernel, spec, err := kr.dataName("export")
	if err != nil {
		return err
	}
	warnLeftovers(stderr, data)
	if rows {
		var conflict []string
		fs.Visit(func(f *flag.Flag) {
			if f.Name == "target" || f.Name == "fold-by" || f.Name == "invalid" {
				conflict = append(conflict, "--"+f.Name)
			}
		})
		if len(conflict) > 0 {
			return fmt.Errorf("export: --rows writes every row as recorded; it takes no %s", strings.Join(conflict, ", "))
		}
		if _, err := os.Stat(out); err == nil {
			return fmt.Errorf("export: %s exists; remove it first", out)
		}
		n, files, err := exportRows(data, kernel, out)
		if err != nil {
			return fmt.Errorf("export: %w", err)
		}
		fmt.Fprintf(stdout, "wrote %s: %d rows of %d files\n", out, n, files)
		return nil
	}
	var opt train.LoadOptions
	if opt.Invalid, err = train.ParseInvalid(invalid); err != nil {
		return fmt.Errorf("export: --invalid must be ignore or zeta, got %q", invalid)
	}
	// Check before loading, which can take a while, that the file is new.
	if _, err := os.Stat(out); err == nil {
		return fmt.Errorf("export: %s exists; remove it first", out)
	}
	if k := spec; k != nil {
		// The rows carry the kernel's derived features, as 'augur train'
		// gives them to its models; the classifier's groups their
		// task-only ones, as 'augur train --target' does.
		opt.Derived = k.Derived
	}
	opt.Tasks = taskSpaceOf
	d, err := train.LoadWith(data, kernel, opt)
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	if target != "" {
		cd, err := train.Classes(d, target)
		if err != nil {
			return fmt.Errorf("export: %w", err)
		}
		var by []string
		if foldBy != "" {
			by = strings.Split(foldBy, ",")
		}
		if err := writeWhole(out, func(tmp string) error { return cd.WriteCSVFile(tmp, by) }); err != nil {
			return fmt.Errorf("export: %w", err)
		}
		fmt.Fprintf(stdout, "wrote %s: %d (shape, device) groups of %s, %d features, %d platforms\n", out, cd.Len(), target, len(cd.Features), len(cd.Platforms))
		return nil
	} else if foldBy != "" {
		return fmt.Errorf("export: --fold-by needs --target")
	}
	if err := writeWhole(out, d.WriteCSVFile); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	fmt.Fprintf(stdout, "wrote %s: %d rows, %d features, %d platforms\n", out, d.Len(), len(d.Features), len(d.Platforms))
	return nil
}
