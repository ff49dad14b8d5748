package collect

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/augur-tuning/augur/collect/record"
	"github.com/augur-tuning/augur/features"
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
	// An interrupted pass writes nothing and still reports its time.
	stopped, cancel := context.WithCancel(context.Background())
	cancel()
	if sum, err := Confirm(stopped, k, dir, opt, ConfirmOptions{Top: 2}); err == nil || sum == nil || sum.Wall <= 0 || sum.Path != "" {
		t.Errorf("Confirm on a cancelled context: summary %+v, error %v; want an error, no file and the time spent", sum, err)
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

// TestToConfirm chooses a shape's fastest rows, then random others as
// anchors, never a row already timed with the confirmation's repeats.
func TestToConfirm(t *testing.T) {
	rows := map[string]record.Row{}
	for i := range 10 {
		c := features.Config{i}
		rows[fmt.Sprint(c)] = record.Row{Config: c, Status: record.StatusOK, TimeNs: float64(100 + i), Repeats: 5}
	}
	done := rows[fmt.Sprint(features.Config{1})]
	done.Repeats = 15
	rows[fmt.Sprint(features.Config{1})] = done // confirmed before: never again
	rows["failed"] = record.Row{Config: features.Config{99}, Status: record.StatusLaunchError}
	tests := []struct {
		name        string
		co          ConfirmOptions
		also        []features.Config
		top         []int // the configurations chosen for their rank or asked for
		wantAnchors int
	}{
		// The second fastest was confirmed before: the fastest two by
		// rank leave one to time.
		{"top only", ConfirmOptions{Top: 2, Repeats: 15}, nil, []int{0}, 0},
		{"anchors", ConfirmOptions{Top: 2, Repeats: 15, Anchors: 3}, nil, []int{0}, 3},
		{"more anchors than rows", ConfirmOptions{Top: 2, Repeats: 15, Anchors: 50}, nil, []int{0}, 8},
		{"nothing to confirm, no anchors", ConfirmOptions{Top: 2, Repeats: 5, Anchors: 3}, nil, nil, 0},
		// Asked-for configurations join the fastest, in rank order; one
		// confirmed before, one that failed and one never recorded are
		// passed over.
		{"also", ConfirmOptions{Top: 2, Repeats: 15, Anchors: 2}, []features.Config{{7}, {4}, {1}, {99}, {42}}, []int{0, 4, 7}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			configs, refNs, anchors := toConfirm(rows, tt.co, tt.also, rand.New(rand.NewPCG(1, 0)))
			if anchors != tt.wantAnchors || len(configs) != len(tt.top)+tt.wantAnchors || len(refNs) != len(configs) {
				t.Fatalf("%d configurations (%d anchors), want %d + %d", len(configs), anchors, len(tt.top), tt.wantAnchors)
			}
			seen := map[int]bool{}
			for i, c := range configs {
				if i < len(tt.top) && c[0] != tt.top[i] {
					t.Errorf("configuration %d is %v, want %d", i, c, tt.top[i])
				}
				if c[0] == 1 || c[0] == 99 || seen[c[0]] {
					t.Errorf("configuration %v chosen (confirmed before, failed, or twice)", c)
				}
				seen[c[0]] = true
			}
			again, _, _ := toConfirm(rows, tt.co, tt.also, rand.New(rand.NewPCG(1, 0)))
			if fmt.Sprint(again) != fmt.Sprint(configs) {
				t.Errorf("the same seed chose %v, then %v", configs, again)
			}
		})
	}
}

// TestConfirmAnchors times random rows beside the fastest and reports
// their new times over their first.
func TestConfirmAnchors(t *testing.T) {
	skipWithoutDevice(t)
	k := scaleKernel(t)
	dir := t.TempDir()
	opt := Options{Sample: "all", Repeats: 1, Seed: 1, Workers: 2}
	if _, err := Run(context.Background(), k, dir, opt); err != nil {
		t.Fatal(err)
	}
	sum, err := Confirm(context.Background(), k, dir, opt, ConfirmOptions{Top: 1, Anchors: 2})
	if err != nil {
		t.Fatal(err)
	}
	_, rows, err := record.ReadFile(sum.Path)
	if err != nil {
		t.Fatal(err)
	}
	if want := 3 * len(k.Tasks); len(rows) != want {
		t.Errorf("%d rows re-timed, want %d (the fastest and 2 random a shape)", len(rows), want)
	}
	if len(sum.Shift) != 2*len(k.Tasks) {
		t.Fatalf("Shift holds %d ratios, want %d", len(sum.Shift), 2*len(k.Tasks))
	}
	for _, r := range sum.Shift {
		if !(r > 0) {
			t.Errorf("ratio %g, want > 0", r)
		}
	}
	if !strings.Contains(sum.String(), "random rows re-timed at") {
		t.Errorf("summary lacks the shift: %s", sum)
	}
}

func TestDriftNote(t *testing.T) {
	for _, c := range []struct {
		n     int
		shift float64
		cpu   bool
		want  string // a word the note must hold; empty: no note
	}{
		{0, 0.5, false, ""},
		{8, 0, false, ""},
		{8, 1.02, false, ""},
		{8, 0.98, true, ""},
		{64, 0.903, false, "runs faster"},
		{64, 1.10, false, "runs slower"},
		{64, 1.10, true, "other work on the host"},
		{1, 0.51, true, "(from 1 row only"},
	} {
		got := driftNote(c.n, c.shift, c.cpu)
		if c.want == "" {
			if got != "" {
				t.Errorf("driftNote(%d, %v) = %q, want none", c.n, c.shift, got)
			}
			continue
		}
		if !strings.Contains(got, c.want) || !strings.HasPrefix(got, "collect: ") {
			t.Errorf("driftNote(%d, %v) = %q, want a note saying %q", c.n, c.shift, got, c.want)
		}
	}
}
