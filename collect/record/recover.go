package record

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/apache/arrow/go/v15/arrow/ipc"
	"github.com/apache/arrow/go/v15/arrow/memory"
)

// Recovered is what Recover did with one file a dead writer left behind.
type Recovered struct {
	// Leftover is the file found: a *.arrow.partial stream, or a
	// *.arrow.compact file a writer died before moving into place.
	Leftover string
	// Path is the dataset file its rows are now in; "" when it held no
	// row and was removed.
	Path string
	// Rows is the number of rows recovered.
	Rows int
	// Dropped describes the tail that could not be read and was dropped
	// (the row being written when the writer died); "" when none was.
	Dropped string
	// Stale is set when every row of the partial file was already in
	// Path, the file its writer was given: a copy of a partial file that
	// an earlier Recover finished (restored from a backup, say). It is
	// removed and nothing is written, so that no row is recorded twice.
	Stale bool
}

// String describes r on one line.
func (r Recovered) String() string {
	if r.Path == "" {
		return fmt.Sprintf("removed %s: it held no complete row", r.Leftover)
	}
	if r.Stale {
		return fmt.Sprintf("removed %s: its %d rows are already in %s", r.Leftover, r.Rows, r.Path)
	}
	s := fmt.Sprintf("recovered %d rows from %s into %s", r.Rows, r.Leftover, r.Path)
	if r.Dropped != "" {
		s += " (dropped an incomplete tail: " + r.Dropped + ")"
	}
	return s
}

// Recover finishes the files that writers killed before Close left under
// dir, recursively: the rows of each partial file become a dataset file at
// the path the writer was given (or beside it, named *.recovered.arrow,
// when that path is taken), and partial files without a complete row are
// removed. Files that a live Writer holds, in this process or another, are
// left alone. opt sets the batches and compression of the files written.
// Errors name the file; Recover goes on with the other files and returns
// what it did along with the errors joined.
func Recover(dir string, opt WriterOptions) ([]Recovered, error) {
	return recoverDir(dir, opt, nil)
}

func recoverDir(dir string, opt WriterOptions, mem memory.Allocator) ([]Recovered, error) {
	opt, err := opt.resolve()
	if err != nil {
		return nil, err
	}
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	var partials, compacts []string
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
		case strings.HasSuffix(p, ".arrow"+partialSuffix):
			partials = append(partials, p)
		case strings.HasSuffix(p, ".arrow"+compactSuffix):
			compacts = append(compacts, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("record: %w", err)
	}
	sort.Strings(partials)
	sort.Strings(compacts)
	var done []Recovered
	var errs []error
	// Compacted files first: one whose partial is gone holds the only
	// copy of its rows.
	for _, c := range compacts {
		r, err := recoverCompact(c)
		if err != nil {
			errs = append(errs, err)
		} else if r != nil {
			done = append(done, *r)
		}
	}
	for _, p := range partials {
		r, err := recoverPartial(p, opt, mem)
		if err != nil {
			errs = append(errs, err)
		} else if r != nil {
			done = append(done, *r)
		}
	}
	return done, errors.Join(errs...)
}

// openLocked opens path and locks it; ok is false when a live writer holds
// it (or it vanished meanwhile).
func openLocked(path string) (f *os.File, ok bool, err error) {
	f, err = os.OpenFile(path, os.O_RDWR, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("record: %w", err)
	}
	if lockFile(f) != nil {
		f.Close()
		return nil, false, nil
	}
	return f, true, nil
}

// recoverCompact deals with a compacted file whose writer died before it
// was moved into place. It returns nil when there was nothing to do.
func recoverCompact(c string) (*Recovered, error) {
	f, ok, err := openLocked(c)
	if !ok {
		return nil, err
	}
	defer f.Close()
	target := strings.TrimSuffix(c, compactSuffix)
	if _, err := os.Stat(target + partialSuffix); err == nil {
		// The writer died while compacting; the partial file still holds
		// every row and is recovered on its own.
		return nil, removeFile(c)
	}
	if st, err := os.Stat(target); err == nil {
		if cst, err := f.Stat(); err == nil && os.SameFile(st, cst) {
			// Died after the move, before removing the link.
			return nil, removeFile(c)
		}
	}
	_, rows, err := ReadFile(c)
	if err != nil {
		return nil, err
	}
	path := freeName(target)
	if err := publish(c, path); err != nil {
		return nil, err
	}
	return &Recovered{Leftover: c, Path: path, Rows: len(rows)}, nil
}

// recoverPartial turns a dead writer's partial file into a dataset file,
// or removes it when it holds no row. It returns nil for a live writer's.
func recoverPartial(p string, opt WriterOptions, mem memory.Allocator) (*Recovered, error) {
	f, ok, err := openLocked(p)
	if !ok {
		return nil, err
	}
	defer f.Close()
	target := strings.TrimSuffix(p, partialSuffix)
	if n, err := staleRows(p, target, mem); err != nil {
		return nil, err
	} else if n > 0 {
		return &Recovered{Leftover: p, Path: target, Rows: n, Stale: true}, removeFile(p)
	}
	r, err := finish(p, freeName(target), opt, mem)
	if err != nil {
		return nil, err
	}
	return &r, nil
}

// staleRows returns the number of rows of the partial file p when every
// one of them is already in the dataset file target (a stale copy of a
// partial file recovered before), else 0.
func staleRows(p, target string, mem memory.Allocator) (int, error) {
	_, have, err := ReadFile(target)
	if err != nil {
		// No complete dataset file there: the partial's rows go to a
		// free name.
		return 0, nil
	}
	s, err := openPartial(p, mem)
	if err != nil {
		return 0, err
	}
	defer s.release()
	key := func(r Row) string { return fmt.Sprint(r.Task, r.Config, r.Status, r.TimeNs, r.Error) }
	seen := make(map[string]bool, len(have))
	for _, r := range have {
		seen[key(r)] = true
	}
	n := 0
	for {
		rows, ok := s.next()
		if !ok {
			break
		}
		for _, r := range rows {
			if !seen[key(r)] {
				return 0, nil
			}
			n++
		}
	}
	return n, nil
}

// openPartial opens the partial stream at p for reading; release closes
// the file too.
func openPartial(p string, mem memory.Allocator) (*stream, error) {
	in, err := os.Open(p)
	if err != nil {
		return nil, fmt.Errorf("record: %w", err)
	}
	st, err := in.Stat()
	if err != nil {
		in.Close()
		return nil, fmt.Errorf("record: %w", err)
	}
	s := openStream(in, st.Size(), mem)
	s.file = in
	return s, nil
}

// freeName is path when no file is there, else the first free name of
// path's stem with .recovered, .recovered-2, ... inserted before .arrow.
func freeName(path string) string {
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		return path
	}
	stem := strings.TrimSuffix(path, ".arrow")
	for i := 1; ; i++ {
		p := stem + ".recovered.arrow"
		if i > 1 {
			p = fmt.Sprintf("%s.recovered-%d.arrow", stem, i)
		}
		_, err := os.Lstat(p)
		_, perr := os.Lstat(p + partialSuffix)
		if errors.Is(err, fs.ErrNotExist) && errors.Is(perr, fs.ErrNotExist) {
			return p
		}
	}
}

func removeFile(p string) error {
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("record: %w", err)
	}
	return nil
}

// finish rewrites the rows of the partial stream at partial into a
// dataset file at path, in batches of opt.BatchRows, and removes partial.
// The caller holds partial's lock. A partial file without rows is removed
// and makes an empty dataset file only when it holds a schema and was
// closed properly, as Writer.Close leaves it; Recover drops those too (see
// recoverPartial).
//
// The steps keep every row in at least one complete file at all times:
// the rows go to path+".compact", which is synced; then partial is
// removed; then the compacted file is linked to path.
func finish(partial, path string, opt WriterOptions, mem memory.Allocator) (Recovered, error) {
	res := Recovered{Leftover: partial, Path: path}
	if _, err := os.Stat(path); err == nil {
		return res, fmt.Errorf("record: %s: %w (data left in %s)", path, fs.ErrExist, partial)
	}
	if err := checkDamage(partial, mem); err != nil {
		return res, err
	}
	s, err := openPartial(partial, mem)
	if err != nil {
		return res, err
	}
	defer s.release()
	if s.dec == nil {
		// Not even a schema: the writer died before its first row.
		res.Path, res.Dropped = "", s.tail
		return res, removeFile(partial)
	}
	sc, err := schema(s.dec.meta)
	if err != nil {
		return res, fmt.Errorf("record: %s: %w", partial, err)
	}
	sums, runSums, err := batchHashes(partial, opt.BatchRows, mem)
	if err != nil {
		return res, err
	}
	if sc, err = withBatchHashes(sc, sums); err != nil {
		return res, err
	}
	if sc, err = withHashes(sc, keyRunsHash, runSums); err != nil {
		return res, err
	}
	compact := path + compactSuffix
	out, err := os.OpenFile(compact, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return res, fmt.Errorf("record: %w", err)
	}
	defer out.Close()
	if err := lockFile(out); err != nil {
		return res, fmt.Errorf("record: %s is being written by another process: %w", compact, err)
	}
	fail := func(err error) (Recovered, error) {
		out.Close()
		os.Remove(compact)
		return res, err
	}
	fw, err := ipc.NewFileWriter(out, append(opt.ipcOptions(), ipc.WithSchema(sc), ipc.WithAllocator(mem))...)
	if err != nil {
		return fail(fmt.Errorf("record: %w", err))
	}
	b := newBuilder(mem, sc, s.dec.meta)
	defer b.release()
	n := 0
	flush := func() error {
		if n == 0 {
			return nil
		}
		rec := b.record()
		defer rec.Release()
		n = 0
		return fw.Write(rec)
	}
	for {
		rows, ok := s.next()
		if !ok {
			break
		}
		for _, r := range rows {
			b.append(r)
			res.Rows++
			if n++; n >= opt.BatchRows {
				if err := flush(); err != nil {
					return fail(fmt.Errorf("record: write %s: %w", compact, err))
				}
			}
		}
	}
	res.Dropped = s.tail
	if want := (res.Rows + opt.BatchRows - 1) / opt.BatchRows; want != len(sums) {
		// Both passes read the same bytes; they can only disagree when
		// the partial file changed under its lock.
		return fail(fmt.Errorf("record: %s changed while it was compacted", partial))
	}
	if res.Rows == 0 && !s.ended {
		res.Path = ""
		return fail(removeFile(partial))
	}
	if err := flush(); err != nil {
		return fail(fmt.Errorf("record: write %s: %w", compact, err))
	}
	if err := fw.Close(); err != nil {
		return fail(fmt.Errorf("record: close %s: %w", compact, err))
	}
	if err := out.Sync(); err != nil {
		return fail(fmt.Errorf("record: %w", err))
	}
	if err := removeFile(partial); err != nil {
		return fail(err)
	}
	return res, publish(compact, path)
}

// checkDamage reads the partial stream at partial to its end and, when it
// is damaged inside (stream.damaged) rather than torn at its end by a
// killed writer, moves it aside to a free *.damaged name and returns an
// error naming both: its rows are neither recovered nor removed, and the
// directory's next Recover or collect goes on without it.
func checkDamage(partial string, mem memory.Allocator) error {
	s, err := openPartial(partial, mem)
	if err != nil {
		return err
	}
	rows := 0
	for {
		r, ok := s.next()
		if !ok {
			break
		}
		rows += len(r)
	}
	damaged, unread, tail := s.damaged(), s.unread(), s.tail
	if s.dec == nil {
		unread = s.size
	}
	s.release()
	if !damaged {
		return nil
	}
	aside := strings.TrimSuffix(partial, ".arrow"+partialSuffix) + ".damaged"
	for i := 2; ; i++ {
		if _, err := os.Lstat(aside); errors.Is(err, fs.ErrNotExist) {
			break
		}
		aside = fmt.Sprintf("%s.damaged-%d", strings.TrimSuffix(partial, ".arrow"+partialSuffix), i)
	}
	if err := os.Rename(partial, aside); err != nil {
		return fmt.Errorf("record: %s is damaged (%s) and could not be moved aside: %w", partial, tail, err)
	}
	return fmt.Errorf("record: %s is damaged inside, not just cut short: %d rows read, then %s, with %d bytes after; kept as %s, nothing recovered from it", partial, rows, tail, unread, aside)
}

// batchHashes returns the checksums of the batches of batchRows rows that
// finish writes from the partial stream at partial, of their rows and of
// their timed runs: a first pass over the stream, so that the checksums
// can go in the schema, which the file writer needs before the first
// batch, while memory stays at one batch.
func batchHashes(partial string, batchRows int, mem memory.Allocator) (sums, runSums []uint64, err error) {
	s, err := openPartial(partial, mem)
	if err != nil {
		return nil, nil, err
	}
	defer s.release()
	rh, runh := newRowHasher(), newRowHasher()
	n := 0
	for {
		rows, ok := s.next()
		if !ok {
			break
		}
		for _, r := range rows {
			if n == 0 {
				rh.begin(len(sums))
				runh.begin(len(sums))
			}
			rh.add(r)
			runh.addRuns(r)
			if n++; n == batchRows {
				sums = append(sums, rh.sum(n))
				runSums = append(runSums, runh.sum(n))
				n = 0
			}
		}
	}
	if n > 0 {
		sums = append(sums, rh.sum(n))
		runSums = append(runSums, runh.sum(n))
	}
	return sums, runSums, nil
}

// stream reads the record batches of an Arrow IPC stream, tolerating a
// damaged tail.
type stream struct {
	rdr *ipc.Reader
	dec *decoder // nil when the stream has no readable schema
	// tail describes why reading stopped early, "" if it did not.
	tail string
	// ended is set when the stream ended with its end-of-stream marker,
	// as Writer.Close leaves it.
	ended bool
	eof   bool
	rows  []Row
	file  *os.File // closed by release when openPartial opened it
	// size, in and br tell how many of the stream's bytes were never
	// read (unread).
	size int64
	in   *countingReader
	br   *bufio.Reader
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// unread returns the bytes of the stream beyond the point where reading
// stopped.
func (s *stream) unread() int64 {
	return s.size - (s.in.n - int64(s.br.Buffered()))
}

// damagedAfter is the most bytes an unreadable stream may leave unread and
// still be a writer's torn last row (a row's message is a few hundred
// bytes; a killed writer leaves at most one, partly written, at the end).
// More unread bytes are damage inside the stream, whose file Recover keeps.
const damagedAfter = 4096

// damaged reports whether reading stopped before the stream's end for a
// reason other than a torn last message: a non-empty file without a
// readable schema, or more than damagedAfter bytes left unread.
func (s *stream) damaged() bool {
	if s.size == 0 {
		return false
	}
	return s.dec == nil || (s.tail != "" && s.unread() > damagedAfter)
}

// arrowMagic opens the random-access file format. Writers of earlier
// versions wrote partial files in that format, which is the stream format
// after the magic.
var arrowMagic = []byte("ARROW1\x00\x00")

// openStream opens the stream in r, a file of size bytes.
func openStream(r io.Reader, size int64, mem memory.Allocator) (s *stream) {
	in := &countingReader{r: r}
	br := bufio.NewReader(in)
	s = &stream{size: size, in: in, br: br}
	if head, err := br.Peek(len(arrowMagic)); err == nil && bytes.Equal(head, arrowMagic) {
		br.Discard(len(arrowMagic))
	}
	defer func() {
		if p := recover(); p != nil {
			s.rdr, s.dec, s.tail = nil, nil, fmt.Sprint(p)
		}
	}()
	checked, err := peekStreamSchema(br, size)
	if err != nil {
		s.tail = err.Error()
		return s
	}
	rdr, err := ipc.NewReader(checked, ipc.WithAllocator(capAllocator(mem, size)))
	if err != nil {
		s.tail = err.Error()
		return s
	}
	s.rdr = rdr
	dec, err := newDecoder(rdr.Schema())
	if err != nil {
		s.tail = err.Error()
		return s
	}
	// Recover rewrites every column of the rows it reads, the runs too.
	dec.runs = true
	s.dec = dec
	return s
}

// next returns the rows of the next batch; false at the end of the stream
// or at the first batch that does not decode.
func (s *stream) next() (rows []Row, ok bool) {
	if s.dec == nil || s.eof {
		return nil, false
	}
	defer func() {
		if p := recover(); p != nil {
			rows, ok, s.eof, s.tail = nil, false, true, fmt.Sprint(p)
		}
	}()
	if !s.rdr.Next() {
		s.eof = true
		if err := s.rdr.Err(); err != nil {
			s.tail = err.Error()
		} else {
			s.ended = true
		}
		return nil, false
	}
	rows, err := s.dec.appendRows(s.rows[:0], s.rdr.Record())
	if err != nil {
		s.eof, s.tail = true, err.Error()
		return nil, false
	}
	s.rows = rows
	return rows, true
}

func (s *stream) release() {
	if s.rdr != nil {
		s.rdr.Release()
	}
	if s.file != nil {
		s.file.Close()
	}
}
