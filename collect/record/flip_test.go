package record

import (
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// flipSource is the recorded dataset file the flip sweep damages, after
// rewriting it with checksums: stencil on the H100, 9.7 KB as recorded.
const flipSource = "../../testdata/stencil-h100/stencil/nvidia-h100-80gb-hbm3/run-20261126T044834.301Z.arrow"

// flipOutcome counts what single-bit flips of a file did to ReadFile.
type flipOutcome struct {
	flips, detected, harmless int
	// silent counts flips read without an error as other data, by what
	// changed: "rows" (their count), "shape", "config", "values", "meta".
	silent   map[string]int
	examples []string
}

// sweepFlips flips each bit of good whose index is a multiple of every
// (1: all of them), reads the result, and sorts the outcome.
func sweepFlips(t *testing.T, good []byte, every int) flipOutcome {
	t.Helper()
	path := filepath.Join(t.TempDir(), "flipped.arrow")
	if err := os.WriteFile(path, good, 0o644); err != nil {
		t.Fatal(err)
	}
	wantMeta, wantRows, err := ReadFileWith(path, ReadOptions{Runs: true})
	if err != nil {
		t.Fatal(err)
	}
	out := flipOutcome{silent: map[string]int{}}
	b := append([]byte(nil), good...)
	for bit := 0; bit < 8*len(good); bit += every {
		b[bit/8] ^= 1 << (bit % 8)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		b[bit/8] ^= 1 << (bit % 8)
		out.flips++
		meta, rows, err := ReadFileWith(path, ReadOptions{Runs: true})
		if err != nil {
			out.detected++
			if strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), path) {
				t.Errorf("bit %d: error is not one line naming the file: %q", bit, err)
			}
			continue
		}
		what := ""
		switch {
		case len(rows) != len(wantRows):
			what = "rows"
		case !reflect.DeepEqual(meta, wantMeta):
			what = "meta"
		default:
			for i := range rows {
				switch {
				case !reflect.DeepEqual(rows[i].Task, wantRows[i].Task):
					what = "shape"
				case !reflect.DeepEqual(rows[i].Config, wantRows[i].Config):
					what = "config"
				case !sameRowNaN(rows[i], wantRows[i]):
					what = "values"
				}
				if what != "" {
					break
				}
			}
		}
		if what == "" {
			out.harmless++
			continue
		}
		out.silent[what]++
		if len(out.examples) < 5 {
			out.examples = append(out.examples, "bit "+strconv.Itoa(bit)+": "+what)
		}
	}
	return out
}

// sameRowNaN is sameRow without changing its arguments.
func sameRowNaN(a, b Row) bool {
	if math.IsNaN(a.LogSpeedup) && math.IsNaN(b.LogSpeedup) {
		a.LogSpeedup, b.LogSpeedup = 0, 0
	}
	return sameRow(a, b)
}

// checksummed rewrites the dataset file at src with this package's writer,
// as one of the given compression, and returns the new file's bytes. The
// file predates the times_ns column; its ok rows get runs that have their
// summary (syntheticRuns), so that flips in the runs are swept too.
func checksummed(t *testing.T, src string, c Compression) []byte {
	t.Helper()
	meta, rows, err := ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	withRuns := 0
	for i := range rows {
		if rows[i].Runs = syntheticRuns(rows[i]); rows[i].Runs != nil {
			withRuns++
		}
	}
	if withRuns < len(rows)/2 {
		t.Fatalf("%d of %d rows given runs, want most", withRuns, len(rows))
	}
	path := filepath.Join(t.TempDir(), "run.arrow")
	w, err := Create(path, meta, WriterOptions{Compression: c})
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
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestFlipSweep flips single bits of a recorded dataset file written with
// checksums: every flip must be detected, with a one-line error naming
// the file, or harmless (the same metadata and rows). make test flips
// every 61st bit; AUGUR_FLIP_SWEEP=1 flips every bit, of the zstd file and
// the uncompressed one, and logs the counts (bench/RESULTS.md).
func TestFlipSweep(t *testing.T) {
	every := 61
	full := os.Getenv("AUGUR_FLIP_SWEEP") != ""
	if full {
		every = 1
	}
	for _, c := range []Compression{CompressionZstd, CompressionNone} {
		if !full && c == CompressionNone {
			continue
		}
		good := checksummed(t, flipSource, c)
		o := sweepFlips(t, good, every)
		t.Logf("%s, %d bytes: %d flips, %d detected, %d harmless, silent %v", c, len(good), o.flips, o.detected, o.harmless, o.silent)
		if len(o.silent) != 0 {
			t.Errorf("%s: %d flips changed the data silently: %v, e.g. %v", c, o.flips-o.detected-o.harmless, o.silent, o.examples)
		}
	}
}

// syntheticRuns returns Repeats runs of an ok row whose minimum and median
// are the row's to the nanosecond (checkRuns' tolerance), nil when it
// finds none.
func syntheticRuns(r Row) []int64 {
	if r.Status != StatusOK || r.Repeats < 1 {
		return nil
	}
	lo, mid := math.Round(r.TimeMinNs), math.Round(r.TimeNs)
	runs := make([]int64, r.Repeats)
	for i := range runs {
		runs[i] = int64(mid)
	}
	runs[0] = int64(lo)
	if r.Repeats == 2 {
		runs[1] = int64(2*mid - lo)
	}
	if checkRuns(Row{Status: r.Status, Repeats: r.Repeats, TimeNs: r.TimeNs, TimeMinNs: r.TimeMinNs, Runs: runs}) != nil {
		return nil
	}
	return runs
}
