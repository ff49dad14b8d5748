package record

import (
	"errors"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/features"
)

// TestReadChecksSpaceAndShape writes files whose rows each break a rule
// that the writer does not check (a constraint of the space, the kernel's
// task space): reads refuse them, naming the file, batch and row (the
// shapes when a task space is given); the same rows pruned, or of an
// unknown kernel version, read. The record package's tests may import
// datasets; record itself may not (train's import boundary).
func TestReadChecksSpaceAndShape(t *testing.T) {
	conv, err := datasets.Lookup("conv2d")
	if err != nil {
		t.Fatal(err)
	}
	strict := testMeta()
	strict.Constraints = []string{"wg * unroll <= 32"}
	known := testMeta()
	known.KernelVersion = conv.Version()
	known.TaskNames = conv.TaskNames
	known.Params, known.Constraints = conv.Space.Params, conv.Space.Constraints
	known.Reference = conv.Reference
	okRow := func(task features.Task, c features.Config, st Status) Row {
		r := Row{Task: task, Config: c, Status: st, LogSpeedup: math.NaN()}
		if st == StatusOK {
			r.TimeNs, r.TimeMinNs, r.Repeats, r.RefTimeNs, r.LogSpeedup = 100, 100, 1, 100, 0
		}
		return r
	}
	good := okRow(features.Task{64, 64}, features.Config{8, 1}, StatusOK)
	tests := []struct {
		name string
		meta Meta
		rows []Row
		want string // "" reads
	}{
		{"constraint broken", strict, []Row{good, okRow(features.Task{64, 64}, features.Config{16, 4}, StatusOK)}, "batch 0: corrupted dataset file: row 1"},
		{"constraint broken, pruned", strict, []Row{good, okRow(features.Task{64, 64}, features.Config{16, 4}, StatusPruned)}, ""},
		{"constraint broken, second batch", strict, []Row{good, good, okRow(features.Task{64, 64}, features.Config{16, 4}, StatusCompileError)}, "batch 1: corrupted dataset file: row 0"},
		{"shape outside the task space", known, []Row{
			okRow(features.Task{512, 512, 3, 3}, conv.Reference, StatusOK),
			okRow(features.Task{512, 512, 4, 3}, conv.Reference, StatusOK)}, "filter_w must be odd"},
		{"unknown version, shape unchecked", func() Meta { m := known; m.KernelVersion = "000000000000"; return m }(), []Row{
			okRow(features.Task{512, 512, 4, 3}, conv.Reference, StatusOK)}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "f.arrow")
			writeFile(t, nil, path, tt.meta, 2, tt.rows)
			tasks := func(m Meta) TaskChecker {
				if m.Kernel == conv.Name && m.KernelVersion == conv.Version() {
					return conv
				}
				return nil
			}
			files, err := ReadDirWith(filepath.Dir(path), ReadOptions{Tasks: tasks})
			var rows []Row
			if len(files) == 1 {
				rows = files[0].Rows
			}
			if tt.want == "" {
				if err != nil || len(rows) != len(tt.rows) {
					t.Fatalf("ReadFile: %d rows, %v; want %d rows", len(rows), err, len(tt.rows))
				}
				return
			}
			if !errors.Is(err, ErrCorrupt) || !errors.Is(err, ErrInvalidRow) || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), path) {
				t.Fatalf("ReadFile error %v, want ErrCorrupt naming %s and %q", err, path, tt.want)
			}
			if _, _, err := ReadFile(path); err == nil && !strings.Contains(tt.name, "shape") {
				t.Error("ReadFile read the file")
			}
		})
	}
}
