package importer

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/augur-tuning/augur/collect/record"
	"github.com/augur-tuning/augur/features"
)

// fixedRows is a dataset's rows function over rows in memory.
func fixedRows(rows []record.Row) func(func(record.Row) error) error {
	return func(emit func(record.Row) error) error {
		for _, r := range rows {
			if err := emit(r); err != nil {
				return err
			}
		}
		return nil
	}
}

// TestWriteAllPublishesNothingOnError writes two datasets, the second with
// a row the writer refuses half way: neither is published, nothing is left
// in the directory, and a retry with good rows publishes both.
func TestWriteAllPublishesNothingOnError(t *testing.T) {
	out := t.TempDir()
	meta := record.Meta{Kernel: "k", KernelVersion: "v1", TaskNames: []string{"n"},
		Params: []features.Param{{Name: "a", Values: []int{1, 2, 3}}}, Reference: features.Config{1}, Source: "import:test"}
	rows := func(bad bool) []record.Row {
		var rs []record.Row
		for i := range 3 {
			r := record.Row{Task: features.Task{64}, Config: features.Config{i + 1}, Status: record.StatusOK,
				TimeNs: float64(100 * (i + 1)), TimeMinNs: float64(100 * (i + 1)), Repeats: 1, RefTimeNs: 100}
			r.LogSpeedup = math.Log(r.RefTimeNs / r.TimeNs)
			if bad && i == 2 {
				r.TimeNs = -1
			}
			rs = append(rs, r)
		}
		return rs
	}
	sets := func(bad bool) []*dataset {
		var ds []*dataset
		for i, b := range []bool{false, bad} {
			p := filepath.Join(out, "k", "dev", fmt.Sprintf("import-%d.arrow", i))
			ds = append(ds, &dataset{path: p, meta: meta, rows: fixedRows(rows(b)), sum: FileSummary{Input: fmt.Sprint(i), Path: p, Counts: map[record.Status]int{record.StatusOK: 3}}})
		}
		return ds
	}
	_, err := writeAll(t.Context(), sets(true), record.WriterOptions{})
	if !errors.Is(err, record.ErrInvalidRow) || !strings.Contains(err.Error(), "row 3 of 3") {
		t.Fatalf("err = %v, want the invalid row named", err)
	}
	left, _ := filepath.Glob(filepath.Join(out, "k", "dev", "*"))
	hidden, _ := filepath.Glob(filepath.Join(out, "k", "dev", ".*"))
	if len(left)+len(hidden) > 0 {
		t.Fatalf("files left after a failed import: %v %v", left, hidden)
	}
	sum, err := writeAll(t.Context(), sets(false), record.WriterOptions{})
	if err != nil {
		t.Fatalf("retry: %v", err)
	}
	for _, f := range sum.Files {
		_, got, err := record.ReadFile(f.Path)
		if err != nil || len(got) != 3 {
			t.Fatalf("%s: %d rows, %v", f.Path, len(got), err)
		}
	}
	if _, err := writeAll(t.Context(), sets(false), record.WriterOptions{}); !errors.Is(err, os.ErrExist) {
		t.Errorf("second import over the first: %v, want ErrExist", err)
	}
}

// TestDeclaredValueLimits refuses a cache and a spec declaring more values
// than features.MaxParamValues, before the space is built.
func TestDeclaredValueLimits(t *testing.T) {
	vals := strings.Repeat("1,", 2_000_000) + "1"
	cache := `{"device_name":"d","kernel_name":"k","problem_size":[64],"tune_params_keys":["a"],"tune_params":{"a":[` + vals + `]},"cache":{}}`
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(cache))
	zw.Close()
	t1 := `{"General":{"BenchmarkName":"k"},"ConfigurationSpace":{"TuningParameters":[{"Name":"a","Type":"int","Values":[` + vals + `],"Default":1}]},"KernelSpecification":{}}`
	tests := []struct {
		name string
		read func() error
		want string
	}{
		// The cache's list is read a value at a time and refused at the
		// limit, without counting the rest.
		{"kerneltuner", func() error { _, err := ReadKernelTuner(bytes.NewReader(gz.Bytes())); return err }, "more than 4096 values"},
		{"t1", func() error { _, err := ReadT1(strings.NewReader(t1)); return err }, "2000001 values"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.read(); !errors.Is(err, features.ErrLimit) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want ErrLimit naming %s", err, tt.want)
			}
		})
	}
}
