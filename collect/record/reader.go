package record

import (
	"fmt"
	"io"
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
	// Verified is set when the file carries checksums (every file written
	// since they exist), which matched: its metadata and every batch read
	// back as written, their timed runs too when ReadOptions.Runs read
	// them. Files written before have none, and are read unverified, with
	// the row checks alone.
	Verified bool
}

// ReadFile reads a dataset file. Null log_speedup values come back as NaN.
// A file that does not decode, or holds a row that fails the checks of
// ErrInvalidRow, a configuration outside the space (a value not among its
// parameter's, or a broken constraint on a row that is not pruned), is
// reported as ErrCorrupt with its name, batch and row: never a panic,
// never an absurd value. ReadDirWith also checks the shapes.
func ReadFile(path string) (Meta, []Row, error) {
	return readFile(path, nil)
}

// ReadFileWith is ReadFile with the checks and the columns opt adds.
func ReadFileWith(path string, opt ReadOptions) (Meta, []Row, error) {
	f, err := readWhole(path, nil, opt)
	return f.Meta, f.Rows, err
}

// readFile is ReadFile with an Arrow allocator (nil means the Go allocator).
func readFile(path string, mem memory.Allocator) (Meta, []Row, error) {
	f, err := readWhole(path, mem, ReadOptions{})
	return f.Meta, f.Rows, err
}

// ReadOptions configure ReadDirWith and ReadFileWith. The zero value checks
// the rows against what their files declare and leaves the timed runs
// unread (ReadFile).
type ReadOptions struct {
	// Tasks, when not nil, returns the task space to check a file's
	// shapes against for its metadata, or nil when the kernel is not
	// known (an imported kernel, or another version of the family); a
	// shape outside it makes the file ErrCorrupt, naming batch and row.
	// record does not know the kernel families: callers pass them, as
	// `augur train` and `augur export` pass datasets' (see augur verify).
	Tasks func(meta Meta) TaskChecker
	// Runs reads each row's timed runs (Row.Runs, the times_ns column)
	// where its file keeps them, and checks them against the row and the
	// file's checksum of them. False leaves Row.Runs nil and the column
	// unread: training and most analyses need only the runs' summary
	// (time_ns, time_min_ns, time_cv, repeats), and a row's runs take more
	// memory than the rest of it.
	Runs bool
}

// ReadDir reads every *.arrow file under dir, recursively, sorted by path.
// Files still being written (*.arrow.partial) are skipped. It stops at the
// first file it cannot read.
func ReadDir(dir string) ([]File, error) {
	return ReadDirWith(dir, ReadOptions{})
}

// ReadDirWith is ReadDir with options.
func ReadDirWith(dir string, opt ReadOptions) ([]File, error) {
	paths, err := arrowFiles(dir)
	if err != nil {
		return nil, err
	}
	files := make([]File, 0, len(paths))
	for _, p := range paths {
		f, err := readWhole(p, nil, opt)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	return files, nil
}

// ReadDirSkip is ReadDir for callers that can do without a damaged file:
// it reads every *.arrow file under dir it can, and returns one error for
// each file it could not read, naming the file. err is for dir itself.
func ReadDirSkip(dir string) (files []File, bad []error, err error) {
	paths, err := arrowFiles(dir)
	if err != nil {
		return nil, nil, err
	}
	for _, p := range paths {
		f, err := readWhole(p, nil, ReadOptions{})
		if err != nil {
			bad = append(bad, err)
			continue
		}
		files = append(files, f)
	}
	return files, bad, nil
}

// Files lists the dataset files (*.arrow) under dir, sorted, or dir itself
// when it is one file.
func Files(dir string) ([]string, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("record: %w", err)
	}
	if !st.IsDir() {
		return []string{dir}, nil
	}
	return arrowFiles(dir)
}

// arrowFiles lists the *.arrow files under dir, sorted.
func arrowFiles(dir string) ([]string, error) {
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
	return paths, nil
}

// Allocation bounds of the reader. A corrupted length in a file would
// otherwise have the Arrow reader allocate whatever it says, up to an
// out-of-memory crash that no recover catches. No buffer of a real file
// decompresses to more than maxInflate times the file's size.
const (
	minAllocLimit = 16 << 20
	maxInflate    = 1024
	maxAllocLimit = 4 << 30
)

// cappedAllocator refuses, by panicking (the reader recovers), any single
// allocation above limit bytes.
type cappedAllocator struct {
	memory.Allocator
	limit int
}

func (a cappedAllocator) Allocate(n int) []byte {
	if n < 0 || n > a.limit {
		panic(fmt.Sprintf("buffer of %d bytes, more than the file could hold", n))
	}
	return a.Allocator.Allocate(n)
}

func (a cappedAllocator) Reallocate(n int, b []byte) []byte {
	if n < 0 || n > a.limit {
		panic(fmt.Sprintf("buffer of %d bytes, more than the file could hold", n))
	}
	return a.Allocator.Reallocate(n, b)
}

// capAllocator bounds mem's allocations for a file of size bytes.
func capAllocator(mem memory.Allocator, size int64) memory.Allocator {
	limit := min(max(minAllocLimit, maxInflate*size), maxAllocLimit)
	return cappedAllocator{Allocator: mem, limit: int(limit)}
}

// readWhole reads the dataset file at path, checking its checksums when
// it has them and every row: its values, the space's constraints (but for
// a pruned row) and, when opt.Tasks gives a task space for the file, its
// shape. mem nil means the Go allocator.
func readWhole(path string, mem memory.Allocator, opt ReadOptions) (File, error) {
	var rows []Row
	var chk *rowChecker
	meta, verified, err := scanFile(path, mem, opt.Runs, func(meta *Meta, batch int, got []Row) error {
		if chk == nil {
			var tc TaskChecker
			if opt.Tasks != nil {
				tc = opt.Tasks(*meta)
			}
			var err error
			if chk, err = newRowChecker(meta, tc); err != nil {
				return err
			}
		}
		for i, r := range got {
			if err := chk.check(r); err != nil {
				return fmt.Errorf("%w: row %d: %w", ErrCorrupt, i, err)
			}
		}
		rows = append(rows, got...)
		return nil
	})
	if err != nil {
		return File{Path: path}, err
	}
	return File{Path: path, Meta: meta, Rows: rows, Verified: verified}, nil
}

// scanFile reads the dataset file at path batch by batch: it checks the
// footer and, when the file has them, the checksums of its metadata and of
// each batch, then calls fn with the file's metadata and each batch's rows
// in order, unchecked (checkRow), for fn to keep. With runs, the rows
// carry their timed runs where the file has them, checked against the
// file's checksum of them; without, the runs are neither read nor checked.
// An error from fn is returned prefixed with the file and the batch. mem
// nil means the Go allocator.
func scanFile(path string, mem memory.Allocator, runs bool, fn func(meta *Meta, batch int, rows []Row) error) (meta Meta, verified bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return Meta{}, false, fmt.Errorf("record: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return Meta{}, false, fmt.Errorf("record: %w", err)
	}
	return scan(path, f, st.Size(), mem, runs, fn)
}

// scan is scanFile on the size bytes of f, named path in errors.
func scan(path string, f io.ReaderAt, size int64, mem memory.Allocator, runs bool, fn func(meta *Meta, batch int, rows []Row) error) (meta Meta, verified bool, err error) {
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	sr := io.NewSectionReader(f, 0, size)
	// The Arrow reader trusts the offsets and lengths in the file and
	// panics on bad ones.
	defer func() {
		if p := recover(); p != nil {
			meta, verified, err = Meta{}, false, fmt.Errorf("record: %s: %w: %v", path, ErrCorrupt, p)
		}
	}()
	if err := checkFooterFile(f, size); err != nil {
		return Meta{}, false, fmt.Errorf("record: %s: %w: %w", path, ErrCorrupt, err)
	}
	fr, err := ipc.NewFileReader(sr, ipc.WithAllocator(capAllocator(mem, size)))
	if err != nil {
		return Meta{}, false, fmt.Errorf("record: %s: %w: %w", path, ErrCorrupt, err)
	}
	defer fr.Close()
	hasRuns := len(fr.Schema().FieldIndices(colTimesNs)) > 0
	sums, err := readChecksums(fr.Schema().Metadata(), fr.NumRecords(), hasRuns)
	if err != nil {
		return Meta{}, false, fmt.Errorf("record: %s: %w: %w", path, ErrCorrupt, err)
	}
	d, err := newDecoder(fr.Schema())
	if err != nil {
		return Meta{}, false, fmt.Errorf("record: %s: %w", path, err)
	}
	d.runs = runs
	rh := newRowHasher()
	for i := 0; i < fr.NumRecords(); i++ {
		rec, err := fr.RecordAt(i)
		if err != nil {
			return Meta{}, false, fmt.Errorf("record: %s: batch %d: %w: %w", path, i, ErrCorrupt, err)
		}
		rows, err := d.decode(nil, rec)
		rec.Release()
		if err != nil {
			return Meta{}, false, fmt.Errorf("record: %s: batch %d: %w", path, i, err)
		}
		if sums.present {
			if got := rh.hashBatch(i, rows); got != sums.batches[i] {
				return Meta{}, false, fmt.Errorf("record: %s: batch %d: %w: checksum mismatch: rows hash to %016x, the file says %016x", path, i, ErrCorrupt, got, sums.batches[i])
			}
			if d.runs && d.runsCol >= 0 {
				if got := rh.hashRuns(i, rows); got != sums.runs[i] {
					return Meta{}, false, fmt.Errorf("record: %s: batch %d: %w: checksum mismatch: timed runs hash to %016x, the file says %016x", path, i, ErrCorrupt, got, sums.runs[i])
				}
			}
		}
		if err := fn(&d.meta, i, rows); err != nil {
			return Meta{}, false, fmt.Errorf("record: %s: batch %d: %w", path, i, err)
		}
	}
	return d.meta, sums.present, nil
}

// decoder turns record batches of one schema into rows.
type decoder struct {
	meta Meta
	cols []int
	// runsCol is the times_ns column, -1 when the file has none; runs
	// says whether to read it.
	runsCol int
	runs    bool
}

// newDecoder reads the metadata of sc and finds its columns.
func newDecoder(sc *arrow.Schema) (*decoder, error) {
	// A stream (a partial file) has the metadata checksum alone; the
	// file reader checks both before it gets here.
	if want, ok := sc.Metadata().GetValue(keyMetaHash); ok {
		if err := checkMetaHash(sc.Metadata(), want); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
		}
	}
	meta, err := decodeMeta(sc.Metadata())
	if err != nil {
		return nil, err
	}
	cols, err := columnsOf(sc, meta)
	if err != nil {
		return nil, err
	}
	runsCol := -1
	switch idx := sc.FieldIndices(colTimesNs); len(idx) {
	case 0:
	case 1:
		runsCol = idx[0]
	default:
		return nil, fmt.Errorf("%w: %d columns named %q, want 1 or none", ErrFormat, len(idx), colTimesNs)
	}
	return &decoder{meta: meta, cols: cols, runsCol: runsCol}, nil
}

// appendRows converts rec to rows and checks them.
func (d *decoder) appendRows(rows []Row, rec arrow.Record) ([]Row, error) {
	n := len(rows)
	rows, err := d.decode(rows, rec)
	if err != nil {
		return nil, err
	}
	for i := n; i < len(rows); i++ {
		if err := checkRow(rows[i], d.meta.Params); err != nil {
			return nil, fmt.Errorf("%w: row %d: %w", ErrCorrupt, i-n, err)
		}
	}
	return rows, nil
}

// decode converts rec to rows without checking them.
func (d *decoder) decode(rows []Row, rec arrow.Record) ([]Row, error) {
	n := len(rows)
	rows, err := appendRows(rows, rec, d.cols, len(d.meta.TaskNames), len(d.meta.Params))
	if err != nil || !d.runs || d.runsCol < 0 {
		return rows, err
	}
	return rows, appendRuns(rows[n:], rec, d.runsCol)
}

// appendRuns sets the Runs of rows, one batch's, from its times_ns column
// at col. The runs of a batch share one backing array, to allocate once.
func appendRuns(rows []Row, rec arrow.Record, col int) error {
	c, ok := rec.Column(col).(*array.List)
	if !ok {
		return fmt.Errorf("%w: column %s is %s, want list<int64>", ErrFormat, colTimesNs, rec.Column(col).DataType())
	}
	vals, ok := c.ListValues().(*array.Int64)
	if !ok {
		return fmt.Errorf("%w: column %s is %s, want list<int64>", ErrFormat, colTimesNs, c.DataType())
	}
	if c.Len() != len(rows) {
		return fmt.Errorf("%w: column %s has %d values, the batch %d rows", ErrCorrupt, colTimesNs, c.Len(), len(rows))
	}
	if vals.NullN() != 0 {
		return fmt.Errorf("%w: column %s has %d null runs", ErrCorrupt, colTimesNs, vals.NullN())
	}
	// Slicing panics (the reader recovers) before anything is allocated
	// when a corrupted length claims more values than the buffer holds.
	all := vals.Int64Values()
	// The rows' runs must not overlap, so that a corrupted offset cannot
	// make the copy below larger than the column.
	total, prev := 0, int64(0)
	for i := range rows {
		if c.IsNull(i) {
			continue
		}
		start, end := c.ValueOffsets(i)
		if start < prev || start > end || end > int64(len(all)) {
			return fmt.Errorf("%w: column %s row %d has runs [%d, %d) of %d", ErrCorrupt, colTimesNs, i, start, end, len(all))
		}
		prev = end
		total += int(end - start)
	}
	backing := make([]int64, 0, total)
	for i := range rows {
		if c.IsNull(i) {
			continue
		}
		start, end := c.ValueOffsets(i)
		at := len(backing)
		backing = append(backing, all[start:end]...)
		rows[i].Runs = backing[at:len(backing):len(backing)]
	}
	return nil
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
	if n < 0 {
		return nil, fmt.Errorf("%w: batch of %d rows", ErrCorrupt, n)
	}
	for k, c := range cols {
		col := rec.Column(c)
		if col.Len() != n {
			return nil, fmt.Errorf("%w: column %s has %d values, the batch %d rows", ErrCorrupt, rec.ColumnName(c), col.Len(), n)
		}
		// Only log_speedup may be null.
		if k != nTask+nParam+offLogSpeedup && col.NullN() != 0 {
			return nil, fmt.Errorf("%w: column %s has %d nulls", ErrCorrupt, rec.ColumnName(c), col.NullN())
		}
		// Slicing the values panics, before anything is allocated for
		// them, when a corrupted length claims more rows than the
		// buffer holds.
		switch a := col.(type) {
		case *array.Int64:
			_ = a.Int64Values()
		case *array.Float64:
			_ = a.Float64Values()
		}
	}
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
	for _, k := range knownStatuses {
		if string(k) == s {
			return k
		}
	}
	return Status(strings.Clone(s))
}
