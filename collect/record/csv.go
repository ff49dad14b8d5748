package record

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// runsSep separates the timed runs in the times_ns field of a CSVWriter:
// not a comma, so that the runs stay one field that spreadsheets and CSV
// readers leave whole (pandas: df.times_ns.str.split(";")).
const runsSep = ";"

// CSVWriter writes the rows of dataset files as CSV, one line a row as
// recorded, every status: the file's name and its platform's slug, then
// the file's columns in their order (task.*, param.*, status, ...,
// error), times_ns last. Numbers are decimal, without an exponent, in the
// fewest digits that read back exactly; log_speedup is empty where null;
// times_ns holds the timed runs in the order they ran joined by runsSep,
// empty where the row keeps none (read the files with ReadOptions.Runs).
// Every file must have the first one's task names and parameters.
type CSVWriter struct {
	w      *csv.Writer
	header []string // nil until the first file
	rec    []string
	rows   int
}

// NewCSVWriter returns a CSVWriter writing to w.
func NewCSVWriter(w io.Writer) *CSVWriter { return &CSVWriter{w: csv.NewWriter(w)} }

// csvHeader is the CSV header of rows of files with meta's columns.
func csvHeader(meta Meta) []string {
	h := []string{"file", "platform"}
	for _, n := range meta.TaskNames {
		h = append(h, "task."+n)
	}
	for _, p := range meta.Params {
		h = append(h, "param."+p.Name)
	}
	return append(h, colStatus, colTimeNs, colTimeMinNs, colTimeCV, colRepeats, colRefTimeNs,
		colLogSpeedup, colCompileMs, colError, colTimesNs)
}

// Write writes the rows of one file, named name in the file column; the
// header goes before the first file's rows. Rows must have meta's number
// of task and parameter values, as ReadFile returns them.
func (c *CSVWriter) Write(name string, meta Meta, rows []Row) error {
	h := csvHeader(meta)
	if c.header == nil {
		c.header = h
		if err := c.w.Write(h); err != nil {
			return fmt.Errorf("record: %w", err)
		}
	} else if !slices.Equal(h, c.header) {
		return fmt.Errorf("record: %s has the columns %v, the files before it %v", name, h[2:], c.header[2:])
	}
	num := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	plat := meta.Platform.Slug()
	for _, r := range rows {
		if len(r.Task) != len(meta.TaskNames) || len(r.Config) != len(meta.Params) {
			return fmt.Errorf("record: %s: a row of %d task and %d parameter values, want %d and %d",
				name, len(r.Task), len(r.Config), len(meta.TaskNames), len(meta.Params))
		}
		c.rec = append(c.rec[:0], name, plat)
		for _, v := range r.Task {
			c.rec = append(c.rec, strconv.Itoa(v))
		}
		for _, v := range r.Config {
			c.rec = append(c.rec, strconv.Itoa(v))
		}
		ls := ""
		if !math.IsNaN(r.LogSpeedup) {
			ls = num(r.LogSpeedup)
		}
		c.rec = append(c.rec, string(r.Status), num(r.TimeNs), num(r.TimeMinNs), num(r.TimeCV),
			strconv.Itoa(r.Repeats), num(r.RefTimeNs), ls, num(r.CompileMs), r.Error, formatRuns(r.Runs))
		if err := c.w.Write(c.rec); err != nil {
			return fmt.Errorf("record: %w", err)
		}
		c.rows++
	}
	return nil
}

// Rows is the number of rows written.
func (c *CSVWriter) Rows() int { return c.rows }

// Flush writes what is buffered and returns the first write error.
func (c *CSVWriter) Flush() error {
	c.w.Flush()
	if err := c.w.Error(); err != nil {
		return fmt.Errorf("record: %w", err)
	}
	return nil
}

// formatRuns joins runs with runsSep; "" for none.
func formatRuns(runs []int64) string {
	var b strings.Builder
	for i, v := range runs {
		if i > 0 {
			b.WriteString(runsSep)
		}
		b.WriteString(strconv.FormatInt(v, 10))
	}
	return b.String()
}

// parseRuns is the inverse of formatRuns: nil for "".
func parseRuns(s string) ([]int64, error) {
	if s == "" {
		return nil, nil
	}
	parts := strings.Split(s, runsSep)
	runs := make([]int64, len(parts))
	for i, p := range parts {
		v, err := strconv.ParseInt(p, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("record: run %d of %q: %w", i, s, err)
		}
		runs[i] = v
	}
	return runs, nil
}

// WriteCSVDir writes every dataset file under dir (Files), one at a time,
// to w through a CSVWriter, each named by its path relative to root, read
// with opt and its runs (ReadOptions.Runs). It returns the rows and files
// written; dir holding no dataset file is an error.
func WriteCSVDir(w io.Writer, root, dir string, opt ReadOptions) (rows, files int, err error) {
	paths, err := Files(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return 0, 0, err
	}
	if len(paths) == 0 {
		return 0, 0, fmt.Errorf("record: no dataset files under %s", dir)
	}
	opt.Runs = true
	c := NewCSVWriter(w)
	for _, p := range paths {
		meta, rs, err := ReadFileWith(p, opt)
		if err != nil {
			return 0, 0, err
		}
		name, rerr := filepath.Rel(root, p)
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
