package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/augur-tuning/augur/collect/record"
)

// exportRows writes every row of kernel's dataset files under data to the
// new file out as CSV (record.CSVWriter), one file read at a time, and
// returns the rows and files written. A failed export removes what it
// wrote.
func exportRows(data, kernel, out string) (rows, files int, err error) {
	paths, err := record.Files(filepath.Join(data, kernel))
	if errors.Is(err, fs.ErrNotExist) {
		paths, err = nil, nil
	}
	if err != nil {
		return 0, 0, err
	}
	if len(paths) == 0 {
		return 0, 0, fmt.Errorf("no dataset files of %s under %s", kernel, data)
	}
	f, err := os.OpenFile(out, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return 0, 0, err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(out)
		}
	}()
	c := record.NewCSVWriter(f)
	for _, p := range paths {
		meta, rs, err := record.ReadFileWith(p, record.ReadOptions{Tasks: taskSpaceOf, Runs: true})
		if err != nil {
			return 0, 0, err
		}
		name, rerr := filepath.Rel(data, p)
		if rerr != nil {
			name = p
		}
		if err := c.Write(filepath.ToSlash(name), meta, rs); err != nil {
			return 0, 0, err
		}
	}
	if err := c.Flush(); err != nil {
		return 0, 0, err
	}
	return c.Rows(), len(paths), nil
}
