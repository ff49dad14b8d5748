package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
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
