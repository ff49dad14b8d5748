package record

import (
	"bytes"
	"encoding/csv"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/augur-tuning/augur/features"
	"os"
	"path/filepath"
)

func TestCSVWriter(t *testing.T) {
	var b bytes.Buffer
	c := NewCSVWriter(&b)
	if err := c.Write("a.arrow", testMeta(), testRows()); err != nil {
		t.Fatal(err)
	}
	other := testMeta()
	other.Params = other.Params[:1]
	if err := c.Write("b.arrow", other, nil); err == nil || !strings.Contains(err.Error(), "b.arrow has the columns") {
		t.Errorf("a file of other columns: err = %v, want one naming b.arrow", err)
	}
	if err := c.Flush(); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	wantHeader := "file,platform,task.width,task.height,param.wg,param.unroll,status,time_ns,time_min_ns,time_cv,repeats,ref_time_ns,log_speedup,compile_ms,error,times_ns"
	if got := strings.Join(recs[0], ","); got != wantHeader {
		t.Errorf("header %s, want %s", got, wantHeader)
	}
	tests := []struct {
		row  int
		want string
	}{
		{0, "a.arrow,pocl-cpu-cpu-x,512,256,8,1,ok,1000,990,0.01,7,1000,0,210,,1000;990;1010;1000;1005;995;1000"},
		{1, "a.arrow,pocl-cpu-cpu-x,512,256,16,4,ok,500,480,0.02,7,1000,0.6931471805599453,190,,480;500;510;495;505;500;520"},
		{2, "a.arrow,pocl-cpu-cpu-x,64,64,16,4,compile_error,0,0,0,0,0,,0,error: use of undeclared identifier 'x'\n1 error generated.,"},
		{3, "a.arrow,pocl-cpu-cpu-x,64,64,8,2,ok,40,0,0,3,0,,0,,"},
	}
	if len(recs) != len(tests)+1 || c.Rows() != len(tests) {
		t.Fatalf("%d records, Rows %d; want %d rows", len(recs)-1, c.Rows(), len(tests))
	}
	for _, tt := range tests {
		if got := strings.Join(recs[tt.row+1], ","); got != tt.want {
			t.Errorf("row %d:\n%s\nwant\n%s", tt.row, got, tt.want)
		}
	}
}

// FuzzCSV writes a row with fuzzed timed runs and error message and reads
// the CSV back: one record, the runs and the message as they were.
func FuzzCSV(f *testing.F) {
	f.Add([]byte{0xe8, 3, 0xde, 3, 0xf2, 3}, "")
	f.Add([]byte{}, "a, \"quoted\"\nmessage")
	f.Add([]byte(nil), ";;\n")
	f.Add([]byte{1, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}, "")
	f.Fuzz(func(t *testing.T, runBytes []byte, msg string) {
		if !utf8.ValidString(msg) || strings.ContainsRune(msg, '\r') {
			// encoding/csv reads "\r\n" inside a quoted field back as "\n".
			return
		}
		var runs []int64
		if runBytes != nil {
			runs = []int64{}
		}
		for i := 0; i+8 <= len(runBytes); i += 8 {
			var v int64
			for k := range 8 {
				v |= int64(runBytes[i+k]) << (8 * k)
			}
			runs = append(runs, v)
		}
		r := Row{Task: features.Task{64, 64}, Config: features.Config{8, 1}, Status: StatusOK, TimeNs: 1.5,
			TimeCV: 1e-300, LogSpeedup: math.NaN(), Error: msg, Runs: runs}
		var b bytes.Buffer
		c := NewCSVWriter(&b)
		if err := c.Write("f.arrow", testMeta(), []Row{r}); err != nil {
			t.Fatal(err)
		}
		if err := c.Flush(); err != nil {
			t.Fatal(err)
		}
		recs, err := csv.NewReader(&b).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		if len(recs) != 2 {
			t.Fatalf("%d records, want a header and a row", len(recs))
		}
		got := recs[1]
		n := len(got)
		if got[n-2] != msg {
			t.Errorf("error %q, want %q", got[n-2], msg)
		}
		back, err := parseRuns(got[n-1])
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(back, runs) || (len(runs) == 0) != (got[n-1] == "") {
			t.Errorf("times_ns %q reads back as %v, want %v", got[n-1], back, runs)
		}
		if v, err := strconv.ParseFloat(got[n-7], 64); err != nil || v != r.TimeCV {
			t.Errorf("time_cv %q, want %v", got[n-7], r.TimeCV)
		}
	})
}

// TestWriteCSVDir writes every file under a directory, named from the
// root, runs included, and refuses a directory without dataset files.
func TestWriteCSVDir(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "k", "dev")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, nil, filepath.Join(dir, "a.arrow"), testMeta(), 2, testRows())
	writeFile(t, nil, filepath.Join(dir, "b.arrow"), testMeta(), 2, testRows())
	var b bytes.Buffer
	rows, files, err := WriteCSVDir(&b, root, filepath.Join(root, "k"), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if files != 2 || rows != 2*len(testRows()) {
		t.Errorf("%d rows of %d files, want %d of 2", rows, files, 2*len(testRows()))
	}
	if !strings.Contains(b.String(), "k/dev/b.arrow,") || !strings.Contains(b.String(), "1000;990;1010") {
		t.Errorf("output lacks the second file's name or a row's runs:\n%s", b.String())
	}
	for _, empty := range []string{t.TempDir(), filepath.Join(root, "none")} {
		if _, _, err := WriteCSVDir(&b, root, empty, ReadOptions{}); err == nil || !strings.Contains(err.Error(), "no dataset files") {
			t.Errorf("%s: err = %v, want no dataset files", empty, err)
		}
	}
}
