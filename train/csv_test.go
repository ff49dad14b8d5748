package train_test

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io/fs"
	"log"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/train"
)

// csvData is a two-row training set by hand: a measured row on a GPU and
// an invalid row (kept with a stand-in target) on a CPU.
func csvData() *train.Data {
	d := &train.Data{
		Kernel:    "k",
		TaskNames: []string{"width", "height"},
		Params:    []features.Param{{Name: "wg", Values: []int{8, 16}}, {Name: "vw", Values: []int{1, 2}}},
		Features:  []string{"task.width", "task.height", "param.wg", "param.vw"},
		Platforms: []features.Platform{
			{Name: "Big GPU", Type: "gpu"},
			{PlatformName: "Portable Computing Language", Name: "cpu-x", Type: "cpu"},
		},
	}
	rows := []struct {
		x []float64
		y float64
		s train.Sample
	}{
		{[]float64{512, 256, 16, 2}, 0.6931471805599453,
			train.Sample{Task: features.Task{512, 256}, Config: features.Config{16, 2}, Platform: 0, TimeNs: 1e6, RefTimeNs: 2e6}},
		{[]float64{1024, 1024, 8, 1}, train.DefaultZeta,
			train.Sample{Task: features.Task{1024, 1024}, Config: features.Config{8, 1}, Platform: 1}},
	}
	for _, r := range rows {
		if err := d.Append(r.x, r.y, r.s); err != nil {
			panic(err)
		}
	}
	return d
}

func TestWriteCSV(t *testing.T) {
	var buf bytes.Buffer
	if err := csvData().WriteCSV(&buf); err != nil {
		t.Fatal(err)
	}
	got, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatalf("output is not CSV: %v\n%s", err, buf.String())
	}
	want := [][]string{
		{"task.width", "task.height", "param.wg", "param.vw", "log_speedup", "time_ns", "ref_time_ns", "platform", "shape", "config"},
		{"512", "256", "16", "2", "0.6931471805599453", "1e+06", "2e+06", "big-gpu", "width=512,height=256", "wg=16,vw=2"},
		{"1024", "1024", "8", "1", "-2.302585092994046", "", "", "pocl-cpu-cpu-x", "width=1024,height=1024", "wg=8,vw=1"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d lines, want %d:\n%s", len(got), len(want), buf.String())
	}
	for i := range want {
		if !slices.Equal(got[i], want[i]) {
			t.Errorf("line %d:\ngot  %q\nwant %q", i, got[i], want[i])
		}
	}
}

// failWriter fails every write, as a full disk does.
type failWriter struct{}

var errDiskFull = errors.New("disk full")

func (failWriter) Write([]byte) (int, error) { return 0, errDiskFull }

func TestWriteCSVErrors(t *testing.T) {
	short := csvData()
	short.Y = short.Y[:1]
	badPlatform := csvData()
	badPlatform.Platforms = badPlatform.Platforms[:1] // row 1 is of the second
	tests := []struct {
		name string
		d    *train.Data
		want string
	}{
		{"short Y", short, "1 targets"},
		{"platform out of range", badPlatform, "row 1 has platform 1, data has 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			err := tt.d.WriteCSV(&buf)
			if err == nil || !strings.HasPrefix(err.Error(), "train: ") || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("WriteCSV error = %v, want one starting with train: and mentioning %q", err, tt.want)
			}
		})
	}
	t.Run("failing writer", func(t *testing.T) {
		if err := csvData().WriteCSV(failWriter{}); !errors.Is(err, errDiskFull) {
			t.Errorf("WriteCSV error = %v, want one wrapping %v", err, errDiskFull)
		}
	})
}

// ExampleData_WriteCSV exports the recorded PoCL measurements for a script
// outside Go: the feature columns, then the target, the times and the ids
// of platform, shape and configuration.
func ExampleData_WriteCSV() {
	d, err := train.Load("../testdata/data", "conv2d")
	if err != nil {
		log.Fatal(err)
	}
	var buf bytes.Buffer
	if err := d.WriteCSV(&buf); err != nil {
		log.Fatal(err)
	}
	rows, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		log.Fatal(err)
	}
	head, first := rows[0], rows[1]
	fmt.Println(len(rows)-1, "rows,", len(d.Features), "features")
	fmt.Println(strings.Join(head[len(head)-6:], " "))
	fmt.Println(first[len(first)-3], first[len(first)-2])
	fmt.Println(first[len(first)-1])
	// Output:
	// 735 rows, 26 features
	// log_speedup time_ns ref_time_ns platform shape config
	// pocl-cpu-pthread-skylake-avx512-amd-epyc width=512,height=512,filter_w=3,filter_h=3
	// Xwg=8,Ywg=8,Xwpt=1,Ywpt=1,LS=0,VW=1,PAD=0,UNR=0
}

// TestWriteCSVFile writes a new file, refuses to overwrite it, and leaves
// no file behind when the data cannot be written.
func TestWriteCSVFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rows.csv")
	if err := csvData().WriteCSVFile(path); err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	csvData().WriteCSV(&want)
	if got, err := os.ReadFile(path); err != nil || !bytes.Equal(got, want.Bytes()) {
		t.Errorf("file holds %q (%v), want %q", got, err, want.String())
	}
	if err := csvData().WriteCSVFile(path); !errors.Is(err, fs.ErrExist) {
		t.Errorf("second write: got %v, want an error wrapping fs.ErrExist", err)
	}
	short := csvData()
	short.Y = short.Y[:1]
	failed := filepath.Join(t.TempDir(), "short.csv")
	if err := short.WriteCSVFile(failed); err == nil || !strings.Contains(err.Error(), "1 targets") {
		t.Errorf("short Y: got %v, want the WriteCSV error", err)
	}
	if _, err := os.Stat(failed); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a failed write left %s behind (%v)", failed, err)
	}
}
