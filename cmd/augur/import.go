package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/augur-tuning/augur/collect/importer"
	"github.com/augur-tuning/augur/collect/record"
	"github.com/augur-tuning/augur/datasets"
)

func runImport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var (
		opt                                importer.Options
		taskParams, compression, platforms string
		set                                multiFlag
	)
	fs := flags("import", "--from kerneltuner|t4 --kernel NAME --out DIR [--spec T1.json] [--shape 'k=v,...'] [--device NAME] [--platforms FILE] [--set name=value...] [--task-params a,b] [--compression zstd|none] [--max-input-gib N] FILE...", stderr)
	fs.StringVar(&opt.From, "from", "", "format of the input files: kerneltuner (cache .json or .json.gz) or t4 (results)")
	fs.StringVar(&opt.Kernel, "kernel", "", "kernel name; files go to DIR/<kernel>/<device>/import-<file>.arrow")
	fs.StringVar(&opt.Out, "out", "", "dataset directory")
	fs.StringVar(&opt.Spec, "spec", "", "T1 kernel description: space, constraints, default configuration (optional)")
	fs.StringVar(&opt.Shape, "shape", "", "problem size of the input files, 'name=value,...': required for t4 files of a shape other than the spec's ProblemSize (T4 names none; import files of different shapes in separate runs), checked against a cache's problem_size; names the spec's problem sizes, or without a spec names them")
	fs.StringVar(&opt.Device, "device", "", "device name, overriding the files' own (required for t4 and files that name none)")
	fs.StringVar(&platforms, "platforms", "", "device table (CSV, as datasets/devices.csv) to look the device's features up in (a device it lacks imports with unknown features, and a warning on stderr); default: the table augur ships")
	fs.Var(&set, "set", "name=value: the value of a spec parameter the files lack (repeatable)")
	fs.StringVar(&taskParams, "task-params", "", "comma-separated single-valued parameters to record as task features, e.g. filter_width,filter_height")
	fs.StringVar(&compression, "compression", string(record.CompressionZstd), "codec of the files' record batches: zstd, or none for readers without codecs (Arrow JS)")
	maxInput := fs.Int("max-input-gib", 1, "the most an input file may hold, decompressed, in GiB: a bound on the time a corrupt file takes (memory does not grow with it)")
	asJSON := fs.Bool("json", false, "print the summary as one JSON object: files, each with input, path, platform, counts, reference, ref_time_ns, best, best_time_ns, ...")
	files, err := parseFiles(fs, args, stdout)
	if err != nil {
		return err
	}
	if err := required(fs, "from", "kernel", "out"); err != nil {
		return err
	}
	if len(files) == 0 {
		return usagef("import: no input files given")
	}
	opt.Files = files
	if err := importFlags(&opt, compression, taskParams, set, *maxInput); err != nil {
		return err
	}
	if opt.Platforms, err = deviceTable(platforms); err != nil {
		return err
	}
	progress := newReporter(progressTo(fs, stderr), "import")
	defer progress.Close()
	progress.Step(0, 0, fmt.Sprintf("converting %d files", len(files)))
	sum, err := importer.Import(ctx, opt)
	progress.Close()
	if sum != nil && len(sum.Files) > 0 {
		for _, f := range sum.Files {
			if f.Warning != "" {
				fmt.Fprintf(stderr, "import: warning: %s: %s\n", f.Input, f.Warning)
			}
		}
		if *asJSON {
			if err := json.NewEncoder(stdout).Encode(sum); err != nil {
				return fmt.Errorf("import: %w", err)
			}
		} else {
			fmt.Fprintln(stdout, sum)
		}
	}
	if err != nil {
		return fmt.Errorf("import: %w", err)
	}
	return nil
}

// importFlags checks the flags that importer.Options.check would refuse,
// naming the flags, as usage errors (before any file is read), and sets
// the options they give.
func importFlags(opt *importer.Options, compression, taskParams string, set []string, maxInput int) error {
	_, lerr := datasets.Lookup(opt.Kernel)
	switch {
	case opt.From != importer.FromKernelTuner && opt.From != importer.FromT4:
		return usagef("import: --from must be %s or %s, got %q", importer.FromKernelTuner, importer.FromT4, opt.From)
	case opt.From == importer.FromT4 && opt.Device == "":
		return usagef("import: --from t4 needs --device NAME: T4 files do not name the device they were measured on")
	case opt.Kernel != filepath.Base(opt.Kernel) || opt.Kernel == "." || opt.Kernel == "..":
		return usagef("import: --kernel must be a plain name (a directory under --out), got %q", opt.Kernel)
	case lerr == nil:
		// Its data would be read with that family's shape, space and
		// derived features, which another tuner's kernel does not have.
		return usagef("import: --kernel %s is one of augur's kernel families (augur kernels); import under another name", opt.Kernel)
	case maxInput < 1:
		return usagef("import: --max-input-gib must be >= 1, got %d", maxInput)
	}
	opt.MaxInputBytes = int64(maxInput) << 30
	c, err := record.ParseCompression(compression)
	if err != nil {
		return usagef("import: --compression must be zstd or none, got %q", compression)
	}
	opt.Compression = c
	if taskParams != "" {
		opt.TaskParams = strings.Split(taskParams, ",")
		if slices.Contains(opt.TaskParams, "") {
			return usagef("import: --task-params %q names an empty parameter", taskParams)
		}
	}
	if opt.Set, err = parseSet(set); err != nil {
		return err
	}
	if len(set) > 0 && opt.Spec == "" {
		return usagef("import: --set needs --spec: the values of parameters a file lacks come from the spec's space")
	}
	return nil
}

// parseSet reads --set name=value flags.
func parseSet(set []string) (map[string]int, error) {
	if len(set) == 0 {
		return nil, nil
	}
	out := map[string]int{}
	for _, kv := range set {
		name, val, ok := strings.Cut(kv, "=")
		v, err := strconv.Atoi(strings.TrimSpace(val))
		if !ok || strings.TrimSpace(name) == "" || err != nil {
			return nil, usagef("import: --set %q, want name=integer", kv)
		}
		if _, dup := out[strings.TrimSpace(name)]; dup {
			return nil, usagef("import: --set names %s twice", name)
		}
		out[strings.TrimSpace(name)] = v
	}
	return out, nil
}

// deviceTable reads the --platforms file, or returns the shipped table.
func deviceTable(path string) (*datasets.DeviceTable, error) {
	if path == "" {
		return datasets.Devices(), nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("import: --platforms: %w", err)
	}
	defer f.Close()
	t, err := datasets.ReadDevices(f)
	if err != nil {
		return nil, fmt.Errorf("import: --platforms %s: %w", path, err)
	}
	return t, nil
}

// parseFiles parses flags and collects the positional arguments as input
// files, so that flags may come before, between and after the files (the
// flag package alone stops at the first positional argument). After "--"
// every argument is a file.
func parseFiles(fs *flag.FlagSet, args []string, stdout io.Writer) ([]string, error) {
	helpTo(fs, args, stdout)
	var files []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, usageError{fmt.Errorf("%s: %w", fs.Name(), err)}
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
