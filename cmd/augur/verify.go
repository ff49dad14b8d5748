package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"

	"github.com/augur-tuning/augur/collect/record"
	"github.com/augur-tuning/augur/datasets"
)

// errBadData is returned by verify when a file failed its checks; the
// lines before it name them.
var errBadData = errors.New("verify: bad dataset files")

// verifyFile is one file of verify --json.
type verifyFile struct {
	Path         string   `json:"path"`
	Kernel       string   `json:"kernel,omitempty"`
	Rows         int      `json:"rows"`
	Batches      int      `json:"batches"`
	Duplicates   int      `json:"duplicates"`
	BadRows      int      `json:"bad_rows"`
	Verified     bool     `json:"verified"`
	TasksChecked bool     `json:"tasks_checked"`
	OK           bool     `json:"ok"`
	Error        string   `json:"error,omitempty"`
	Problems     []string `json:"problems,omitempty"`
}

func runVerify(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var data string
	var asJSON bool
	fs := flags("verify", "--data DIR [--json]", stderr)
	fs.StringVar(&data, "data", "", "dataset directory (or one .arrow file) to check: checksums, every row against its space and shape constraints, duplicates")
	fs.BoolVar(&asJSON, "json", false, "print the per-file results as one JSON object")
	if err := parse(fs, args, stdout); err != nil {
		return err
	}
	if err := required(fs, "data"); err != nil {
		return err
	}
	paths, err := record.Files(data)
	if err != nil {
		return err
	}
	temps := warnImportLeftovers(stderr, data)
	if len(paths) == 0 {
		return fmt.Errorf("verify: no dataset files (*.arrow) under %s", data)
	}
	opt := record.VerifyOptions{Tasks: taskSpaceOf}
	var files []verifyFile
	var checks []*record.Check
	nBad := 0
	for _, p := range paths {
		if err := ctx.Err(); err != nil {
			return err
		}
		c := record.Verify(p, opt)
		f := verifyFile{Path: c.Path, Kernel: c.Meta.Kernel, Rows: c.Rows, Batches: c.Batches,
			Duplicates: c.Duplicates, BadRows: c.BadRows, Verified: c.Verified,
			TasksChecked: c.TasksChecked, OK: c.OK(), Problems: c.Problems}
		if c.Err != nil {
			f.Error = oneLine(c.Err)
		}
		if !f.OK {
			nBad++
		}
		files = append(files, f)
		checks = append(checks, c)
		if !asJSON {
			fmt.Fprintln(stdout, c)
		}
	}
	for _, c := range record.Misplaced(checks) {
		i := slices.Index(checks, c)
		family := filepath.Base(filepath.Dir(filepath.Dir(c.Path)))
		msg := fmt.Sprintf("holds kernel %q in the directory of kernel %q, whose files train, eval and export read: move it under %s's own directory", c.Meta.Kernel, family, c.Meta.Kernel)
		if files[i].OK {
			nBad++
		}
		files[i].OK = false
		files[i].Problems = append(files[i].Problems, msg)
		if !asJSON {
			fmt.Fprintf(stdout, "%s: BAD: %s\n", c.Path, msg)
		}
	}
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		out := map[string]any{"files": files, "bad_files": nBad}
		if len(temps) > 0 {
			out["import_leftovers"] = temps
		}
		if err := enc.Encode(out); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(stdout, "%d files, %d bad\n", len(files), nBad)
	}
	if nBad > 0 {
		return fmt.Errorf("%w: %d of %d files", errBadData, nBad, len(files))
	}
	warnLeftovers(stderr, data)
	return nil
}

// taskSpaceOf is augur's own family the file's rows come from, when its
// version is the file's, so that shapes are checked against its task
// constraints; nil for an imported or spec kernel, or another version.
func taskSpaceOf(m record.Meta) record.TaskChecker {
	k, err := datasets.Lookup(m.Kernel)
	if err != nil || k.Version() != m.KernelVersion {
		return nil
	}
	return k
}
