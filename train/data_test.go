package train

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/augur-tuning/augur/collect/record"
	"github.com/augur-tuning/augur/features"
)

// TestLoadSupersedes writes a row, then the same (task, config) again with
// more repeats (a confirmation pass) and with fewer: the row with the most
// repeats is the one trained on, once. MaxCV drops noisy rows.
func TestLoadSupersedes(t *testing.T) {
	dir := t.TempDir()
	p := synthPlatform("Only GPU", 16)
	sub := filepath.Join(dir, "synth", p.Slug())
	task, c := features.Task{512, 256}, features.Config{16, 2, 1}
	ok := func(timeNs, cv float64, repeats int) record.Row {
		return record.Row{Task: task, Config: c, Status: record.StatusOK, TimeNs: timeNs, RefTimeNs: 1000,
			LogSpeedup: math.Log(1000 / timeNs), TimeCV: cv, Repeats: repeats}
	}
	other := ok(400, 0.9, 5)
	other.Config = features.Config{8, 1, 1}
	for i, rows := range [][]record.Row{
		{ok(500, 0.1, 5), other},
		{ok(250, 0.05, 15)}, // the confirmation: supersedes
		{ok(100, 0.01, 3)},  // fewer repeats: ignored
	} {
		if err := mkdir(sub); err != nil {
			t.Fatal(err)
		}
		w, err := record.NewWriter(filepath.Join(sub, []string{"a", "b", "c"}[i]+".arrow"), synthMeta(p), 0)
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
	tests := []struct {
		maxCV float64
		rows  int
	}{{0, 2}, {0.5, 1}}
	for _, tt := range tests {
		d, err := LoadWith(dir, "synth", LoadOptions{MaxCV: tt.maxCV})
		if err != nil {
			t.Fatal(err)
		}
		if d.Len() != tt.rows {
			t.Fatalf("MaxCV %g: %d rows, want %d", tt.maxCV, d.Len(), tt.rows)
		}
		for i, s := range d.Samples() {
			if s.Config.Equal(c) && (s.TimeNs != 250 || d.Y[i] != math.Log(4)) {
				t.Errorf("MaxCV %g: row of %v has time %g, target %g; want the 15-repeat row (250 ns)", tt.maxCV, c, s.TimeNs, d.Y[i])
			}
		}
	}
	if _, err := LoadWith(dir, "synth", LoadOptions{MaxCV: -1}); err == nil {
		t.Error("MaxCV -1 accepted")
	}
}

func mkdir(dir string) error { return os.MkdirAll(dir, 0o755) }

func TestParseInvalid(t *testing.T) {
	for _, tt := range []struct {
		in      string
		want    Invalid
		wantErr bool
	}{
		{"ignore", InvalidIgnore, false},
		{"zeta", InvalidZeta, false},
		{"", 0, true},
		{"Zeta", 0, true},
	} {
		got, err := ParseInvalid(tt.in)
		if got != tt.want || (err != nil) != tt.wantErr {
			t.Errorf("ParseInvalid(%q) = %v, %v; want %v, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
		if err != nil && !strings.HasPrefix(err.Error(), "train: ") {
			t.Errorf("ParseInvalid(%q): error %q lacks the package prefix", tt.in, err)
		}
	}
}

// TestMeasuredBestsTies checks that of two configurations equally fast the
// one written first in name order is a shape's measured best, whichever
// row came first, as eval judges a device's best.
func TestMeasuredBestsTies(t *testing.T) {
	for _, order := range [][]features.Config{{{16, 2, 1}, {8, 1, 1}}, {{8, 1, 1}, {16, 2, 1}}} {
		dir := t.TempDir()
		p := synthPlatform("Only GPU", 16)
		sub := filepath.Join(dir, "synth", p.Slug())
		if err := mkdir(sub); err != nil {
			t.Fatal(err)
		}
		w, err := record.NewWriter(filepath.Join(sub, "a.arrow"), synthMeta(p), 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range order {
			r := record.Row{Task: features.Task{512, 256}, Config: c, Status: record.StatusOK, TimeNs: 400, RefTimeNs: 1000,
				LogSpeedup: math.Log(1000.0 / 400), Repeats: 5}
			if err := w.Write(r); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		d, err := Load(dir, "synth")
		if err != nil {
			t.Fatal(err)
		}
		bests := MeasuredBests(d)
		want := features.Config{16, 2, 1} // "16" sorts before "8" as text
		if len(bests) != 1 || !slices.Equal(bests[0].Config, want) {
			t.Errorf("rows in order %v: bests %+v, want one with %v", order, bests, want)
		}
	}
}
