package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/augur-tuning/augur/collect/importer"
)

func runImport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var (
		opt        importer.Options
		taskParams string
	)
	fs := flags("import", "--from kerneltuner|t4 --kernel NAME --out DIR [--spec T1.json] [--device NAME] [--task-params a,b] FILE...", stderr)
	fs.StringVar(&opt.From, "from", "", "format of the input files: kerneltuner (cache .json or .json.gz) or t4 (results)")
	fs.StringVar(&opt.Kernel, "kernel", "", "kernel name; files go to DIR/<kernel>/<device>/import-<file>.arrow")
	fs.StringVar(&opt.Out, "out", "", "dataset directory")
	fs.StringVar(&opt.Spec, "spec", "", "T1 kernel description: space, constraints, default configuration (optional)")
	fs.StringVar(&opt.Device, "device", "", "device name, overriding the files' own (required for t4)")
	fs.StringVar(&taskParams, "task-params", "", "comma-separated single-valued parameters to record as task features, e.g. filter_width,filter_height")
	files, err := parseFiles(fs, args)
	if err != nil {
		return err
	}
	if err := required(fs, "from", "kernel", "out"); err != nil {
		return err
	}
	if len(files) == 0 {
		return errors.New("import: no input files given")
	}
	opt.Files = files
	if taskParams != "" {
		opt.TaskParams = strings.Split(taskParams, ",")
	}
	sum, err := importer.Import(opt)
	if sum != nil && len(sum.Files) > 0 {
		fmt.Fprintln(stdout, sum)
	}
	if err != nil {
		return fmt.Errorf("import: %w", err)
	}
	return nil
}

// parseFiles parses flags and collects the positional arguments as input
// files, so that flags may come before, between and after the files (the
// flag package alone stops at the first positional argument). After "--"
// every argument is a file.
func parseFiles(fs *flag.FlagSet, args []string) ([]string, error) {
	var files []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, fmt.Errorf("%s: %w", fs.Name(), err)
		}
		rest := fs.Args()
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			return append(files, rest...), nil
		}
		i := 0
		for i < len(rest) && (rest[i] == "-" || !strings.HasPrefix(rest[i], "-")) {
			i++
		}
		files = append(files, rest[:i]...)
		if i == len(rest) {
			return files, nil
		}
		args = rest[i:]
	}
}
