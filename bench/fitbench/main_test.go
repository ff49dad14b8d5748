package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestRun fits on a step in one feature with two splits and checks that
// exactly the masked rows are predicted, and predicted well.
func TestRun(t *testing.T) {
	dir := t.TempDir()
	var data, splits strings.Builder
	data.WriteString("param.wg,log_speedup,time_ns,ref_time_ns,platform,shape,config\n")
	const n = 200
	for i := range n {
		wg := 1 << (i % 7)
		y := 0.0
		if wg >= 16 {
			y = 1
		}
		fmt.Fprintf(&data, "%d,%g,1,1,p,\"n=1\",\"wg=%d\"\n", wg, y, wg)
		// Split 0 fits on even rows and predicts odd ones; split 1 fits
		// and predicts every row but the first.
		if i%2 == 0 {
			splits.WriteString("1,")
		} else {
			splits.WriteString("2,")
		}
		if i == 0 {
			splits.WriteString("0\n")
		} else {
			splits.WriteString("3\n")
		}
	}
	dataPath, splitPath, outPath := filepath.Join(dir, "d.csv"), filepath.Join(dir, "s.csv"), filepath.Join(dir, "p.csv")
	for path, text := range map[string]string{dataPath: data.String(), splitPath: splits.String()} {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, model := range []string{"gbrt", "rf"} {
		t.Run(model, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			args := []string{"--csv", dataPath, "--splits", splitPath, "--out", outPath, "--model", model}
			if err := run(args, &stdout, &stderr); err != nil {
				t.Fatalf("%v\n%s", err, stderr.String())
			}
			if got, want := strings.Count(stdout.String(), "fit_s"), 2; got != want {
				t.Errorf("stdout has %d split lines, want %d:\n%s", got, want, stdout.String())
			}
			text, err := os.ReadFile(outPath)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSuffix(string(text), "\n"), "\n")
			if len(lines) != n {
				t.Fatalf("%d prediction lines, want %d", len(lines), n)
			}
			for i, line := range lines {
				cells := strings.Split(line, ",")
				for k, want := range []bool{i%2 == 1, i != 0} {
					if got := cells[k] != ""; got != want {
						t.Fatalf("row %d split %d: predicted %v, want %v", i, k, got, want)
					}
					if !want {
						continue
					}
					p, err := strconv.ParseFloat(cells[k], 64)
					truth := 0.0
					if 1<<(i%7) >= 16 {
						truth = 1
					}
					if err != nil || p < truth-0.2 || p > truth+0.2 {
						t.Fatalf("row %d split %d: prediction %q, want near %v", i, k, cells[k], truth)
					}
				}
			}
		})
	}
}

func TestRunErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--csv", "x"}, "required"},
		{[]string{"--csv", "x", "--splits", "y", "--out", "z", "--model", "svm"}, "--model"},
		{[]string{"--csv", "x", "--splits", "y", "--out", "z", "--model", "rf", "--lr", "0.2"}, "--lr"},
		{[]string{"--csv", "x", "--splits", "y", "--out", "z", "--threads", "-1"}, "--threads"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if err := run(tt.args, &stdout, &stderr); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("run(%q) error = %v, want one mentioning %s", tt.args, err, tt.want)
			}
		})
	}
}
