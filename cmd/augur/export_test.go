package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/augur-tuning/augur/collect/record"
	"github.com/augur-tuning/augur/features"
)

// TestExport exports the recorded PoCL data both ways and checks that each
// measured row's target is ln(ref_time/time), and that a second export to
// the same file is refused.
func TestExport(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		invalid  string
		wantRows int // measured rows plus, under zeta, the pruned ones
	}{
		{"ignore", 735},
		{"zeta", 755},
	}
	for _, tt := range tests {
		t.Run(tt.invalid, func(t *testing.T) {
			out := filepath.Join(dir, tt.invalid+".csv")
			args := []string{"export", "--data", "../../testdata/data", "--kernel", "conv2d", "--csv", out, "--invalid", tt.invalid}
			var stdout, stderr bytes.Buffer
			if err := run(context.Background(), args, &stdout, &stderr); err != nil {
				t.Fatalf("%v\n%s", err, stderr.String())
			}
			f, err := os.Open(out)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			rows, err := csv.NewReader(f).ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			if got := len(rows) - 1; got != tt.wantRows {
				t.Errorf("%d rows, want %d", got, tt.wantRows)
			}
			col := map[string]int{}
			for i, name := range rows[0] {
				col[name] = i
			}
			for _, name := range []string{"task.width", "log_speedup", "time_ns", "ref_time_ns", "platform", "shape", "config"} {
				if _, ok := col[name]; !ok {
					t.Fatalf("header %v lacks %s", rows[0], name)
				}
			}
			measured := 0
			for i, r := range rows[1:] {
				if r[col["time_ns"]] == "" {
					continue
				}
				measured++
				y, _ := strconv.ParseFloat(r[col["log_speedup"]], 64)
				tm, _ := strconv.ParseFloat(r[col["time_ns"]], 64)
				ref, _ := strconv.ParseFloat(r[col["ref_time_ns"]], 64)
				if want := math.Log(ref / tm); math.Abs(y-want) > 1e-9 {
					t.Fatalf("row %d: log_speedup %v, want ln(%v/%v) = %v", i, y, ref, tm, want)
				}
				if !strings.HasPrefix(r[col["shape"]], "width=") || r[col["platform"]] != "pocl-cpu-pthread-skylake-avx512-amd-epyc" {
					t.Fatalf("row %d: shape %q platform %q", i, r[col["shape"]], r[col["platform"]])
				}
			}
			if measured != 735 {
				t.Errorf("%d measured rows, want 735", measured)
			}
			err = run(context.Background(), args, &stdout, &stderr)
			if err == nil || !strings.Contains(err.Error(), "exists") {
				t.Errorf("second export: error %v, want one saying %s exists", err, out)
			}
		})
	}
}

func TestExportErrors(t *testing.T) {
	dir := t.TempDir()
	existing := filepath.Join(dir, "there.csv")
	if err := os.WriteFile(existing, []byte("keep me"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"export", "--kernel", "conv2d", "--csv", filepath.Join(dir, "a.csv")}, "--data is required"},
		{[]string{"export", "--data", "../../testdata/data", "--kernel", "conv2d"}, "--csv is required"},
		{[]string{"export", "--data", "../../testdata/data", "--kernel", "conv2d", "--csv", filepath.Join(dir, "b.csv"), "--invalid", "drop"}, "--invalid must be"},
		{[]string{"export", "--data", "../../testdata/data", "--kernel", "conv2d", "--csv", existing}, "exists"},
		{[]string{"export", "--data", dir, "--kernel", "conv2d", "--csv", filepath.Join(dir, "c.csv")}, "no dataset files"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			var out, errOut bytes.Buffer
			err := run(context.Background(), tt.args, &out, &errOut)
			if err == nil || !strings.HasPrefix(err.Error(), "export: ") || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one starting with export: and mentioning %q", err, tt.want)
			}
		})
	}
	if got, _ := os.ReadFile(existing); string(got) != "keep me" {
		t.Errorf("existing file now holds %q, want it untouched", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "c.csv")); err == nil {
		t.Errorf("a failed export left c.csv behind")
	}
}

// toyMeta is the metadata of the small files TestExportRows writes: a
// kernel augur does not know, so that its shapes are not checked against
// a task space.
func toyMeta() record.Meta {
	return record.Meta{Kernel: "toy", TaskNames: []string{"n"}, Params: []features.Param{{Name: "p", Values: []int{1, 2, 3}}},
		Platform: features.Platform{Name: "dev", Type: "cpu"}, Source: "collect"}
}

// writeToy writes rows to dir/toy/dev/name with the record package.
func writeToy(t testing.TB, dir, name string, rows []record.Row) {
	t.Helper()
	sub := filepath.Join(dir, "toy", "dev")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	w, err := record.Create(filepath.Join(sub, name), toyMeta(), record.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// readCSV reads the CSV file at path whole.
func readCSV(t testing.TB, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// TestExportRows exports rows as recorded: a file's kept runs as one
// ';'-separated field in the order they ran, empty where a row keeps none
// (a failed row, a file written before the runs were kept), every status,
// and errors that hold commas, quotes and newlines as one field.
func TestExportRows(t *testing.T) {
	dir := t.TempDir()
	writeToy(t, dir, "a.arrow", []record.Row{
		{Task: features.Task{64}, Config: features.Config{1}, Status: record.StatusOK, TimeNs: 1002, TimeMinNs: 998,
			TimeCV: 0.0017, Repeats: 3, RefTimeNs: 1002, LogSpeedup: 0, CompileMs: 210.5, Runs: []int64{1002, 998, 1003}},
		{Task: features.Task{64}, Config: features.Config{2}, Status: record.StatusOK, TimeNs: 1500, TimeMinNs: 1500,
			Repeats: 5, RefTimeNs: 1002, LogSpeedup: math.Log(1002.0 / 1500)},
		{Task: features.Task{64}, Config: features.Config{3}, Status: record.StatusCompileError, LogSpeedup: math.NaN(),
			Error: "error: \"x\", undeclared\nline 2"},
	})
	tests := []struct {
		name, data, kernel string
		rows               int
		check              func(t *testing.T, col map[string]int, recs [][]string)
	}{
		{"kept runs", dir, "toy", 3, func(t *testing.T, col map[string]int, recs [][]string) {
			want := []struct{ status, runs, ls, err string }{
				{"ok", "1002;998;1003", "0", ""},
				{"ok", "", strconv.FormatFloat(math.Log(1002.0/1500), 'f', -1, 64), ""},
				{"compile_error", "", "", "error: \"x\", undeclared\nline 2"},
			}
			for i, w := range want {
				r := recs[i+1]
				if r[col["status"]] != w.status || r[col["times_ns"]] != w.runs || r[col["log_speedup"]] != w.ls || r[col["error"]] != w.err {
					t.Errorf("row %d: status %q times_ns %q log_speedup %q error %q, want %+v", i, r[col["status"]],
						r[col["times_ns"]], r[col["log_speedup"]], r[col["error"]], w)
				}
			}
			if r := recs[1]; r[col["file"]] != "toy/dev/a.arrow" || r[col["platform"]] != "dev" || r[col["task.n"]] != "64" ||
				r[col["time_ns"]] != "1002" || r[col["time_cv"]] != "0.0017" || r[col["compile_ms"]] != "210.5" {
				t.Errorf("first row %q", r)
			}
		}},
		// The shipped PoCL file predates the kept runs: every field empty.
		{"a file without runs", "../../testdata/data", "conv2d", 755, func(t *testing.T, col map[string]int, recs [][]string) {
			statuses := map[string]int{}
			for i, r := range recs[1:] {
				statuses[r[col["status"]]]++
				if r[col["times_ns"]] != "" {
					t.Fatalf("row %d: times_ns %q, want empty", i, r[col["times_ns"]])
				}
			}
			if statuses["ok"] != 735 || statuses["pruned"] != 20 {
				t.Errorf("statuses %v, want 735 ok and 20 pruned", statuses)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "rows.csv")
			var stdout, stderr bytes.Buffer
			if err := run(context.Background(), []string{"export", "--data", tt.data, "--kernel", tt.kernel, "--csv", out, "--rows"}, &stdout, &stderr); err != nil {
				t.Fatalf("%v\n%s", err, stderr.String())
			}
			recs := readCSV(t, out)
			if len(recs)-1 != tt.rows {
				t.Fatalf("%d rows, want %d", len(recs)-1, tt.rows)
			}
			col := map[string]int{}
			for i, name := range recs[0] {
				col[name] = i
			}
			if recs[0][len(recs[0])-1] != "times_ns" || recs[0][0] != "file" {
				t.Fatalf("header %v, want file first and times_ns last", recs[0])
			}
			tt.check(t, col, recs)
		})
	}
}

func TestExportRowsErrors(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--target", "Xwg"}, "takes no --target"},
		{[]string{"--invalid", "zeta"}, "takes no --invalid"},
		{[]string{"--data", dir}, "no dataset files"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			out := filepath.Join(dir, "rows.csv")
			args := append([]string{"export", "--data", "../../testdata/data", "--kernel", "conv2d", "--csv", out, "--rows"}, tt.args...)
			err := run(context.Background(), args, io.Discard, io.Discard)
			if err == nil || !strings.HasPrefix(err.Error(), "export: ") || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one starting with export: and mentioning %q", err, tt.want)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("a failed export left %s behind", out)
			}
		})
	}
}
