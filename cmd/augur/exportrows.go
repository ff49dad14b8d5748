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
	err = writeWhole(out, func(tmp string) error {
		f, err := os.Create(tmp)
		if err != nil {
			return err
		}
		rows, files, err = record.WriteCSVDir(f, data, filepath.Join(data, kernel), record.ReadOptions{Tasks: taskSpaceOf})
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return err
	})
	return rows, files, err
}
