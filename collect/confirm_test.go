package collect

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/augur-tuning/augur/collect/record"
)

// TestConfirm re-times each shape's fastest configurations with more
// repeats into a second file, and a second Confirm finds nothing to do.
func TestConfirm(t *testing.T) {
	skipWithoutDevice(t)
	k := scaleKernel(t)
	dir := t.TempDir()
	opt := Options{Sample: "all", Repeats: 1, Seed: 1, Workers: 2}
	run, err := Run(context.Background(), k, dir, opt)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := Confirm(context.Background(), k, dir, opt, ConfirmOptions{Top: 2})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(filepath.Base(sum.Path), "confirm-") {
		t.Fatalf("confirmation written to %q, want a confirm-*.arrow file", sum.Path)
	}
	meta, rows, err := record.ReadFileWith(sum.Path, record.ReadOptions{Runs: true})
	if err != nil {
		t.Fatal(err)
	}
	// The second pass records the first pass's measured features.
	if meta.Platform != run.Platform || run.Platform.FP32GFLOPs == 0 {
		t.Errorf("confirm file's platform %+v, want the run's measured %+v", meta.Platform, run.Platform)
	}
	if want := 2 * len(k.Tasks); len(rows) != want {
		t.Errorf("%d confirmed rows, want %d (2 a shape)", len(rows), want)
	}
	for _, r := range rows {
		if r.Status == record.StatusOK && (r.Repeats != 3 || len(r.Runs) != 3) {
			t.Errorf("confirmed row %v on %v has %d repeats and runs %v, want 3", r.Config, r.Task, r.Repeats, r.Runs)
		}
	}
	// A second pass never times a confirmed row again; it times only
	// configurations that the first pass's new timings moved into a
	// shape's fastest two.
	again, err := Confirm(context.Background(), k, dir, opt, ConfirmOptions{Top: 2})
	if err != nil {
		t.Fatal(err)
	}
	if again.Path != "" {
		_, more, err := record.ReadFile(again.Path)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range more {
			for _, r := range rows {
				if r.Task.Key() == m.Task.Key() && r.Config.Equal(m.Config) {
					t.Errorf("second Confirm timed %v on %v again", m.Config, m.Task)
				}
			}
		}
	}
	if _, err := Confirm(context.Background(), k, dir, opt, ConfirmOptions{Top: -1}); err == nil {
		t.Error("Top -1 accepted")
	}
}

// TestRunMaxPrograms stops runs after one program, and after one byte of
// memory growth, and resumes them until they are done: the runs together
// record every pair a single run records, each once.
func TestRunMaxPrograms(t *testing.T) {
	skipWithoutDevice(t)
	k := scaleKernel(t)
	whole, err := Run(context.Background(), k, t.TempDir(), Options{Sample: "all", Repeats: 1, Seed: 1, Workers: 1, NoBench: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		opt  Options
	}{
		{"programs", Options{MaxPrograms: 1}},
		{"memory", Options{MaxGrowthBytes: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opt := tc.opt
			opt.Sample, opt.Repeats, opt.Seed, opt.Workers, opt.NoBench = "all", 1, 1, 1, true
			if opt.MaxGrowthBytes > 0 {
				// A resident figure that grows by a byte a reading, so
				// that the limit trips between two batches whatever the
				// allocator does with a few tiny programs.
				var rss int64 = 1 << 20
				opt.residentBytes = func() int64 { rss++; return rss }
			}
			dir := t.TempDir()
			got := map[record.Status]int{}
			stops := 0
			for {
				sum, err := Run(context.Background(), k, dir, opt)
				if sum != nil {
					for s, n := range sum.Counts {
						got[s] += n
					}
				}
				if err == nil {
					break
				}
				if !errors.Is(err, ErrProgramLimit) {
					t.Fatal(err)
				}
				if stops++; stops > 100 {
					t.Fatal("no end after 100 runs")
				}
			}
			if stops == 0 {
				t.Error("the limit never stopped a run")
			}
			for s, n := range whole.Counts {
				if got[s] != n {
					t.Errorf("status %s: %d rows over %d stopped runs, %d in one run", s, got[s], stops+1, n)
				}
			}
		})
	}
}
