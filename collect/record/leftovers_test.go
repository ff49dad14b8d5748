package record

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestLeftovers(t *testing.T) {
	rows := testRows()
	tests := []struct {
		name     string
		setup    func(t *testing.T, dir string) *Writer // a live writer to close, or nil
		want     []int                                  // rows of each leftover
		wantLine string
	}{
		{"none", func(t *testing.T, dir string) *Writer { return nil }, nil, ""},
		{"killed writer", func(t *testing.T, dir string) *Writer {
			killedWriter(t, filepath.Join(dir, "run.arrow"), rows, 0)
			return nil
		}, []int{len(rows)}, "1 files of an interrupted collect hold 4 rows"},
		{"killed writer without rows", func(t *testing.T, dir string) *Writer {
			killedWriter(t, filepath.Join(dir, "run.arrow"), nil, 0)
			return nil
		}, nil, ""},
		{"live writer", func(t *testing.T, dir string) *Writer {
			w, err := Create(filepath.Join(dir, "run.arrow"), testMeta(), WriterOptions{FlushRows: 1})
			if err != nil {
				t.Fatal(err)
			}
			w.Write(rows[0])
			return w
		}, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if w := tt.setup(t, dir); w != nil {
				defer w.Close()
			}
			ls, err := Leftovers(dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(ls) != len(tt.want) {
				t.Fatalf("Leftovers = %+v, want %d files", ls, len(tt.want))
			}
			for i, l := range ls {
				if l.Rows != tt.want[i] {
					t.Errorf("%s: %d rows, want %d", l.Path, l.Rows, tt.want[i])
				}
			}
			line := DescribeLeftovers(ls, "augur recover --data "+dir)
			if !strings.Contains(line, tt.wantLine) || strings.Contains(line, "\n") || (tt.wantLine == "") != (line == "") {
				t.Errorf("line %q, want one line with %q", line, tt.wantLine)
			}
			if len(ls) > 0 {
				// The command named recovers them, after which none is left.
				if _, err := Recover(dir, WriterOptions{}); err != nil {
					t.Fatal(err)
				}
				if ls, _ := Leftovers(dir); len(ls) != 0 {
					t.Errorf("after Recover: %+v", ls)
				}
			}
		})
	}
}
