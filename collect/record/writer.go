package record

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"

	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/ipc"
	"github.com/apache/arrow/go/v15/arrow/memory"
)

// DefaultBatchRows is the number of rows a Writer buffers before it writes
// one record batch when NewWriter is given 0.
const DefaultBatchRows = 1024

// partialSuffix marks a file that is still being written.
const partialSuffix = ".partial"

// Writer appends rows to a dataset file. It is not safe for concurrent use.
type Writer struct {
	path      string
	meta      Meta
	batchRows int
	file      *os.File
	fw        *ipc.FileWriter
	rb        *array.RecordBuilder
	n         int // rows buffered in rb
	closed    bool

	tasks  []*array.Int64Builder
	params []*array.Int64Builder
	status *array.StringBuilder
	timeNs, timeMinNs, timeCV,
	refTimeNs, logSpeedup, compileMs *array.Float64Builder
	repeats *array.Int64Builder
	errs    *array.StringBuilder
}

// NewWriter creates the dataset file path for rows described by meta. It
// writes to path+".partial" and renames it to path on Close. It refuses to
// overwrite an existing path. batchRows is the number of rows of one record
// batch; 0 means DefaultBatchRows. Memory use stays at about one batch
// however many rows are written.
func NewWriter(path string, meta Meta, batchRows int) (*Writer, error) {
	return newWriter(path, meta, batchRows, nil)
}

// newWriter is NewWriter with an Arrow allocator (nil means the Go
// allocator), so that tests can check that every buffer is released.
func newWriter(path string, meta Meta, batchRows int, mem memory.Allocator) (*Writer, error) {
	if batchRows < 0 {
		return nil, fmt.Errorf("record: batchRows must be >= 0, got %d", batchRows)
	}
	if batchRows == 0 {
		batchRows = DefaultBatchRows
	}
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	sc, err := schema(meta)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(path); err == nil {
		return nil, fmt.Errorf("record: %s: %w", path, fs.ErrExist)
	}
	// A leftover partial file is the remains of a crashed run: nothing can
	// read it, so it is replaced.
	f, err := os.OpenFile(path+partialSuffix, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, fmt.Errorf("record: %w", err)
	}
	// Zstandard-compressed record batches: datasets are mostly repeated
	// integers and compress several-fold, and pyarrow, polars and DuckDB
	// read compressed IPC files as they read plain ones.
	fw, err := ipc.NewFileWriter(f, ipc.WithSchema(sc), ipc.WithAllocator(mem), ipc.WithZstd())
	if err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, fmt.Errorf("record: %w", err)
	}
	w := &Writer{path: path, meta: meta, batchRows: batchRows, file: f, fw: fw,
		rb: array.NewRecordBuilder(mem, sc)}
	i := 0
	next := func() array.Builder { i++; return w.rb.Field(i - 1) }
	for range meta.TaskNames {
		w.tasks = append(w.tasks, next().(*array.Int64Builder))
	}
	for range meta.Params {
		w.params = append(w.params, next().(*array.Int64Builder))
	}
	w.status = next().(*array.StringBuilder)
	w.timeNs = next().(*array.Float64Builder)
	w.timeMinNs = next().(*array.Float64Builder)
	w.timeCV = next().(*array.Float64Builder)
	w.repeats = next().(*array.Int64Builder)
	w.refTimeNs = next().(*array.Float64Builder)
	w.logSpeedup = next().(*array.Float64Builder)
	w.compileMs = next().(*array.Float64Builder)
	w.errs = next().(*array.StringBuilder)
	return w, nil
}

// Write buffers r and writes a record batch when batchRows rows are
// buffered. r's task and configuration must have one value per task name and
// parameter of the Meta. LogSpeedup is written as null unless r is ok and
// LogSpeedup is a number.
func (w *Writer) Write(r Row) error {
	if w.closed {
		return fmt.Errorf("record: write to closed writer %s", w.path)
	}
	if len(r.Task) != len(w.tasks) {
		return fmt.Errorf("record: row task has %d values, want %d (%v)", len(r.Task), len(w.tasks), w.meta.TaskNames)
	}
	if len(r.Config) != len(w.params) {
		return fmt.Errorf("record: row configuration has %d values, want %d", len(r.Config), len(w.params))
	}
	for i, v := range r.Task {
		w.tasks[i].Append(int64(v))
	}
	for i, v := range r.Config {
		w.params[i].Append(int64(v))
	}
	w.status.Append(string(r.Status))
	w.timeNs.Append(r.TimeNs)
	w.timeMinNs.Append(r.TimeMinNs)
	w.timeCV.Append(r.TimeCV)
	w.repeats.Append(int64(r.Repeats))
	w.refTimeNs.Append(r.RefTimeNs)
	if r.Status == StatusOK && !math.IsNaN(r.LogSpeedup) {
		w.logSpeedup.Append(r.LogSpeedup)
	} else {
		w.logSpeedup.AppendNull()
	}
	w.compileMs.Append(r.CompileMs)
	w.errs.Append(r.Error)
	w.n++
	if w.n >= w.batchRows {
		return w.flush()
	}
	return nil
}

// flush writes the buffered rows as one record batch.
func (w *Writer) flush() error {
	if w.n == 0 {
		return nil
	}
	rec := w.rb.NewRecord()
	defer rec.Release()
	w.n = 0
	if err := w.fw.Write(rec); err != nil {
		return fmt.Errorf("record: write %s: %w", w.path, err)
	}
	return nil
}

// Close writes the buffered rows and the file footer, and moves the file to
// its final path. It refuses, and keeps the partial file, when another file
// appeared at the path meanwhile.
func (w *Writer) Close() error {
	if w.closed {
		return nil
	}
	w.closed = true
	defer w.rb.Release()
	err := w.flush()
	if cerr := w.fw.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("record: close %s: %w", w.path, cerr)
	}
	if serr := w.file.Sync(); err == nil && serr != nil {
		err = fmt.Errorf("record: %w", serr)
	}
	if cerr := w.file.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("record: %w", cerr)
	}
	if err != nil {
		return err
	}
	return publish(w.path+partialSuffix, w.path)
}

// publish moves partial to path without overwriting path. A hard link fails
// when path exists, atomically; where the file system has no hard links it
// falls back to a check and a rename.
func publish(partial, path string) error {
	err := os.Link(partial, path)
	switch {
	case err == nil:
		if err := os.Remove(partial); err != nil {
			return fmt.Errorf("record: %w", err)
		}
		return nil
	case errors.Is(err, fs.ErrExist):
		return fmt.Errorf("record: %s: %w (data left in %s)", path, fs.ErrExist, partial)
	}
	if _, serr := os.Stat(path); serr == nil {
		return fmt.Errorf("record: %s: %w (data left in %s)", path, fs.ErrExist, partial)
	}
	if err := os.Rename(partial, path); err != nil {
		return fmt.Errorf("record: %w", err)
	}
	return nil
}
