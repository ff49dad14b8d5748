package main

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/augur-tuning/augur/collect/record"
	"github.com/augur-tuning/augur/features"
)

// TestRunKeepsRuns subsamples a dataset of two shapes whose rows keep
// their runs, save one ok row without runs (as files written before
// times_ns) and a failed row, and checks that every row written is its
// source row whole: the same summary and the same runs, nil where the
// source had none.
func TestRunKeepsRuns(t *testing.T) {
	data := t.TempDir()
	meta := record.Meta{Kernel: "k", KernelVersion: "v", Platform: features.Platform{Name: "dev", Type: "gpu"},
		TaskNames: []string{"n"}, Params: []features.Param{{Name: "a", Values: []int{1, 2, 3, 4, 5, 6}}},
		Reference: features.Config{1}, Created: time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC), Source: "collect"}
	if err := os.MkdirAll(filepath.Join(data, "k", "dev"), 0o755); err != nil {
		t.Fatal(err)
	}
	w, err := record.NewWriter(filepath.Join(data, "k", "dev", "run.arrow"), meta, 4)
	if err != nil {
		t.Fatal(err)
	}
	source := map[string]record.Row{}
	for _, n := range []int{1, 2} {
		for a := 1; a <= 6; a++ {
			r := record.Row{Task: features.Task{n}, Config: features.Config{a}, Status: record.StatusOK, LogSpeedup: math.NaN()}
			switch {
			case a == 6:
				r.Status, r.Error = record.StatusCompileError, "build failed"
			case a == 5:
				// Summary only, as in files without times_ns.
				r.TimeNs, r.TimeMinNs, r.TimeCV, r.Repeats = 5000, 4900, 0.01, 3
			default:
				base := int64(1000 * (a + n))
				r.Runs = []int64{base + 7, base, base + 3}
				r.TimeNs, r.TimeMinNs, r.Repeats = float64(base+3), float64(base), 3
				_, _, r.TimeCV = record.Summarize([]float64{float64(base + 7), float64(base), float64(base + 3)})
			}
			if err := w.Write(r); err != nil {
				t.Fatal(err)
			}
			source[fmt.Sprint(r.Task, r.Config)] = r
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name string
		n    int
		each bool
	}{
		{"the same configurations for every shape", 3, false},
		{"drawn anew for each shape", 3, true},
		{"every configuration", 100, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			var stdout bytes.Buffer
			if err := run(&stdout, data, "k", out, tt.n, tt.each, 0, 1); err != nil {
				t.Fatal(err)
			}
			files, err := record.ReadDirWith(filepath.Join(out, "k"), record.ReadOptions{Runs: true})
			if err != nil {
				t.Fatal(err)
			}
			if len(files) != 2 {
				t.Fatalf("%d files written, want one a shape", len(files))
			}
			withRuns := 0
			var drawn []string // each file's configurations but the reference
			for _, f := range files {
				ref, keys := false, []string{}
				for _, r := range f.Rows {
					want, ok := source[fmt.Sprint(r.Task, r.Config)]
					if !ok {
						t.Fatalf("row %v %v is not in the source", r.Task, r.Config)
					}
					if !slices.Equal(r.Runs, want.Runs) || (r.Runs == nil) != (want.Runs == nil) {
						t.Errorf("%v %v: runs %v, want %v", r.Task, r.Config, r.Runs, want.Runs)
					}
					if r.TimeNs != want.TimeNs || r.TimeMinNs != want.TimeMinNs || r.TimeCV != want.TimeCV ||
						r.Repeats != want.Repeats || r.Status != want.Status || r.Error != want.Error {
						t.Errorf("%v %v: row %+v, want %+v", r.Task, r.Config, r, want)
					}
					if r.Config.Equal(meta.Reference) {
						ref = true
					} else {
						keys = append(keys, fmt.Sprint(r.Config))
					}
					if r.Runs != nil {
						withRuns++
					}
				}
				if !ref {
					t.Errorf("%s lacks the reference row", f.Path)
				}
				if k := min(tt.n, 6); len(f.Rows) != k && len(f.Rows) != k+1 {
					t.Errorf("%s has %d rows, want %d drawn and the reference", f.Path, len(f.Rows), k)
				}
				drawn = append(drawn, strings.Join(keys, " "))
			}
			if !tt.each && drawn[0] != drawn[1] {
				t.Errorf("shapes drew %q and %q, want the same configurations", drawn[0], drawn[1])
			}
			if withRuns == 0 {
				t.Errorf("no row written kept its runs")
			}
			if strings.TrimSpace(stdout.String()) == "" {
				t.Errorf("printed nothing, want the count of configurations built")
			}
		})
	}
}
