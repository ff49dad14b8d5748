package importer

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/augur-tuning/augur/collect/record"
	"github.com/augur-tuning/augur/features"
)

// cancelAfter is a context whose Err turns context.Canceled after its
// first n calls, as an interrupt arriving partway.
type cancelAfter struct {
	context.Context
	calls, n int64
}

func (c *cancelAfter) Err() error {
	if atomic.AddInt64(&c.calls, 1) > c.n {
		return context.Canceled
	}
	return nil
}

// TestImportInterrupted stops an import at every point it checks its
// context, reading or writing, and finds nothing left behind.
func TestImportInterrupted(t *testing.T) {
	dir := t.TempDir()
	var inputs []string
	for _, name := range []string{"a.json", "b.json"} {
		cache := filepath.Join(dir, name)
		os.WriteFile(cache, []byte(`{"device_name": "NVIDIA A100", "problem_size": 1000,
			"tune_params_keys": ["bx"], "tune_params": {"bx": [16, 32, 64]}, "cache": {
			"16": {"bx": 16, "time": 4, "times": [4]},
			"32": {"bx": 32, "time": 2, "times": [2]},
			"64": {"bx": 64, "time": 3, "times": [3]}}}`), 0o644)
		inputs = append(inputs, cache)
	}
	// Two inputs of three rows, each read, then each written: 12 checks.
	for n := int64(0); n < 12; n++ {
		out := filepath.Join(t.TempDir(), "out")
		ctx := &cancelAfter{Context: t.Context(), n: n}
		_, err := Import(ctx, Options{From: FromKernelTuner, Files: inputs, Kernel: "k", Out: out})
		if err == nil || !strings.Contains(err.Error(), "interrupted, nothing written") {
			t.Fatalf("cancelled after %d checks: error %v, want an interruption", n, err)
		}
		var left []string
		filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				left = append(left, p)
			}
			return nil
		})
		if len(left) > 0 {
			t.Errorf("cancelled after %d checks: left %q", n, left)
		}
	}
}

// TestLeftovers lists the temporary files of a dead import, not those of a
// running one nor dataset files.
func TestLeftovers(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "k", "nvidia-a100")
	os.MkdirAll(sub, 0o755)
	dead := []string{
		filepath.Join(sub, ".import-a.arrow.tmp-123.partial"),
		filepath.Join(sub, ".import-a.arrow.tmp-456"),
		filepath.Join(sub, ".import-b.arrow.tmp-789.compact"),
	}
	for _, p := range append(slices.Clone(dead), filepath.Join(sub, "import-a.arrow"), filepath.Join(sub, "run-1.arrow.partial")) {
		os.WriteFile(p, []byte("x"), 0o644)
	}
	// A running import's file: its writer holds the lock.
	w, err := record.Create(filepath.Join(sub, ".import-c.arrow.tmp-1"), record.Meta{Kernel: "k", Params: []features.Param{{Name: "bx", Values: []int{1}}}}, record.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	got, err := Leftovers(dir)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(dead)
	if !slices.Equal(got, dead) {
		t.Errorf("Leftovers = %q, want %q", got, dead)
	}
}
