package record

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow/go/v15/arrow/ipc"
	"github.com/apache/arrow/go/v15/arrow/memory"

	"github.com/augur-tuning/augur/features"
)

// killedWriter writes rows with FlushRows 1 and then drops the writer the
// way a killed process does: the partial file is closed (which releases
// its lock) and nothing else happens. cut bytes are then chopped off the
// end, as a write torn by the kill would leave them.
func killedWriter(t *testing.T, path string, rows []Row, cut int64) {
	t.Helper()
	w, err := Create(path, testMeta(), WriterOptions{FlushRows: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	w.file.Close()
	w.b.release()
	if cut > 0 {
		st, err := os.Stat(path + partialSuffix)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(path+partialSuffix, st.Size()-cut); err != nil {
			t.Fatal(err)
		}
	}
}

// TestRecoverDamaged checks that a partial file damaged inside (not torn
// at its end as a killed writer leaves it) is neither recovered nor
// removed: Recover moves it aside, byte for byte, and says so in an error.
func TestRecoverDamaged(t *testing.T) {
	rows := testRows()
	for _, c := range []struct {
		name   string
		damage func(t *testing.T, b []byte) []byte
	}{
		{"garbage", func(t *testing.T, b []byte) []byte {
			return []byte("\xff\xff\xff\xff\x10\x00\x00\x00garbage garbage!")
		}},
		{"header overwritten", func(t *testing.T, b []byte) []byte {
			copy(b, "XXXXXXXX")
			return b
		}},
		{"a row overwritten in the middle", func(t *testing.T, b []byte) []byte {
			if len(b) < 2*damagedAfter {
				t.Fatalf("the test's partial file has %d bytes, too few to damage its middle", len(b))
			}
			for i := len(b) / 2; i < len(b)/2+64; i++ {
				b[i] = 0xff
			}
			return b
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "run.arrow")
			many := rows
			for len(many) < 200 {
				many = append(many, rows...)
			}
			killedWriter(t, path, many, 0)
			b, err := os.ReadFile(path + partialSuffix)
			if err != nil {
				t.Fatal(err)
			}
			b = c.damage(t, b)
			if err := os.WriteFile(path+partialSuffix, b, 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := recoverDir(dir, WriterOptions{BatchRows: 2}, nil)
			if err == nil || !strings.Contains(err.Error(), "damaged") || len(got) != 0 {
				t.Fatalf("Recover = %+v, %v; want an error naming the damage and nothing recovered", got, err)
			}
			kept, err := os.ReadFile(filepath.Join(dir, "run.damaged"))
			if err != nil || !bytes.Equal(kept, b) {
				t.Fatalf("the damaged file was not kept as it was: %v", err)
			}
			if left, _ := filepath.Glob(filepath.Join(dir, "*.arrow*")); len(left) != 0 {
				t.Errorf("left or written: %v", left)
			}
			// The next run goes on without it.
			if got, err := recoverDir(dir, WriterOptions{}, nil); err != nil || len(got) != 0 {
				t.Errorf("second Recover = %+v, %v; want nothing to do", got, err)
			}
		})
	}
}

func TestRecover(t *testing.T) {
	rows := testRows()
	tests := []struct {
		name     string
		setup    func(t *testing.T, path string)
		wantRows int // -1: no file at all
		wantPath string
	}{
		{"every row flushed", func(t *testing.T, p string) { killedWriter(t, p, rows, 0) }, len(rows), "run.arrow"},
		{"last row torn", func(t *testing.T, p string) { killedWriter(t, p, rows, 20) }, len(rows) - 1, "run.arrow"},
		{"no row", func(t *testing.T, p string) { killedWriter(t, p, nil, 0) }, -1, ""},
		{"empty file of an older writer", func(t *testing.T, p string) {
			os.WriteFile(p+partialSuffix, nil, 0o644)
		}, -1, ""},
		{"file format of an older writer", func(t *testing.T, p string) {
			killedWriter(t, p, rows[:2], 0)
			b, _ := os.ReadFile(p + partialSuffix)
			os.WriteFile(p+partialSuffix, append(append([]byte{}, arrowMagic...), b...), 0o644)
		}, 2, "run.arrow"},
		{"path taken", func(t *testing.T, p string) {
			writeFile(t, memory.DefaultAllocator, p+".other", testMeta(), 0, rows[:1])
			killedWriter(t, p, rows[:3], 0)
			os.Rename(p+".other", p)
		}, 3, "run.recovered.arrow"},
		{"died while compacting", func(t *testing.T, p string) {
			killedWriter(t, p, rows, 0)
			os.WriteFile(p+compactSuffix, []byte("half a file"), 0o644)
		}, len(rows), "run.arrow"},
		{"died after compacting", func(t *testing.T, p string) {
			writeFile(t, memory.DefaultAllocator, p, testMeta(), 0, rows[:2])
			os.Rename(p, p+compactSuffix)
		}, 2, "run.arrow"},
		{"died after publishing", func(t *testing.T, p string) {
			writeFile(t, memory.DefaultAllocator, p, testMeta(), 0, rows[:2])
			os.Link(p, p+compactSuffix)
		}, -2, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "run.arrow")
			tt.setup(t, path)
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			got, err := recoverDir(dir, WriterOptions{BatchRows: 2}, mem)
			if err != nil {
				t.Fatal(err)
			}
			mem.AssertSize(t, 0)
			left, _ := filepath.Glob(filepath.Join(dir, "*.*[lt]"))
			if len(left) != 0 {
				t.Errorf("left behind: %v", left)
			}
			switch {
			case tt.wantRows == -2:
				if len(got) != 0 {
					t.Errorf("Recover = %+v, want nothing reported", got)
				}
				return
			case tt.wantRows < 0:
				if len(got) != 1 || got[0].Path != "" {
					t.Errorf("Recover = %+v, want one partial file removed", got)
				}
				if _, err := os.Stat(path); err == nil {
					t.Errorf("%s exists, want no file", path)
				}
				return
			}
			if len(got) != 1 || got[0].Rows != tt.wantRows || filepath.Base(got[0].Path) != tt.wantPath {
				t.Fatalf("Recover = %+v, want %d rows into %s", got, tt.wantRows, tt.wantPath)
			}
			meta, back, err := ReadFileWith(got[0].Path, ReadOptions{Runs: true})
			if err != nil {
				t.Fatal(err)
			}
			if meta.Kernel != testMeta().Kernel || len(back) != tt.wantRows {
				t.Fatalf("recovered file: kernel %q, %d rows; want %q, %d", meta.Kernel, len(back), testMeta().Kernel, tt.wantRows)
			}
			for i := range back {
				if !sameRow(back[i], rows[i]) {
					t.Errorf("row %d = %+v, want %+v", i, back[i], rows[i])
				}
			}
		})
	}
}

// TestRecoverStaleCopy: a partial file whose rows are all in the file its
// writer was given (a copy of one that an earlier Recover finished, come
// back with a restore) is removed and nothing is written twice; one that
// holds a row the file lacks is still recovered beside it.
func TestRecoverStaleCopy(t *testing.T) {
	rows := testRows()
	tests := []struct {
		name      string
		inFile    []Row // the complete file at the writer's path
		inPartial []Row
		cut       int64 // bytes cut off the partial file's end
		wantStale bool
		wantFiles int
	}{
		{"same rows", rows[:3], rows[:3], 0, true, 1},
		{"torn copy of the same rows", rows[:3], rows[:3], 20, true, 1},
		{"a row more", rows[:2], rows[:3], 0, false, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "run.arrow")
			killedWriter(t, path, tt.inPartial, tt.cut)
			writeFile(t, memory.DefaultAllocator, path+".other", testMeta(), 0, tt.inFile)
			if err := os.Rename(path+".other", path); err != nil {
				t.Fatal(err)
			}
			got, err := Recover(dir, WriterOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 1 || got[0].Stale != tt.wantStale {
				t.Fatalf("Recover = %+v, want one file, stale %v", got, tt.wantStale)
			}
			files, err := ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(files) != tt.wantFiles {
				t.Errorf("%d dataset files, want %d", len(files), tt.wantFiles)
			}
			if left, _ := filepath.Glob(filepath.Join(dir, "*.partial")); len(left) != 0 {
				t.Errorf("left behind: %v", left)
			}
		})
	}
}

func TestRecoverLeavesLiveWriter(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "run.arrow")
	w, err := Create(path, testMeta(), WriterOptions{FlushRows: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(testRows()[0]); err != nil {
		t.Fatal(err)
	}
	got, err := Recover(dir, WriterOptions{})
	if err != nil || len(got) != 0 {
		t.Errorf("Recover = %+v, %v; want nothing done to a live writer's file", got, err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if _, rows, err := ReadFile(path); err != nil || len(rows) != 1 {
		t.Errorf("ReadFile = %d rows, %v; want 1 row", len(rows), err)
	}
}

func TestFlushRowsPutsRowsOnDisk(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.arrow")
	w, err := Create(path, testMeta(), WriterOptions{FlushRows: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	var sizes []int64
	for _, r := range testRows()[:3] {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
		st, err := os.Stat(path + partialSuffix)
		if err != nil {
			t.Fatal(err)
		}
		sizes = append(sizes, st.Size())
	}
	if !(0 < sizes[0] && sizes[0] < sizes[1] && sizes[1] < sizes[2]) {
		t.Errorf("partial file sizes after each row = %v, want growing with every row", sizes)
	}
}

func TestCompression(t *testing.T) {
	// Zstandard frames start with these bytes.
	zstdMagic := []byte{0x28, 0xb5, 0x2f, 0xfd}
	for _, tt := range []struct {
		c    Compression
		want bool
	}{{"", true}, {CompressionZstd, true}, {CompressionNone, false}} {
		path := filepath.Join(t.TempDir(), "run.arrow")
		w, err := Create(path, testMeta(), WriterOptions{Compression: tt.c})
		if err != nil {
			t.Fatal(err)
		}
		for range 50 {
			for _, r := range testRows() {
				if err := w.Write(r); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(path)
		if got := bytes.Contains(b, zstdMagic); got != tt.want {
			t.Errorf("compression %q: zstd frames in file = %v, want %v", tt.c, got, tt.want)
		}
		if _, rows, err := ReadFile(path); err != nil || len(rows) != 50*len(testRows()) {
			t.Errorf("compression %q: read %d rows, %v", tt.c, len(rows), err)
		}
	}
	if _, err := ParseCompression("lz4"); err == nil {
		t.Error("ParseCompression(lz4) succeeded, want an error")
	}
}

// stored returns rows as a reader gets them back: log_speedup is written
// as null (read as NaN) unless the row is ok.
func stored(rows []Row) []Row {
	out := append([]Row(nil), rows...)
	for i := range out {
		if out[i].Status != StatusOK {
			out[i].LogSpeedup = math.NaN()
		}
	}
	return out
}

// writeUnchecked writes rows to path, as one batch with its checksum,
// bypassing Writer's checks, as a buggy writer might hold them.
func writeUnchecked(t *testing.T, path string, meta Meta, rows []Row) {
	t.Helper()
	sc, err := schema(meta)
	if err != nil {
		t.Fatal(err)
	}
	if sc, err = withBatchHashes(sc, []uint64{newRowHasher().hashBatch(0, stored(rows))}); err != nil {
		t.Fatal(err)
	}
	if sc, err = withHashes(sc, keyRunsHash, []uint64{newRowHasher().hashRuns(0, stored(rows))}); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fw, err := ipc.NewFileWriter(f, ipc.WithSchema(sc))
	if err != nil {
		t.Fatal(err)
	}
	b := newBuilder(memory.DefaultAllocator, sc, meta)
	defer b.release()
	for _, r := range rows {
		b.append(r)
	}
	rec := b.record()
	defer rec.Release()
	if err := fw.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := fw.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestInvalidRows(t *testing.T) {
	ok := testRows()[1] // time 500, ref 1000, log speedup ln 2
	tests := []struct {
		name   string
		change func(r *Row)
		want   string
	}{
		{"unknown status", func(r *Row) { r.Status = "made_up_status" }, "unknown status"},
		{"absurd log speedup", func(r *Row) { r.LogSpeedup = -1.4e234; r.RefTimeNs = 0 }, "log_speedup"},
		{"log speedup against the times", func(r *Row) { r.LogSpeedup = 3 }, "ln(ref_time_ns/time_ns)"},
		{"zero time", func(r *Row) { r.TimeNs, r.TimeMinNs = 0, 0 }, "time_ns"},
		{"infinite time", func(r *Row) { r.TimeNs = math.Inf(1) }, "time_ns"},
		{"NaN cv", func(r *Row) { r.TimeCV = math.NaN() }, "time_cv"},
		{"negative repeats", func(r *Row) { r.Repeats = -3 }, "repeats"},
		{"minimum above median", func(r *Row) { r.TimeMinNs = 501 }, "time_min_ns"},
		{"value outside the space", func(r *Row) { r.Config = features.Config{12, 4} }, "wg is 12"},
		{"runs on a failed row", func(r *Row) { r.Status, r.LogSpeedup = StatusLaunchError, math.NaN() }, "launch_error row with 7 timed runs"},
		{"fewer runs than repeats", func(r *Row) { r.Runs = r.Runs[:6] }, "6 timed runs in times_ns, repeats says 7"},
		{"runs of another median", func(r *Row) { r.Runs = []int64{480, 500, 510, 495, 505, 503, 520} }, "median 503"},
		{"runs of another minimum", func(r *Row) { r.Runs = []int64{470, 500, 510, 495, 505, 500, 520} }, "minimum 470"},
		{"negative run", func(r *Row) { r.Runs = []int64{480, 500, 510, 495, 505, 500, -1} }, "times_ns[6] is -1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := ok
			tt.change(&r)
			dir := t.TempDir()
			w, err := Create(filepath.Join(dir, "w.arrow"), testMeta(), WriterOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if err := w.Write(r); !errors.Is(err, ErrInvalidRow) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Write: err = %v, want ErrInvalidRow naming %q", err, tt.want)
			}
			w.Close()
			path := filepath.Join(dir, "bad.arrow")
			writeUnchecked(t, path, testMeta(), []Row{ok, r})
			_, _, err = ReadFileWith(path, ReadOptions{Runs: true})
			if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), path) {
				t.Errorf("ReadFile: err = %v, want ErrCorrupt naming the file and %q", err, tt.want)
			}
		})
	}
}

func TestReadCorruptedBytes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.arrow")
	writeFile(t, memory.DefaultAllocator, path, testMeta(), 2, testRows())
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// 16 bytes overwritten at every offset: an error or the original
	// rows, never a panic and never other values.
	bad := filepath.Join(t.TempDir(), "bad.arrow")
	errs := 0
	for off := 0; off+16 <= len(good); off += 8 {
		b := bytes.Clone(good)
		copy(b[off:], bytes.Repeat([]byte{0xa5}, 16))
		if err := os.WriteFile(bad, b, 0o644); err != nil {
			t.Fatal(err)
		}
		_, rows, err := ReadFile(bad)
		if err != nil {
			errs++
			if !strings.Contains(err.Error(), bad) {
				t.Errorf("offset %d: error %q does not name the file", off, err)
			}
			continue
		}
		for i := range rows {
			if err := checkRow(rows[i], testMeta().Params); err != nil {
				t.Errorf("offset %d: row %d passed the reader but fails its checks: %v", off, i, err)
			}
		}
	}
	if errs == 0 {
		t.Error("no corruption was detected at any offset")
	}
}

func TestReadDirSkip(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, memory.DefaultAllocator, filepath.Join(dir, "a.arrow"), testMeta(), 0, testRows())
	os.WriteFile(filepath.Join(dir, "b.arrow"), []byte("ARROW1\x00\x00 and then nothing"), 0o644)
	files, bad, err := ReadDirSkip(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 || len(bad) != 1 || !strings.Contains(bad[0].Error(), "b.arrow") {
		t.Errorf("ReadDirSkip = %d files, errors %v; want 1 file and one error naming b.arrow", len(files), bad)
	}
	if _, err := ReadDir(dir); err == nil || !strings.Contains(err.Error(), "b.arrow") {
		t.Errorf("ReadDir: err = %v, want one naming b.arrow", err)
	}
}

// fuzzSeed is the smallest dataset file of one row that exercises every
// column: a few hundred bytes, so that Go's fuzzer can minimise what it
// finds from it within its default minimising time.
func fuzzSeed(f *testing.F, compression Compression) []byte {
	meta := Meta{Kernel: "k", TaskNames: []string{"n"}, Params: []features.Param{{Name: "p", Values: []int{1, 2}}}}
	path := filepath.Join(f.TempDir(), "seed.arrow")
	w, err := Create(path, meta, WriterOptions{Compression: compression})
	if err != nil {
		f.Fatal(err)
	}
	r := Row{Task: features.Task{8}, Config: features.Config{2}, Status: StatusOK, TimeNs: 2, TimeMinNs: 1,
		Repeats: 3, RefTimeNs: 4, LogSpeedup: math.Log(2), Error: "e", Runs: []int64{2, 1, 3}}
	if err := w.Write(r); err != nil {
		f.Fatal(err)
	}
	if err := w.Close(); err != nil {
		f.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	return b
}

// fuzzBases are the files FuzzReadFile edits: the seed, plain and
// compressed.
func fuzzBases(f *testing.F) [2][]byte {
	return [2][]byte{fuzzSeed(f, CompressionNone), fuzzSeed(f, CompressionZstd)}
}

// applyEdits edits a copy of one of bases as edits says, four bytes an
// edit: which base (first edit only), an operation, a position (two bytes,
// modulo the length) and a byte. The operations xor the byte in, insert
// it, delete one byte, or cut the file there.
func applyEdits(bases [2][]byte, edits []byte) []byte {
	var b []byte
	for i := 0; i+4 <= len(edits); i += 4 {
		e := edits[i : i+4]
		if b == nil {
			b = bytes.Clone(bases[e[0]&1])
		}
		if len(b) == 0 {
			break
		}
		at := (int(e[1])<<8 | int(e[2])) % len(b)
		switch e[0] >> 1 & 3 {
		case 0:
			b[at] ^= e[3] | 1
		case 1:
			b = append(b[:at], append([]byte{e[3]}, b[at:]...)...)
		case 2:
			b = append(b[:at], b[at+1:]...)
		case 3:
			b = b[:at]
		}
	}
	if b == nil {
		b = bytes.Clone(bases[0])
	}
	return b
}

// FuzzReadFile feeds damaged dataset files to the reader: it must return
// a one-line error or rows that pass the checks, and never panic nor take
// long. The input is a list of edits to a real small file (applyEdits),
// not the file itself: Go's fuzzer minimises each new input by trying
// about n^2/2 shorter ones, which for a whole file (hundreds of bytes)
// took the 60 s it allows per input and left the fuzzer at a few inputs a
// minute (issue 26); a list of edits is a few dozen bytes. It reads from
// memory, so that an input costs no file system call.
func FuzzReadFile(f *testing.F) {
	bases := fuzzBases(f)
	f.Add([]byte{})
	f.Add([]byte{1, 0, 0, 0})             // the compressed file as is
	f.Add([]byte{0, 0, 200, 0x10})        // a flipped bit
	f.Add([]byte{7, 1, 0, 0, 5, 0, 9, 0}) // cut, then a byte gone
	f.Fuzz(func(t *testing.T, edits []byte) {
		data := applyEdits(bases, edits)
		type read struct {
			meta Meta
			rows []Row
			err  error
		}
		done := make(chan read, 1)
		go func() {
			var rows []Row
			meta, _, err := scan("fuzz.arrow", bytes.NewReader(data), int64(len(data)), nil, true, func(m *Meta, _ int, got []Row) error {
				for i, r := range got {
					if err := checkRow(r, m.Params); err != nil {
						return fmt.Errorf("%w: row %d: %w", ErrCorrupt, i, err)
					}
				}
				rows = append(rows, got...)
				return nil
			})
			done <- read{meta, rows, err}
		}()
		var got read
		select {
		case got = <-done:
		case <-time.After(5 * time.Second):
			t.Fatalf("reading took over 5 s on a %d-byte file", len(data))
		}
		meta, rows, err := got.meta, got.rows, got.err
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error of several lines: %q", err)
			}
			return
		}
		for i, r := range rows {
			if len(r.Task) != len(meta.TaskNames) || len(r.Config) != len(meta.Params) {
				t.Fatalf("row %d has %d task and %d config values, meta %d and %d", i, len(r.Task), len(r.Config), len(meta.TaskNames), len(meta.Params))
			}
		}
	})
}
