package record

import (
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/ipc"
	"github.com/apache/arrow/go/v15/arrow/memory"

	"github.com/augur-tuning/augur/features"
)

// File is one dataset file read whole.
type File struct {
	Path string
	Meta Meta
	Rows []Row
}

// ReadFile reads a dataset file. Null log_speedup values come back as NaN.
func ReadFile(path string) (Meta, []Row, error) {
	return readFile(path, nil)
}

// ReadDir reads every *.arrow file under dir, recursively, sorted by path.
// Files still being written (*.arrow.partial) are skipped.
func ReadDir(dir string) ([]File, error) {
	var paths []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".arrow") {
			paths = append(paths, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("record: %w", err)
	}
	sort.Strings(paths)
	files := make([]File, 0, len(paths))
	for _, p := range paths {
		meta, rows, err := ReadFile(p)
		if err != nil {
			return nil, err
		}
		files = append(files, File{Path: p, Meta: meta, Rows: rows})
	}
	return files, nil
}

// readFile is ReadFile with an Arrow allocator (nil means the Go allocator).
func readFile(path string, mem memory.Allocator) (Meta, []Row, error) {
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	f, err := os.Open(path)
	if err != nil {
		return Meta{}, nil, fmt.Errorf("record: %w", err)
	}
	defer f.Close()
	fr, err := ipc.NewFileReader(f, ipc.WithAllocator(mem))
	if err != nil {
		return Meta{}, nil, fmt.Errorf("record: %s: %w", path, err)
	}
	defer fr.Close()
	sc := fr.Schema()
	meta, err := decodeMeta(sc.Metadata())
	if err != nil {
		return Meta{}, nil, fmt.Errorf("record: %s: %w", path, err)
	}
	cols, err := columnsOf(sc, meta)
	if err != nil {
		return Meta{}, nil, fmt.Errorf("record: %s: %w", path, err)
	}
	var rows []Row
	for i := 0; i < fr.NumRecords(); i++ {
		rec, err := fr.RecordAt(i)
		if err != nil {
			return Meta{}, nil, fmt.Errorf("record: %s: batch %d: %w", path, i, err)
		}
		rows, err = appendRows(rows, rec, cols, len(meta.TaskNames), len(meta.Params))
		rec.Release()
		if err != nil {
			return Meta{}, nil, fmt.Errorf("record: %s: batch %d: %w", path, i, err)
		}
	}
	return meta, rows, nil
}

// columnsOf finds each column by name, so that a file rewritten by another
// Arrow tool with its columns in another order still reads. The result
// lists the task columns, the parameter columns, then the fixed columns.
func columnsOf(sc *arrow.Schema, meta Meta) ([]int, error) {
	var names []string
	for _, n := range meta.TaskNames {
		names = append(names, "task."+n)
	}
	for _, p := range meta.Params {
		names = append(names, "param."+p.Name)
	}
	names = append(names, colStatus, colTimeNs, colTimeMinNs, colTimeCV, colRepeats,
		colRefTimeNs, colLogSpeedup, colCompileMs, colError)
	cols := make([]int, len(names))
	for i, n := range names {
		idx := sc.FieldIndices(n)
		if len(idx) != 1 {
			return nil, fmt.Errorf("%w: %d columns named %q, want 1", ErrFormat, len(idx), n)
		}
		cols[i] = idx[0]
	}
	return cols, nil
}

// appendRows converts one record batch to rows. The tasks and
// configurations of a batch share one backing array, to allocate once.
func appendRows(rows []Row, rec arrow.Record, cols []int, nTask, nParam int) ([]Row, error) {
	n := int(rec.NumRows())
	ints := make([]int, n*(nTask+nParam))
	for k := 0; k < nTask+nParam; k++ {
		c, ok := rec.Column(cols[k]).(*array.Int64)
		if !ok {
			return nil, fmt.Errorf("%w: column %s is %s, want int64", ErrFormat, rec.ColumnName(cols[k]), rec.Column(cols[k]).DataType())
		}
		for i := 0; i < n; i++ {
			ints[i*(nTask+nParam)+k] = int(c.Value(i))
		}
	}
	fixed := cols[nTask+nParam:]
	f64 := func(off int) (*array.Float64, error) {
		c, ok := rec.Column(fixed[off]).(*array.Float64)
		if !ok {
			return nil, fmt.Errorf("%w: column %s is %s, want double", ErrFormat, rec.ColumnName(fixed[off]), rec.Column(fixed[off]).DataType())
		}
		return c, nil
	}
	var fc [numFixed]*array.Float64
	for _, off := range []int{offTimeNs, offTimeMinNs, offTimeCV, offRefTimeNs, offLogSpeedup, offCompileMs} {
		c, err := f64(off)
		if err != nil {
			return nil, err
		}
		fc[off] = c
	}
	repeats, ok := rec.Column(fixed[offRepeats]).(*array.Int64)
	if !ok {
		return nil, fmt.Errorf("%w: column %s is %s, want int64", ErrFormat, colRepeats, rec.Column(fixed[offRepeats]).DataType())
	}
	status, err := stringsOf(rec.Column(fixed[offStatus]))
	if err != nil {
		return nil, err
	}
	errs, err := stringsOf(rec.Column(fixed[offError]))
	if err != nil {
		return nil, err
	}
	for i := 0; i < n; i++ {
		base := ints[i*(nTask+nParam) : (i+1)*(nTask+nParam) : (i+1)*(nTask+nParam)]
		r := Row{
			Task:      features.Task(base[:nTask:nTask]),
			Config:    features.Config(base[nTask:]),
			Status:    internStatus(status(i)),
			TimeNs:    fc[offTimeNs].Value(i),
			TimeMinNs: fc[offTimeMinNs].Value(i),
			TimeCV:    fc[offTimeCV].Value(i),
			Repeats:   int(repeats.Value(i)),
			RefTimeNs: fc[offRefTimeNs].Value(i),
			CompileMs: fc[offCompileMs].Value(i),
			Error:     strings.Clone(errs(i)),
		}
		if fc[offLogSpeedup].IsNull(i) {
			r.LogSpeedup = math.NaN()
		} else {
			r.LogSpeedup = fc[offLogSpeedup].Value(i)
		}
		rows = append(rows, r)
	}
	return rows, nil
}

// stringsOf returns an accessor for a string column, plain or dictionary
// encoded (as pandas and polars often write categorical columns). The
// strings point into Arrow buffers that are released after the batch is
// read: callers copy them.
func stringsOf(a arrow.Array) (func(int) string, error) {
	switch c := a.(type) {
	case *array.String:
		return func(i int) string {
			if c.IsNull(i) {
				return ""
			}
			return c.Value(i)
		}, nil
	case *array.LargeString:
		return func(i int) string {
			if c.IsNull(i) {
				return ""
			}
			return c.Value(i)
		}, nil
	case *array.Dictionary:
		d, ok := c.Dictionary().(*array.String)
		if !ok {
			break
		}
		return func(i int) string {
			if c.IsNull(i) {
				return ""
			}
			return d.Value(c.GetValueIndex(i))
		}, nil
	}
	return nil, fmt.Errorf("%w: column is %s, want a string", ErrFormat, a.DataType())
}

// internStatus returns the constant for a known status, so that reading a
// million rows does not allocate a million copies of "ok".
func internStatus(s string) Status {
	for _, k := range []Status{StatusOK, StatusCompileError, StatusLaunchError,
		StatusResourceLimit, StatusVerifyError, StatusTimeout, StatusPruned} {
		if string(k) == s {
			return k
		}
	}
	return Status(strings.Clone(s))
}
