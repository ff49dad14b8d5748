package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/augur-tuning/augur/collect/importer"
	"github.com/augur-tuning/augur/collect/record"
)

func runImport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var (
		opt                     importer.Options
		taskParams, compression string
	)
	fs := flags("import", "--from kerneltuner|t4 --kernel NAME --out DIR [--spec T1.json] [--device NAME] [--task-params a,b] [--compression zstd|none] FILE...", stderr)
	fs.StringVar(&opt.From, "from", "", "format of the input files: kerneltuner (cache .json or .json.gz) or t4 (results)")
	fs.StringVar(&opt.Kernel, "kernel", "", "kernel name; files go to DIR/<kernel>/<device>/import-<file>.arrow")
	fs.StringVar(&opt.Out, "out", "", "dataset directory")
	fs.StringVar(&opt.Spec, "spec", "", "T1 kernel description: space, constraints, default configuration (optional)")
	fs.StringVar(&opt.Device, "device", "", "device name, overriding the files' own (required for t4)")
	fs.StringVar(&taskParams, "task-params", "", "comma-separated single-valued parameters to record as task features, e.g. filter_width,filter_height")
	fs.StringVar(&compression, "compression", string(record.CompressionZstd), "codec of the files' record batches: zstd, or none for readers without codecs (Arrow JS)")
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
	c, err := record.ParseCompression(compression)
	if err != nil {
		return fmt.Errorf("import: --compression must be zstd or none, got %q", compression)
	}
	opt.Compression = c
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
