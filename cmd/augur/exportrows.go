package main

import (
	"os"
	"path/filepath"

	"github.com/augur-tuning/augur/collect/record"
)

// exportRows writes every row of kernel's dataset files under data to the
// new file out as CSV (record.WriteCSVDir) and returns the rows and files
// written. A failed export removes what it wrote.
func exportRows(data, kernel, out string) (rows, files int, err error) {
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
	return record.WriteCSVDir(f, data, filepath.Join(data, kernel), record.ReadOptions{Tasks: taskSpaceOf})
}
