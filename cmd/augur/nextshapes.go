package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/eval"
	"github.com/augur-tuning/augur/features"
)

// nextShapesFlags are 'augur eval --next-shapes N --from SHAPES [--device NAME]'.
type nextShapesFlags struct {
	n            int
	from, device string
}

// runNextShapes is 'augur eval --next-shapes'.
func runNextShapes(data string, opt eval.Options, kr kernelRef, f nextShapesFlags, asJSON bool, stdin io.Reader, stdout, progress io.Writer) error {
	switch {
	case f.n < 1:
		return usagef("eval: --next-shapes must be at least 1, got %d", f.n)
	case f.from == "":
		return usagef("eval: --next-shapes needs --from: the shapes to choose from")
	}
	pool, err := readShapes("eval: --from", f.from, stdin)
	if err != nil {
		return err
	}
	fmt.Fprintf(progress, "eval: choosing %d of %d shapes\n", f.n, len(pool))
	out, err := eval.NextShapesFor(data, opt, f.device, pool, f.n)
	if err != nil {
		return err // eval's errors carry the package prefix
	}
	if asJSON {
		return writeIndentedJSON(stdout, out)
	}
	ref := "--kernel " + opt.Kernel
	switch _, err := datasets.Lookup(opt.Kernel); {
	case kr.spec != "":
		ref = "--spec " + kr.spec
	case err != nil:
		// Imported data of a kernel augur cannot run without its spec.
		ref = ""
	}
	if ref != "" {
		ref += " --out " + data
	}
	return writeNextShapes(stdout, out, ref, f.n)
}

// readShapes reads a list of shapes given as a flag's value: shapes
// separated by ';' (a value with '='), "-" for standard input when stdin
// is not nil, or a file; a file or standard input holds them one or more
// a line, blank lines and '#' comments skipped (features.ShapeLines).
// flag names the flag in errors ("eval: --from").
func readShapes(flag, value string, stdin io.Reader) ([]string, error) {
	if strings.Contains(value, "=") {
		return features.ShapeLines(value), nil
	}
	var (
		b   []byte
		err error
	)
	switch {
	case value == "-" && stdin != nil:
		b, err = io.ReadAll(stdin)
	case value == "-":
		return nil, fmt.Errorf("%s: '-' (standard input) is not read here: give the shapes or a file of them", flag)
	default:
		b, err = os.ReadFile(value)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, usagef("%s %q is neither shapes (name=value,...;...) nor a file: %w", flag, value, err)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", flag, err)
	}
	shapes := features.ShapeLines(string(b))
	if len(shapes) == 0 {
		return nil, fmt.Errorf("%s %s holds no shapes", flag, value)
	}
	return shapes, nil
}

// writeNextShapes prints each device's suggestions and the collect
// command that measures them (collectFlags: its kernel and --out), or,
// with no collectFlags (a kernel imported without its spec), how to
// measure them with the tuner the data came from.
func writeNextShapes(w io.Writer, out []eval.NextShapes, collectFlags string, asked int) error {
	for i, ns := range out {
		if i > 0 {
			fmt.Fprintln(w)
		}
		if len(ns.Unfit) > 0 {
			fmt.Fprintf(w, "%s: %d shapes left out: the device cannot run the kernel's reference configuration there (%s: %s", ns.Platform, len(ns.Unfit), ns.Unfit[0].Shape, ns.Unfit[0].Reason)
			if len(ns.Unfit) > 1 {
				fmt.Fprintf(w, "; --json lists the others")
			}
			fmt.Fprintln(w, ")")
		}
		if len(ns.Shapes) == 0 {
			fmt.Fprintf(w, "%s (%d shapes measured): no shape to choose from is left to measure\n", ns.Platform, ns.Measured)
			continue
		}
		if ns.New {
			fmt.Fprintf(w, "%s (no data of this device; check its name if it should have some): measure first, in this order (the middle of the shapes, then each the farthest from those above it):\n", ns.Platform)
		} else {
			fmt.Fprintf(w, "%s (%d shapes measured): measure next, in this order (each the farthest from the measured shapes and those above it):\n", ns.Platform, ns.Measured)
		}
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		var shapes []string
		for j, s := range ns.Shapes {
			shapes = append(shapes, s.Shape)
			if s.Nearest == "" {
				fmt.Fprintf(tw, "  %d\t%s\t(the middle of the shapes to choose from)\n", j+1, s.Shape)
				continue
			}
			fmt.Fprintf(tw, "  %d\t%s\t%.2f doublings from %s\n", j+1, s.Shape, s.Doublings, s.Nearest)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		if len(ns.Shapes) < asked {
			fmt.Fprintf(w, "  (%d asked: the other shapes to choose from are measured or cannot run)\n", asked)
		}
		if collectFlags == "" {
			fmt.Fprintf(w, "  measure them with the tuner the data came from and add them with augur import (augur collect needs the kernel's spec: --spec FILE)\n")
			continue
		}
		fmt.Fprintf(w, "  augur collect %s --device %s --shapes '%s'\n", collectFlags, ns.Platform, strings.Join(shapes, ";"))
	}
	return nil
}
