package record

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/apache/arrow/go/v15/arrow/ipc"
	"github.com/apache/arrow/go/v15/arrow/memory"
)

// DefaultBatchRows is the number of rows of one record batch of a finished
// file when WriterOptions.BatchRows is 0.
const DefaultBatchRows = 1024

// File name suffixes of a file being written. A Writer appends rows to
// path+partialSuffix; Close rewrites them into path+compactSuffix, which is
// then renamed to path.
const (
	partialSuffix = ".partial"
	compactSuffix = ".compact"
)

// Compression is the codec of the record batches of a finished file.
type Compression string

const (
	// CompressionZstd is Zstandard, the default: datasets are mostly
	// repeated integers and compress several-fold, and pyarrow, polars and
	// DuckDB read compressed IPC files as they read plain ones.
	CompressionZstd Compression = "zstd"
	// CompressionNone writes plain buffers, for readers without codecs
	// (Arrow JS 17 reads no compressed batches).
	CompressionNone Compression = "none"
)

// ParseCompression parses "zstd" or "none"; "" means zstd.
func ParseCompression(s string) (Compression, error) {
	switch Compression(s) {
	case "", CompressionZstd:
		return CompressionZstd, nil
	case CompressionNone:
		return CompressionNone, nil
	}
	return "", fmt.Errorf("record: compression must be zstd or none, got %q", s)
}

// WriterOptions configure a Writer. The zero value of every field means the
// documented default.
type WriterOptions struct {
	// BatchRows is the number of rows of one record batch of the finished
	// file; 0 means DefaultBatchRows.
	BatchRows int
	// Compression is the codec of the finished file's batches; "" means
	// zstd.
	Compression Compression
	// FlushRows is how many rows the Writer buffers in memory before it
	// appends them to the partial file, where Recover finds them if the
	// process dies; 0 means BatchRows. 1 puts every row on disk as soon as
	// it is written, so that a killed process loses none of them.
	FlushRows int
}

// resolve checks o and fills in the defaults.
func (o WriterOptions) resolve() (WriterOptions, error) {
	switch {
	case o.BatchRows < 0:
		return o, fmt.Errorf("record: BatchRows must be >= 0, got %d", o.BatchRows)
	case o.FlushRows < 0:
		return o, fmt.Errorf("record: FlushRows must be >= 0, got %d", o.FlushRows)
	}
	if o.BatchRows == 0 {
		o.BatchRows = DefaultBatchRows
	}
	if o.FlushRows == 0 {
		o.FlushRows = o.BatchRows
	}
	c, err := ParseCompression(string(o.Compression))
	if err != nil {
		return o, err
	}
	o.Compression = c
	return o, nil
}

// ipcOptions are the Arrow writer options of a finished file.
func (o WriterOptions) ipcOptions() []ipc.Option {
	if o.Compression == CompressionNone {
		return nil
	}
	return []ipc.Option{ipc.WithZstd()}
}

// Writer appends rows to a dataset file. It is not safe for concurrent use.
//
// Rows go to path+".partial", an Arrow IPC stream of uncompressed record
// batches of FlushRows rows each, written through as they fill: a stream
// needs no footer, so whatever reached the partial file can be read back
// after a crash (Recover). Close rewrites the stream into the random-access
// file format with batches of BatchRows rows and moves it to path.
type Writer struct {
	path   string
	meta   Meta
	opt    WriterOptions
	mem    memory.Allocator
	file   *os.File // the partial file, locked while the Writer lives
	buf    *bufio.Writer
	sw     *ipc.Writer
	b      *builder
	n      int // rows buffered in b
	closed bool
}

// NewWriter creates the dataset file path with batches of batchRows rows
// (0 means DefaultBatchRows), compressed with Zstandard. It is Create with
// WriterOptions{BatchRows: batchRows}.
func NewWriter(path string, meta Meta, batchRows int) (*Writer, error) {
	return newWriter(path, meta, WriterOptions{BatchRows: batchRows}, nil)
}

// Create creates the dataset file path for rows described by meta. It
// writes to path+".partial" and moves the finished file to path on Close.
// It refuses to overwrite an existing path, or a partial file another
// live Writer holds. Memory use stays at about one batch however many rows
// are written.
func Create(path string, meta Meta, opt WriterOptions) (*Writer, error) {
	return newWriter(path, meta, opt, nil)
}

// newWriter is Create with an Arrow allocator (nil means the Go allocator),
// so that tests can check that every buffer is released.
func newWriter(path string, meta Meta, opt WriterOptions, mem memory.Allocator) (*Writer, error) {
	opt, err := opt.resolve()
	if err != nil {
		return nil, err
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
	f, err := os.OpenFile(path+partialSuffix, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("record: %w", err)
	}
	// The lock tells Recover, in this process or another, that the partial
	// file is alive. The kernel drops it when the process dies, however it
	// dies.
	if err := lockFile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("record: %s%s is being written by another process: %w", path, partialSuffix, err)
	}
	// A leftover partial file of the same name is the remains of a killed
	// writer that Recover did not see; it is replaced.
	if err := f.Truncate(0); err != nil {
		f.Close()
		return nil, fmt.Errorf("record: %w", err)
	}
	buf := bufio.NewWriterSize(f, 64<<10)
	w := &Writer{path: path, meta: meta, opt: opt, mem: mem, file: f, buf: buf,
		sw: ipc.NewWriter(buf, ipc.WithSchema(sc), ipc.WithAllocator(mem)),
		b:  newBuilder(mem, sc, meta)}
	return w, nil
}

// Write buffers r and appends the buffered rows to the partial file when
// FlushRows of them are buffered. r's task and configuration must have one
// value per task name and parameter of the Meta, and its values must pass
// the checks ReadFile makes (ErrInvalidRow). LogSpeedup is written as null
// unless r is ok and LogSpeedup is a number.
func (w *Writer) Write(r Row) error {
	if w.closed {
		return fmt.Errorf("record: write to closed writer %s", w.path)
	}
	if len(r.Task) != len(w.meta.TaskNames) {
		return fmt.Errorf("record: row task has %d values, want %d (%v)", len(r.Task), len(w.meta.TaskNames), w.meta.TaskNames)
	}
	if len(r.Config) != len(w.meta.Params) {
		return fmt.Errorf("record: row configuration has %d values, want %d", len(r.Config), len(w.meta.Params))
	}
	if err := checkRow(r, w.meta.Params); err != nil {
		return fmt.Errorf("record: %w", err)
	}
	w.b.append(r)
	w.n++
	if w.n >= w.opt.FlushRows {
		return w.Flush()
	}
	return nil
}

// Flush appends the buffered rows to the partial file now, as one record
// batch, so that they survive the death of the process.
func (w *Writer) Flush() error {
	if w.n == 0 || w.closed {
		return nil
	}
	rec := w.b.record()
	defer rec.Release()
	w.n = 0
	if err := w.sw.Write(rec); err != nil {
		return fmt.Errorf("record: write %s%s: %w", w.path, partialSuffix, err)
	}
	if err := w.buf.Flush(); err != nil {
		return fmt.Errorf("record: write %s%s: %w", w.path, partialSuffix, err)
	}
	return nil
}

// Close writes the buffered rows, rewrites the partial file into the
// finished file and moves it to path. On failure the partial file stays,
// with every row written, for Recover. Close refuses, and keeps the partial
// file, when another file appeared at path meanwhile.
func (w *Writer) Close() error {
	if w.closed {
		return nil
	}
	err := w.Flush()
	w.closed = true
	w.b.release()
	// Closing the stream writes the schema too when no row came, so that
	// an empty run still makes a readable file.
	if cerr := w.sw.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("record: close %s%s: %w", w.path, partialSuffix, cerr)
	}
	if ferr := w.buf.Flush(); err == nil && ferr != nil {
		err = fmt.Errorf("record: %w", ferr)
	}
	if serr := w.file.Sync(); err == nil && serr != nil {
		err = fmt.Errorf("record: %w", serr)
	}
	if err == nil {
		// The partial file stays open, and locked, until it is gone.
		_, err = finish(w.path+partialSuffix, w.path, w.opt, w.mem)
	}
	if cerr := w.file.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("record: %w", cerr)
	}
	return err
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
