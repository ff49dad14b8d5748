package record

import (
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/apache/arrow/go/v15/arrow/ipc"
	"github.com/apache/arrow/go/v15/arrow/memory"

	"github.com/augur-tuning/augur/features"
)

func testMeta() Meta {
	return Meta{
		Kernel:        "conv2d",
		KernelVersion: "0123456789ab",
		Platform: features.Platform{PlatformName: "Portable Computing Language", Name: "cpu-x",
			Type: "cpu", DriverVersion: "6.0", ComputeUnits: 2, LocalMemBytes: 65536},
		AugurVersion: features.Version,
		Created:      time.Date(2025, 3, 4, 5, 6, 7, 890, time.UTC),
		TaskNames:    []string{"width", "height"},
		Params:       []features.Param{{Name: "wg", Values: []int{8, 16}}, {Name: "unroll", Values: []int{1, 2, 4}}},
		Constraints:  []string{"wg * unroll <= 64"},
		Reference:    features.Config{8, 1},
		Source:       "collect",
	}
}

func testRows() []Row {
	return []Row{
		{Task: features.Task{512, 256}, Config: features.Config{8, 1}, Status: StatusOK, TimeNs: 1000,
			TimeMinNs: 990, TimeCV: 0.01, Repeats: 7, RefTimeNs: 1000, LogSpeedup: 0, CompileMs: 210,
			Runs: []int64{1000, 990, 1010, 1000, 1005, 995, 1000}},
		{Task: features.Task{512, 256}, Config: features.Config{16, 4}, Status: StatusOK, TimeNs: 500,
			TimeMinNs: 480, TimeCV: 0.02, Repeats: 7, RefTimeNs: 1000, LogSpeedup: math.Log(2), CompileMs: 190,
			Runs: []int64{480, 500, 510, 495, 505, 500, 520}},
		{Task: features.Task{64, 64}, Config: features.Config{16, 4}, Status: StatusCompileError,
			LogSpeedup: math.NaN(), Error: "error: use of undeclared identifier 'x'\n1 error generated."},
		{Task: features.Task{64, 64}, Config: features.Config{8, 2}, Status: StatusOK, TimeNs: 40,
			RefTimeNs: 0, LogSpeedup: math.NaN(), Repeats: 3},
	}
}

// writeFile writes rows to path with a checked allocator.
func writeFile(t testing.TB, mem memory.Allocator, path string, meta Meta, batch int, rows []Row) {
	t.Helper()
	w, err := newWriter(path, meta, WriterOptions{BatchRows: batch}, mem)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// sameRow compares rows treating NaN as equal to NaN.
func sameRow(a, b Row) bool {
	for _, p := range []struct{ x, y *float64 }{
		{&a.TimeNs, &b.TimeNs}, {&a.TimeMinNs, &b.TimeMinNs}, {&a.TimeCV, &b.TimeCV},
		{&a.RefTimeNs, &b.RefTimeNs}, {&a.LogSpeedup, &b.LogSpeedup}, {&a.CompileMs, &b.CompileMs},
	} {
		xn, yn := math.IsNaN(*p.x), math.IsNaN(*p.y)
		if xn != yn {
			return false
		}
		if xn {
			*p.x, *p.y = 0, 0
		}
	}
	return reflect.DeepEqual(a, b)
}

func TestRoundTrip(t *testing.T) {
	for _, batch := range []int{0, 1, 2, 100} {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		path := filepath.Join(t.TempDir(), "run.arrow")
		meta, rows := testMeta(), testRows()
		writeFile(t, mem, path, meta, batch, rows)
		f, err := readWhole(path, mem, ReadOptions{Runs: true})
		if err != nil {
			t.Fatal(err)
		}
		gotMeta, gotRows := f.Meta, f.Rows
		// Without ReadOptions.Runs the rows are the same but for Runs.
		_, summaries, err := readFile(path, mem)
		if err != nil {
			t.Fatal(err)
		}
		mem.AssertSize(t, 0)
		for i, r := range summaries {
			want := rows[i]
			want.Runs = nil
			if !sameRow(r, want) {
				t.Errorf("batch %d: row %d without runs = %+v, want %+v", batch, i, r, want)
			}
		}
		if !gotMeta.Created.Equal(meta.Created) {
			t.Errorf("batch %d: Created = %v, want %v", batch, gotMeta.Created, meta.Created)
		}
		gotMeta.Created = meta.Created
		if !reflect.DeepEqual(gotMeta, meta) {
			t.Errorf("batch %d: meta = %+v, want %+v", batch, gotMeta, meta)
		}
		if len(gotRows) != len(rows) {
			t.Fatalf("batch %d: got %d rows, want %d", batch, len(gotRows), len(rows))
		}
		for i := range rows {
			if !sameRow(gotRows[i], rows[i]) {
				t.Errorf("batch %d: row %d = %+v, want %+v", batch, i, gotRows[i], rows[i])
			}
		}
	}
}

func TestRoundTripEmptyMeta(t *testing.T) {
	path := filepath.Join(t.TempDir(), "empty.arrow")
	meta := Meta{Kernel: "k", Created: time.Unix(0, 0).UTC()}
	writeFile(t, memory.DefaultAllocator, path, meta, 0, []Row{{Status: StatusPruned}})
	got, rows, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, meta) {
		t.Errorf("meta = %+v, want %+v", got, meta)
	}
	if len(rows) != 1 || rows[0].Status != StatusPruned || len(rows[0].Task) != 0 {
		t.Errorf("rows = %+v, want one pruned row without task or config", rows)
	}
}

func TestLogSpeedupNullUnlessOK(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.arrow")
	rows := []Row{
		{Task: features.Task{1, 1}, Config: features.Config{8, 1}, Status: StatusTimeout, LogSpeedup: 1.5},
		{Task: features.Task{1, 1}, Config: features.Config{8, 2}, Status: StatusOK, TimeNs: 100, LogSpeedup: -0.25},
	}
	writeFile(t, memory.DefaultAllocator, path, testMeta(), 0, rows)
	_, got, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !math.IsNaN(got[0].LogSpeedup) {
		t.Errorf("timeout row: LogSpeedup = %v, want NaN", got[0].LogSpeedup)
	}
	if got[1].LogSpeedup != -0.25 {
		t.Errorf("ok row: LogSpeedup = %v, want -0.25", got[1].LogSpeedup)
	}
}

// TestStatusesRoundTrip writes a failed row of every status and reads
// each back with its status and error.
func TestStatusesRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.arrow")
	var rows []Row
	for i, st := range knownStatuses {
		if st != StatusOK {
			rows = append(rows, Row{Task: features.Task{1, 1}, Config: features.Config{8, []int{1, 2, 4}[i%3]}, Status: st,
				RefTimeNs: 100, LogSpeedup: math.NaN(), Error: "why " + string(st)})
		}
	}
	writeFile(t, memory.DefaultAllocator, path, testMeta(), 0, rows)
	_, got, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(rows) {
		t.Fatalf("%d rows read, want %d", len(got), len(rows))
	}
	for i, r := range got {
		if r.Status != rows[i].Status || r.Error != rows[i].Error {
			t.Errorf("row %d: %s %q, want %s %q", i, r.Status, r.Error, rows[i].Status, rows[i].Error)
		}
	}
}

func TestBatchesFlush(t *testing.T) {
	tests := []struct {
		rows, batch, wantBatches int
	}{
		{0, 3, 0}, {1, 3, 1}, {3, 3, 1}, {10, 3, 4}, {10, 0, 1},
	}
	for _, tt := range tests {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		path := filepath.Join(t.TempDir(), "run.arrow")
		w, err := newWriter(path, testMeta(), WriterOptions{BatchRows: tt.batch}, mem)
		if err != nil {
			t.Fatal(err)
		}
		r := testRows()[0]
		for i := 0; i < tt.rows; i++ {
			if err := w.Write(r); err != nil {
				t.Fatal(err)
			}
			// After a full batch the builders are empty again: memory
			// stays at one batch, however many rows are written.
			if tt.batch > 0 && (i+1)%tt.batch == 0 && w.n != 0 {
				t.Fatalf("rows=%d batch=%d: %d rows still buffered after row %d", tt.rows, tt.batch, w.n, i+1)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		mem.AssertSize(t, 0)
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		fr, err := ipc.NewFileReader(f)
		if err != nil {
			t.Fatal(err)
		}
		if got := fr.NumRecords(); got != tt.wantBatches {
			t.Errorf("rows=%d batch=%d: got %d batches, want %d", tt.rows, tt.batch, got, tt.wantBatches)
		}
		fr.Close()
		f.Close()
		_, rows, err := ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != tt.rows {
			t.Errorf("rows=%d batch=%d: read %d rows", tt.rows, tt.batch, len(rows))
		}
	}
}

func TestRefuseOverwrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "run.arrow")
	writeFile(t, memory.DefaultAllocator, path, testMeta(), 0, testRows())
	if _, err := NewWriter(path, testMeta(), 0); !errors.Is(err, fs.ErrExist) {
		t.Errorf("NewWriter on existing file: err = %v, want fs.ErrExist", err)
	}
	// A file that appears while the writer runs is not overwritten either.
	other := filepath.Join(dir, "other.arrow")
	w, err := NewWriter(other, testMeta(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(other, []byte("precious"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); !errors.Is(err, fs.ErrExist) {
		t.Errorf("Close over a new file: err = %v, want fs.ErrExist", err)
	}
	if b, _ := os.ReadFile(other); string(b) != "precious" {
		t.Errorf("file was overwritten: %q", b)
	}
}

func TestReadDirSkipsPartial(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "conv2d", "pocl-cpu")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, memory.DefaultAllocator, filepath.Join(sub, "b.arrow"), testMeta(), 0, testRows()[:2])
	writeFile(t, memory.DefaultAllocator, filepath.Join(dir, "a.arrow"), testMeta(), 0, testRows()[:1])
	// An unfinished writer leaves only a partial file.
	w, err := NewWriter(filepath.Join(sub, "c.arrow"), testMeta(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(testRows()[0]); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("x"), 0o644)

	files, err := ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	var rows []int
	for _, f := range files {
		rel, _ := filepath.Rel(dir, f.Path)
		got = append(got, rel)
		rows = append(rows, len(f.Rows))
	}
	want := []string{"a.arrow", filepath.Join("conv2d", "pocl-cpu", "b.arrow")}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ReadDir paths = %v, want %v", got, want)
	}
	if !reflect.DeepEqual(rows, []int{1, 2}) {
		t.Errorf("ReadDir rows = %v, want [1 2]", rows)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if files, _ = ReadDir(dir); len(files) != 3 {
		t.Errorf("after Close, ReadDir found %d files, want 3", len(files))
	}
}

func TestWriterErrors(t *testing.T) {
	dir := t.TempDir()
	bad := testMeta()
	bad.Reference = features.Config{1}
	tests := []struct {
		name  string
		meta  Meta
		batch int
	}{
		{"no kernel", Meta{}, 0},
		{"negative batch", testMeta(), -1},
		{"short reference", bad, 0},
		{"duplicate column", Meta{Kernel: "k", TaskNames: []string{"n", "n"}}, 0},
	}
	for _, tt := range tests {
		if _, err := NewWriter(filepath.Join(dir, tt.name+".arrow"), tt.meta, tt.batch); err == nil {
			t.Errorf("%s: NewWriter succeeded, want an error", tt.name)
		}
	}
	w, err := NewWriter(filepath.Join(dir, "ok.arrow"), testMeta(), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.Write(Row{Task: features.Task{1}, Config: features.Config{8, 1}}); err == nil {
		t.Error("Write of a short task succeeded, want an error")
	}
	if err := w.Write(Row{Task: features.Task{1, 2}, Config: features.Config{8}}); err == nil {
		t.Error("Write of a short configuration succeeded, want an error")
	}
}

func TestReadFileErrors(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.arrow")
	os.WriteFile(garbage, []byte("not arrow at all"), 0o644)
	if _, _, err := ReadFile(garbage); err == nil {
		t.Error("ReadFile(garbage) succeeded, want an error")
	}
	if _, _, err := ReadFile(filepath.Join(dir, "missing.arrow")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadFile(missing): err = %v, want fs.ErrNotExist", err)
	}
}

func FuzzRoundTrip(f *testing.F) {
	f.Add(int64(512), int64(8), "ok", 1000.0, 0.5, 7, "", "width", []byte(nil), false)
	f.Add(int64(-1), int64(0), "compile_error", 0.0, math.NaN(), 0, "error: \x00 ünïcode\n", "h", []byte(nil), false)
	f.Add(int64(512), int64(8), "ok", 0.0, 0.5, 0, "", "width", []byte{0xe8, 3, 0xde, 3, 0xf2, 3}, true)
	f.Add(int64(512), int64(8), "ok", 1000.0, 0.5, 0, "", "width", []byte{}, true)
	// runs holds the timed runs, two bytes each (little-endian);
	// summarize sets the row's times and repeats from them, so that
	// most rows with runs are ones a measurement can produce.
	f.Fuzz(func(t *testing.T, task, param int64, status string, timeNs, logSpeedup float64, repeats int, msg, taskName string, runs []byte, summarize bool) {
		meta := testMeta()
		meta.TaskNames = []string{taskName}
		meta.Source = msg
		r := Row{Task: features.Task{int(task)}, Config: features.Config{int(param), 2}, Status: Status(status),
			TimeNs: timeNs, Repeats: repeats, LogSpeedup: logSpeedup, Error: msg}
		if runs != nil {
			r.Runs = make([]int64, 0, len(runs)/2)
			for i := 0; i+2 <= len(runs); i += 2 {
				r.Runs = append(r.Runs, int64(runs[i])|int64(runs[i+1])<<8)
			}
			if summarize && len(r.Runs) > 0 {
				xs := make([]float64, len(r.Runs))
				for i, v := range r.Runs {
					xs[i] = float64(v)
				}
				r.TimeNs, r.TimeMinNs, r.TimeCV = Summarize(xs)
				r.Repeats = len(r.Runs)
			}
		}
		path := filepath.Join(t.TempDir(), "f.arrow")
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		w, err := newWriter(path, meta, WriterOptions{BatchRows: 2}, mem)
		if err != nil {
			return // a meta the schema rejects, such as a duplicate column
		}
		for i := 0; i < 3; i++ {
			if err := w.Write(r); err != nil {
				if errors.Is(err, ErrInvalidRow) && i == 0 {
					w.Close()
					return // a row no measurement can produce
				}
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		f, err := readWhole(path, mem, ReadOptions{Runs: true})
		if err != nil {
			t.Fatal(err)
		}
		gotMeta, rows := f.Meta, f.Rows
		mem.AssertSize(t, 0)
		if gotMeta.Source != msg || !reflect.DeepEqual(gotMeta.TaskNames, meta.TaskNames) {
			t.Errorf("meta source %q names %q, want %q %q", gotMeta.Source, gotMeta.TaskNames, msg, meta.TaskNames)
		}
		if r.Status != StatusOK {
			r.LogSpeedup = math.NaN()
		}
		for i, got := range rows {
			if !sameRow(got, r) {
				t.Errorf("row %d = %+v, want %+v", i, got, r)
			}
		}
		if len(rows) != 3 {
			t.Errorf("got %d rows, want 3", len(rows))
		}
	})
}

// BenchmarkWrite writes a file of 10000 rows; the figure is per file.
func BenchmarkWrite(b *testing.B) {
	rows := testRows()
	dir := b.TempDir()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		w, err := NewWriter(filepath.Join(dir, "f"+strconv.Itoa(i)+".arrow"), testMeta(), 0)
		if err != nil {
			b.Fatal(err)
		}
		for k := 0; k < 10000; k++ {
			if err := w.Write(rows[k%len(rows)]); err != nil {
				b.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadFile reads a file of 10000 rows; the figures are per file.
func BenchmarkReadFile(b *testing.B) {
	rows := testRows()
	path := filepath.Join(b.TempDir(), "f.arrow")
	w, err := NewWriter(path, testMeta(), 0)
	if err != nil {
		b.Fatal(err)
	}
	for k := 0; k < 10000; k++ {
		if err := w.Write(rows[k%len(rows)]); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	// summary reads as training does, the runs left unread; runs reads
	// them too (two of testRows' four rows keep 7 runs).
	for _, bc := range []struct {
		name string
		opt  ReadOptions
	}{{"summary", ReadOptions{}}, {"runs", ReadOptions{Runs: true}}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := ReadFileWith(path, bc.opt); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
