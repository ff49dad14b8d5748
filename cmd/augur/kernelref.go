package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/augur-tuning/augur/collect/record"
	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/features"
)

// kernelRef is a command's kernel: augur's own family by --kernel NAME, or
// the user's kernel by --spec FILE (a T1 tuning-format file).
type kernelRef struct {
	name, spec string
	warn       io.Writer // where a spec's warnings go: the flags' output
}

// addKernelFlags registers --kernel and --spec.
func addKernelFlags(fs *flag.FlagSet, r *kernelRef, what string) {
	r.warn = fs.Output()
	fs.StringVar(&r.name, "kernel", "", what+" (see 'augur kernels'), or use --spec")
	fs.StringVar(&r.spec, "spec", "", "your own OpenCL kernel: a Kernel Tuner T1 spec file (JSON) naming its .cl file; see docs/own-kernel.md")
}

// check returns the usage error of a command that needs a kernel and got
// none, or both.
func (r kernelRef) check(cmd string) error {
	switch {
	case r.name == "" && r.spec == "":
		return usagef("%s: --kernel NAME or --spec FILE is required", cmd)
	case r.name != "" && r.spec != "":
		return usagef("%s: give --kernel or --spec, not both", cmd)
	}
	return nil
}

// kernel returns the kernel: the spec's, or augur's family of that name.
func (r kernelRef) kernel(cmd string) (*datasets.Kernel, error) {
	if err := r.check(cmd); err != nil {
		return nil, err
	}
	if r.spec != "" {
		return r.readSpec()
	}
	k, err := datasets.Lookup(r.name)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", cmd, err)
	}
	return k, nil
}

// dataName returns the name the kernel's data is filed under and, for a
// spec or one of augur's families, the kernel (nil for an imported
// kernel, which only has data).
func (r kernelRef) dataName(cmd string) (string, *datasets.Kernel, error) {
	if err := r.check(cmd); err != nil {
		return "", nil, err
	}
	if r.spec != "" {
		k, err := r.readSpec()
		if err != nil {
			return "", nil, err
		}
		return k.Name, k, nil
	}
	k, err := datasets.Lookup(r.name)
	if err != nil {
		return r.name, nil, nil
	}
	return r.name, k, nil
}

// needSpec refuses --kernel NAME for data under dir that collect measured
// from a spec (a kernel augur does not know by name, rows of source
// "collect"): without the spec the model would lose the kernel's derived
// features and the bundle its launch plan. Imported data, which has no
// spec, passes.
func (r kernelRef) needSpec(cmd, dir string) error {
	if r.spec != "" {
		return nil
	}
	if _, err := datasets.Lookup(r.name); err == nil {
		return nil
	}
	paths, err := record.Files(filepath.Join(dir, r.name))
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: no data of kernel %q under %s (augur's kernels: %s; data collected from a spec is read with --spec)",
			cmd, r.name, dir, strings.Join(datasets.Names(), ", "))
	}
	if err != nil || len(paths) == 0 {
		return nil // the loader reports it
	}
	meta, _, err := record.ReadFile(paths[0])
	if err != nil || meta.Source != "collect" {
		return nil
	}
	return usagef("%s: %s is not one of augur's kernels, and its data under %s were collected from a spec: pass --spec FILE, the spec they were collected with", cmd, r.name, dir)
}

// readSpec reads --spec and prints its warnings.
func (r kernelRef) readSpec() (*datasets.Kernel, error) {
	k, err := datasets.ReadSpec(r.spec)
	if err != nil {
		return nil, err
	}
	printWarnings(r.warn, k)
	return k, nil
}

// printWarnings prints a spec kernel's warnings, a line each.
func printWarnings(w io.Writer, k *datasets.Kernel) {
	for _, s := range k.Warnings {
		fmt.Fprintf(w, "augur: warning: %s\n", s)
	}
}

// parseShapes reads --shapes for k: "name=value,...;...", a problem size
// answering to problem_size_I too (features.AliasProblemSizes).
func parseShapes(k *datasets.Kernel, text string) ([]features.Task, error) {
	return features.ParseTasks(k.TaskNames, features.AliasProblemSizes(k.TaskNames, text))
}

// parseShape is parseShapes for one shape.
func parseShape(k *datasets.Kernel, text string) (features.Task, error) {
	ts, err := parseShapes(k, text)
	if err != nil {
		return nil, err
	}
	if len(ts) != 1 {
		return nil, fmt.Errorf("%w: want one shape, got %d", features.ErrSyntax, len(ts))
	}
	return ts[0], nil
}

// warnOtherVersions says which files the load left out for holding another
// version of the spec kernel (collected before it changed).
func warnOtherVersions(w io.Writer, kernel string, files []string) {
	if n := len(files); n > 0 {
		fmt.Fprintf(w, "augur: warning: left out %d of the files under the data directory, of another version of %s than the spec's (collected before the kernel or its spec changed), such as %s\n",
			n, kernel, files[0])
	}
}
