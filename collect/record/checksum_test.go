package record

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/ipc"
	"github.com/apache/arrow/go/v15/arrow/memory"

	"github.com/augur-tuning/augur/features"
)

// writeWithMeta writes rows as one batch under a schema whose metadata
// edit changes, bypassing the writer: a file as an older augur, or a
// corruption, leaves it.
func writeWithMeta(t *testing.T, path string, rows []Row, edit func(md arrow.Metadata) arrow.Metadata) {
	t.Helper()
	sc, err := schema(testMeta())
	if err != nil {
		t.Fatal(err)
	}
	if sc, err = withBatchHashes(sc, []uint64{newRowHasher().hashBatch(0, rows)}); err != nil {
		t.Fatal(err)
	}
	if sc, err = withHashes(sc, keyRunsHash, []uint64{newRowHasher().hashRuns(0, rows)}); err != nil {
		t.Fatal(err)
	}
	md := edit(sc.Metadata())
	sc = arrow.NewSchema(sc.Fields(), &md)
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	fw, err := ipc.NewFileWriter(out, ipc.WithSchema(sc))
	if err != nil {
		t.Fatal(err)
	}
	b := newBuilder(memory.DefaultAllocator, sc, testMeta())
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

// without drops keys from md.
func without(keys ...string) func(arrow.Metadata) arrow.Metadata {
	return func(md arrow.Metadata) arrow.Metadata {
		var k, v []string
		for i, key := range md.Keys() {
			if !strings.Contains(strings.Join(keys, " "), key) {
				k, v = append(k, key), append(v, md.Values()[i])
			}
		}
		return arrow.NewMetadata(k, v)
	}
}

// replacing sets key to val in md.
func replacing(key, val string) func(arrow.Metadata) arrow.Metadata {
	return func(md arrow.Metadata) arrow.Metadata {
		vals := append([]string(nil), md.Values()...)
		vals[md.FindKey(key)] = val
		return arrow.NewMetadata(md.Keys(), vals)
	}
}

func TestChecksums(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, memory.DefaultAllocator, filepath.Join(dir, "new.arrow"), testMeta(), 3, testRows())
	files, err := ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !files[0].Verified {
		t.Errorf("a file just written reads unverified")
	}
	other := testRows()
	other[0].TimeNs, other[0].LogSpeedup = 999, 0 // still a valid row
	other[0].RefTimeNs = 999
	otherRuns := testRows()
	otherRuns[0].Runs[0], otherRuns[0].Runs[2] = 1010, 1000 // the same summary
	tests := []struct {
		name     string
		edit     func(arrow.Metadata) arrow.Metadata
		verified bool
		want     string // "" for no error
	}{
		{"as written", func(md arrow.Metadata) arrow.Metadata { return md }, true, ""},
		{"before checksums", without(keyMetaHash, keyBatchHash), false, ""},
		{"no batch checksums", without(keyBatchHash), false, "no batch_xxh3"},
		{"no metadata checksum", without(keyMetaHash), false, "no meta_xxh3"},
		{"another platform", replacing(keyPlatform, `{"name":"gpu"}`), false, "metadata checksum mismatch"},
		{"another space", replacing(keyParams, `[{"name":"wg","values":[8,16]},{"name":"unroll","values":[1,2,4,8]}]`), false, "metadata checksum mismatch"},
		{"other rows", replacing(keyBatchHash, `["`+formatHash(newRowHasher().hashBatch(0, other))+`"]`), false, "batch 0: corrupted dataset file: checksum mismatch"},
		{"fewer batches", replacing(keyBatchHash, `[]`), false, "1 record batches, its batch_xxh3 lists 0"},
		{"bad digits", replacing(keyBatchHash, `["12"]`), false, "not 16 hex digits"},
		{"no runs checksum", without(keyRunsHash), false, "times_ns column and batch_xxh3 but no runs_xxh3"},
		{"other runs", replacing(keyRunsHash, `["`+formatHash(newRowHasher().hashRuns(0, otherRuns))+`"]`), false, "batch 0: corrupted dataset file: checksum mismatch: timed runs"},
		{"fewer runs batches", replacing(keyRunsHash, `[]`), false, "1 record batches, its runs_xxh3 lists 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "f.arrow")
			writeWithMeta(t, path, testRows(), tt.edit)
			f, err := readWhole(path, nil, ReadOptions{Runs: true})
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("err = %v, want none", err)
			case tt.want != "" && (!errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), path)):
				t.Fatalf("err = %v, want ErrCorrupt naming the file and %q", err, tt.want)
			case err == nil && (f.Verified != tt.verified || len(f.Rows) != len(testRows())):
				t.Errorf("Verified = %v, %d rows; want %v, %d", f.Verified, len(f.Rows), tt.verified, len(testRows()))
			}
		})
	}
}

// TestRecoveredChecksums: a file Recover writes from a partial stream
// proves itself like one Close writes.
func TestRecoveredChecksums(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "run.arrow")
	w, err := Create(path, testMeta(), WriterOptions{BatchRows: 3, FlushRows: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range testRows() {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	// Dropping the writer without Close, as a killed process does, but
	// releasing the lock so that Recover takes the file.
	w.file.Close()
	if _, err := Recover(dir, WriterOptions{BatchRows: 3}); err != nil {
		t.Fatal(err)
	}
	files, err := ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 || !files[0].Verified || len(files[0].Rows) != len(testRows()) {
		t.Fatalf("ReadDir after Recover = %d files, want one verified file of %d rows", len(files), len(testRows()))
	}
}

type taskCap int

func (c taskCap) CheckTask(t features.Task) error {
	if t[0] > int(c) {
		return errors.New("width over the cap")
	}
	return nil
}

func TestVerify(t *testing.T) {
	rows := testRows()
	dup := rows[1]
	// Valid values, but wg * unroll = 128 breaks the space's constraint.
	broken := Row{Task: features.Task{64, 64}, Config: features.Config{16, 8}, Status: StatusCompileError, LogSpeedup: math.NaN()}
	meta := testMeta()
	meta.Params[1].Values = append(meta.Params[1].Values, 8)
	pruned := broken
	pruned.Status = StatusPruned
	path := filepath.Join(t.TempDir(), "f.arrow")
	writeUnchecked(t, path, meta, append(rows, dup, broken, pruned))
	c := Verify(path, VerifyOptions{Tasks: func(Meta) TaskChecker { return taskCap(100) }})
	if c.Err != nil {
		t.Fatal(c.Err)
	}
	// 512 is over the cap twice (rows 0, 1), and once more as dup; broken
	// breaks the constraint; pruned may, but is another duplicate.
	if c.Rows != 7 || c.Batches != 1 || c.Duplicates != 2 || c.BadRows != 4 || !c.Verified || !c.TasksChecked || c.OK() {
		t.Errorf("Verify = %+v, want 7 rows, 2 duplicates, 4 bad rows, verified", c)
	}
	if len(c.Problems) == 0 || !strings.Contains(c.Problems[0], "batch 0 row 0") || !strings.Contains(strings.Join(c.Problems, "\n"), "wg * unroll <= 64") {
		t.Errorf("problems %q, want batch and row named and the constraint", c.Problems)
	}
	if s := c.String(); !strings.Contains(s, "7 rows") || !strings.Contains(s, "BAD") || strings.Contains(s, "\n") {
		t.Errorf("String() = %q, want one line with the rows and BAD", s)
	}
	good := filepath.Join(t.TempDir(), "g.arrow")
	writeFile(t, memory.DefaultAllocator, good, testMeta(), 0, testRows())
	if c := Verify(good, VerifyOptions{}); !c.OK() || !c.Verified || c.TasksChecked {
		t.Errorf("Verify(good) = %+v, want OK and verified", c)
	}
	garbage := filepath.Join(t.TempDir(), "x.arrow")
	os.WriteFile(garbage, []byte("not arrow"), 0o644)
	if c := Verify(garbage, VerifyOptions{}); c.Err == nil || c.OK() {
		t.Errorf("Verify(garbage) = %+v, want an error", c)
	}
}

// TestRunsChecksumUnread: a reader that does not read the timed runs
// (ReadOptions.Runs false, and augur versions from before the times_ns
// column, which check batch_xxh3 alone) reads a file whose runs are
// damaged, verified, with the summaries as written.
func TestRunsChecksumUnread(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.arrow")
	writeWithMeta(t, path, testRows(), replacing(keyRunsHash, `["0123456789abcdef"]`))
	f, err := readWhole(path, nil, ReadOptions{})
	if err != nil || !f.Verified || len(f.Rows) != len(testRows()) {
		t.Fatalf("readWhole without runs: %d rows, verified %v, %v; want %d rows, verified", len(f.Rows), f.Verified, err, len(testRows()))
	}
	for i, r := range f.Rows {
		if r.Runs != nil {
			t.Errorf("row %d has runs %v, want none read", i, r.Runs)
		}
	}
	if _, err := readWhole(path, nil, ReadOptions{Runs: true}); !errors.Is(err, ErrCorrupt) {
		t.Errorf("readWhole with runs: err = %v, want ErrCorrupt", err)
	}
}

// TestReadWithoutRunsColumn reads a shipped file, written before the
// times_ns column existed, asking for the runs: it reads as before, every
// row without runs.
func TestReadWithoutRunsColumn(t *testing.T) {
	_, want, err := ReadFile(flipSource)
	if err != nil {
		t.Fatal(err)
	}
	_, got, err := ReadFileWith(flipSource, ReadOptions{Runs: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) || len(got) == 0 {
		t.Fatalf("%d rows with runs asked, %d without", len(got), len(want))
	}
	for i := range got {
		if got[i].Runs != nil || !sameRowNaN(got[i], want[i]) {
			t.Errorf("row %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}
