package importer

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/augur-tuning/augur/collect/record"
)

// TestImportKeepsRuns imports one configuration at a time and checks the
// row it becomes: its runs rounded to whole nanoseconds, kept in the order
// they ran, and a summary that is exactly the rounded runs' (so that a
// reader that checks runs against the row accepts it), or, where the file
// gives only a mean time, no runs and that mean as the summary.
func TestImportKeepsRuns(t *testing.T) {
	tests := []struct {
		name string
		from string
		// entry is the tested configuration's times: the fields of a
		// Kernel Tuner cache entry, or of a T4 result.
		entry     string
		runs      []int64 // nil: none kept
		median    float64
		minimum   float64
		cvOfRuns  bool // the cv is the runs' (else 0)
		wantCount int
	}{
		{"whole ms, order kept", FromKernelTuner, `"time": 2.5, "times": [3, 2, 2.5]`,
			[]int64{3_000_000, 2_000_000, 2_500_000}, 2_500_000, 2_000_000, true, 3},
		{"rounded to the nearest ns", FromKernelTuner, `"time": 0.00123, "times": [0.0012344, 0.0012346, 0.00123449]`,
			[]int64{1234, 1235, 1234}, 1234, 1234, true, 3},
		{"even count: the median of the rounded runs", FromKernelTuner, `"time": 0.001, "times": [0.0010004, 0.0010006]`,
			[]int64{1000, 1001}, 1000.5, 1000, true, 2},
		{"half a ns rounds away from zero", FromKernelTuner, `"time": 0.001, "times": [0.0000025, 0.0000035, 0.000003]`,
			[]int64{3, 4, 3}, 3, 3, true, 3},
		{"below 1 ns is 1 ns", FromKernelTuner, `"time": 0.000001, "times": [0.0000001, 0.000002]`,
			[]int64{1, 2}, 1.5, 1, true, 2},
		{"mean only: no times", FromKernelTuner, `"time": 1.23456789`,
			nil, 1_234_568, 1_234_568, false, 1},
		{"mean only: empty times", FromKernelTuner, `"time": 1.23456789, "times": []`,
			nil, 1_234_568, 1_234_568, false, 1},
		{"T4 runtimes", FromT4, `"times": {"runtimes": [1.0885119438171387, 1.0076160430908203, 1.001471996307373]}`,
			[]int64{1_088_512, 1_007_616, 1_001_472}, 1_007_616, 1_001_472, true, 3},
		{"T4 runtimes in their unit", FromT4, `"times": {"runtimes": [1500.4, 1499.6]}, "measurements": [{"name": "time", "value": 1500, "unit": "us"}]`,
			[]int64{1_500_400, 1_499_600}, 1_500_000, 1_499_600, true, 2},
		{"T4 mean only", FromT4, `"measurements": [{"name": "time", "value": 2.0000004, "unit": "ms"}]`,
			nil, 2_000_000, 2_000_000, false, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rows, sum := importOne(t, tt.from, tt.entry)
			wantMeanOnly := 0
			if tt.runs == nil {
				wantMeanOnly = 1
			}
			if sum.MeanOnly != wantMeanOnly || strings.Contains(sum.String(), "mean time only") != (wantMeanOnly > 0) {
				t.Errorf("summary counts %d rows with a mean only, want %d: %s", sum.MeanOnly, wantMeanOnly, sum)
			}
			r := rows[0] // bx=1: the reference (the space's first)
			if !slices.Equal(r.Runs, tt.runs) || (r.Runs == nil) != (tt.runs == nil) {
				t.Errorf("runs %v, want %v", r.Runs, tt.runs)
			}
			if r.TimeNs != tt.median || r.TimeMinNs != tt.minimum || r.Repeats != tt.wantCount {
				t.Errorf("time_ns %v, time_min_ns %v, repeats %d; want %v, %v, %d", r.TimeNs, r.TimeMinNs, r.Repeats, tt.median, tt.minimum, tt.wantCount)
			}
			wantCV := 0.0
			if tt.cvOfRuns {
				xs := make([]float64, len(tt.runs))
				for i, v := range tt.runs {
					xs[i] = float64(v)
				}
				_, _, wantCV = record.Summarize(xs)
			}
			if math.Abs(r.TimeCV-wantCV) > 1e-15 {
				t.Errorf("time_cv %v, want %v (the rounded runs')", r.TimeCV, wantCV)
			}
			// The reference is this row: its time is every row's
			// ref_time_ns exactly, and its log-speedup 0.
			for _, row := range rows {
				if row.RefTimeNs != r.TimeNs {
					t.Errorf("ref_time_ns %v, want the reference row's time_ns %v", row.RefTimeNs, r.TimeNs)
				}
			}
			if r.LogSpeedup != 0 {
				t.Errorf("the reference's log_speedup is %v, want 0", r.LogSpeedup)
			}
			if other := rows[1]; !slices.Equal(other.Runs, []int64{4_000_000}) || other.LogSpeedup != math.Log(r.TimeNs/4e6) {
				t.Errorf("the other row: runs %v, log_speedup %v; want [4000000], %v", other.Runs, other.LogSpeedup, math.Log(r.TimeNs/4e6))
			}
		})
	}
}

// importOne imports a file in format from of two configurations of one
// parameter bx: bx=1 with entry's times (the reference: the space's first
// configuration) and bx=2 with one run of 4 ms, and returns the rows read
// back with their runs, which the reader checks against the rows, and
// the file's summary.
func importOne(t *testing.T, from, entry string) ([]record.Row, FileSummary) {
	t.Helper()
	dir := t.TempDir()
	in := filepath.Join(dir, "in.json")
	var data string
	switch from {
	case FromKernelTuner:
		data = fmt.Sprintf(`{"device_name": "NVIDIA RTX A4000", "problem_size": [64, 64],
			"tune_params_keys": ["bx"], "tune_params": {"bx": [1, 2]}, "cache": {
			"1": {"bx": 1, %s},
			"2": {"bx": 2, "time": 4, "times": [4]}}}`, entry)
	case FromT4:
		data = fmt.Sprintf(`{"results": [
			{"configuration": {"bx": 1}, "invalidity": "correct", %s},
			{"configuration": {"bx": 2}, "invalidity": "correct", "times": {"runtimes": [4]}}]}`, entry)
	}
	if err := os.WriteFile(in, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	sum, err := Import(t.Context(), Options{From: from, Files: []string{in}, Kernel: "k", Out: dir, Device: "NVIDIA RTX A4000", Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	_, rows, err := record.ReadFileWith(sum.Files[0].Path, record.ReadOptions{Runs: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 {
		t.Fatalf("%d rows, want 2", len(rows))
	}
	return rows, sum.Files[0]
}

// TestImportRunsOfCaches imports the benchmark hub's caches and checks,
// row by row against the cache as read, that every ok row keeps its 32
// runs in order, each within 0.5 ns of the tuner's, and that its median
// moves by at most 0.5 ns from the unrounded runs' (what the rows had
// before runs were kept). It logs the largest moves.
func TestImportRunsOfCaches(t *testing.T) {
	for _, path := range []string{a4000, w6600} {
		t.Run(filepath.Base(path), func(t *testing.T) {
			readTestFile(t, path)
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			res, err := ReadKernelTuner(f)
			f.Close()
			if err != nil {
				t.Fatal(err)
			}
			out := t.TempDir()
			sum, err := Import(t.Context(), Options{From: FromKernelTuner, Files: []string{path}, Kernel: "k", Out: out, Now: fixedNow})
			if err != nil {
				t.Fatal(err)
			}
			_, rows, err := record.ReadFileWith(sum.Files[0].Path, record.ReadOptions{Runs: true})
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != len(res.Measurements) {
				t.Fatalf("%d rows, %d measurements", len(rows), len(res.Measurements))
			}
			var maxRun, maxMedian, maxMin, maxCV float64
			for i, m := range res.Measurements {
				r := rows[i]
				if m.Status != record.StatusOK {
					if r.Runs != nil {
						t.Fatalf("row %d: %s with runs %v", i, r.Status, r.Runs)
					}
					continue
				}
				if len(r.Runs) != 32 || r.Repeats != 32 {
					t.Fatalf("row %d: %d runs, repeats %d; want 32", i, len(r.Runs), r.Repeats)
				}
				ns := make([]float64, len(m.TimesMs))
				for j, ms := range m.TimesMs {
					ns[j] = ms * 1e6
					maxRun = max(maxRun, math.Abs(float64(r.Runs[j])-ns[j]))
				}
				median, minimum, cv := record.Summarize(ns)
				maxMedian = max(maxMedian, math.Abs(r.TimeNs-median))
				maxMin = max(maxMin, math.Abs(r.TimeMinNs-minimum))
				maxCV = max(maxCV, math.Abs(r.TimeCV-cv))
			}
			t.Logf("largest moves: run %.3f ns, median %.3f ns, minimum %.3f ns, cv %.2g", maxRun, maxMedian, maxMin, maxCV)
			if maxRun > 0.5 || maxMedian > 0.5 || maxMin > 0.5 || maxCV > 1e-6 {
				t.Errorf("rounding moved a run by %v ns, a median by %v, a minimum by %v, a cv by %v; want <= 0.5 ns, 1e-6", maxRun, maxMedian, maxMin, maxCV)
			}
		})
	}
}
