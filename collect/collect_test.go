package collect

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/augur-tuning/augur/collect/opencl"
	"github.com/augur-tuning/augur/collect/record"
	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/features"
)

// scaleSource doubles a vector. MODE 1 is a syntax error, MODE 2 computes
// a wrong answer, MODE 3 declares more local memory than any device has
// (see scaleKernel's Geometry), so that one tiny kernel yields every status
// a test needs.
const scaleSource = `
__kernel void scale(__global const float *in, __global float *out, int n) {
#if MODE == 1
	this is not C
#endif
	int i = get_global_id(0);
	if (i < n) {
#if MODE == 2
		out[i] = 2.0f * in[i] + 1.0f;
#else
		out[i] = 2.0f * in[i];
#endif
	}
}
`

// scaleKernel is a kernel family small enough to collect in seconds.
func scaleKernel(t testing.TB) *datasets.Kernel {
	t.Helper()
	space, err := features.NewSpace([]features.Param{
		{Name: "WG", Values: []int{4, 16, 64, 1 << 20}},
		{Name: "MODE", Values: []int{0, 1, 2, 3}},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return datasets.Define(datasets.Kernel{
		Name:      "scale",
		Source:    scaleSource,
		Entry:     "scale",
		Space:     space,
		TaskNames: []string{"n"},
		Tasks:     []features.Task{{1000}, {4096}},
		Reference: features.Config{16, 0},
		Tolerance: 1e-6,
	}, datasets.Funcs{
		CheckTask: func(t features.Task) error {
			if t[0] < 1 {
				return fmt.Errorf("n must be >= 1, got %d", t[0])
			}
			return nil
		},
		Options: func(_ features.Task, c features.Config) string {
			return fmt.Sprintf("-D WG=%d -D MODE=%d", c[0], c[1])
		},
		Geometry: func(t features.Task, c features.Config) (datasets.Launch, error) {
			wg := c[0]
			l := datasets.Launch{Dims: 1, Global: [3]int{(t[0] + wg - 1) / wg * wg, 1, 1}, Local: [3]int{wg, 1, 1}}
			if c[1] == 3 {
				l.LocalMemBytes = 1 << 40
			}
			return l, nil
		},
		Args: func(t features.Task, rng *rand.Rand) []datasets.Arg {
			in := make([]float32, t[0])
			for i := range in {
				in[i] = rng.Float32()
			}
			return []datasets.Arg{
				{Name: "in", Kind: datasets.Input, Data: in},
				{Name: "out", Kind: datasets.Output, Len: t[0]},
				{Name: "n", Kind: datasets.Int32, Int: int32(t[0])},
			}
		},
		Want: func(_ features.Task, args []datasets.Arg) []float32 {
			out := make([]float32, len(args[0].Data))
			for i, v := range args[0].Data {
				out[i] = 2 * v
			}
			return out
		},
	})
}

// wantStatus is the status scaleKernel's configuration c must get.
func wantStatus(c features.Config) record.Status {
	switch {
	case c[0] == 1<<20 || c[1] == 3:
		return record.StatusPruned
	case c[1] == 1:
		return record.StatusCompileError
	case c[1] == 2:
		return record.StatusVerifyError
	}
	return record.StatusOK
}

func skipWithoutDevice(t testing.TB) {
	t.Helper()
	if _, err := opencl.Devices(); err != nil {
		t.Skipf("no OpenCL device: %v", err)
	}
}

func TestRunAndResume(t *testing.T) {
	skipWithoutDevice(t)
	k := scaleKernel(t)
	dir := t.TempDir()
	opt := Options{Sample: "all", Repeats: 2, Seed: 1, Workers: 2}
	sum, err := Run(context.Background(), k, dir, opt)
	if err != nil {
		t.Fatal(err)
	}
	n := len(k.Tasks) * k.Space.Len()
	if got := sum.Rows(); got != n {
		t.Errorf("Rows() = %d, want %d", got, n)
	}
	wantCounts := map[record.Status]int{}
	for _, c := range k.Space.All() {
		wantCounts[wantStatus(c)] += len(k.Tasks)
	}
	for s, want := range wantCounts {
		if got := sum.Counts[s]; got != want {
			t.Errorf("Counts[%s] = %d, want %d", s, got, want)
		}
	}
	if len(sum.TaskErrors) != 0 {
		t.Errorf("TaskErrors = %q, want none", sum.TaskErrors)
	}
	if sum.DeviceBusy <= 0 || sum.DeviceBusy > sum.Wall {
		t.Errorf("DeviceBusy = %v, want in (0, Wall = %v]", sum.DeviceBusy, sum.Wall)
	}
	// WG 4, 16 and 64 with MODE 0, 1 and 2 are the 9 configurations not
	// pruned; each compiles once for both tasks, and the 3 with MODE 1
	// fail.
	if got, want := sum.Programs, 9-3; got != want {
		t.Errorf("Programs = %d, want %d", got, want)
	}
	wantDir := filepath.Join(dir, "scale", sum.Platform.Slug())
	if filepath.Dir(sum.Path) != wantDir {
		t.Errorf("Path = %s, want a file in %s", sum.Path, wantDir)
	}

	meta, rows, err := record.ReadFileWith(sum.Path, record.ReadOptions{Runs: true})
	if err != nil {
		t.Fatal(err)
	}
	// The run measured the device first, and the file records it.
	if p := meta.Platform; !(p.GlobalBandwidthGBs > 0 && p.FP32GFLOPs > 0 && p.LocalBandwidthGBs > 0 && p.LaunchOverheadUs > 0) {
		t.Errorf("file's platform %+v lacks the measured features (notes %q)", p, sum.Notes)
	}
	if meta.Kernel != "scale" || meta.KernelVersion != k.Version() || meta.Platform != sum.Platform || meta.Source != "collect" {
		t.Errorf("Meta = %+v, want kernel scale version %s on %+v from collect", meta, k.Version(), sum.Platform)
	}
	if len(rows) != n {
		t.Fatalf("file holds %d rows, want %d", len(rows), n)
	}
	seen := map[string]bool{}
	for _, r := range rows {
		key := pairKey(r.Task, r.Config)
		if seen[key] {
			t.Errorf("pair %s recorded twice", key)
		}
		seen[key] = true
		name := fmt.Sprintf("n=%d %s", r.Task[0], k.Space.Format(r.Config))
		if got, want := r.Status, wantStatus(r.Config); got != want {
			t.Errorf("%s: status %s (%s), want %s", name, got, r.Error, want)
			continue
		}
		if r.RefTimeNs <= 0 {
			t.Errorf("%s: RefTimeNs = %v, want > 0", name, r.RefTimeNs)
		}
		switch r.Status {
		case record.StatusOK:
			if r.TimeNs <= 0 || r.TimeMinNs <= 0 || r.TimeMinNs > r.TimeNs || r.Repeats != 2 || r.CompileMs <= 0 {
				t.Errorf("%s: ok row %+v, want positive times, min <= median, 2 repeats, a compile time", name, r)
			}
			// The reader checked that the runs have the row's summary.
			if len(r.Runs) != r.Repeats {
				t.Errorf("%s: ok row keeps runs %v, want its %d", name, r.Runs, r.Repeats)
			}
			if want := math.Log(r.RefTimeNs / r.TimeNs); math.Abs(r.LogSpeedup-want) > 1e-9 {
				t.Errorf("%s: LogSpeedup = %v, want %v", name, r.LogSpeedup, want)
			}
			if r.Config.Equal(k.Reference) && r.LogSpeedup != 0 {
				t.Errorf("%s: reference LogSpeedup = %v, want 0", name, r.LogSpeedup)
			}
		default:
			if r.Error == "" || r.TimeNs != 0 || !math.IsNaN(r.LogSpeedup) {
				t.Errorf("%s: %s row %+v, want an error, no time, NaN log speedup", name, r.Status, r)
			}
		}
	}

	// A second run finds everything recorded and writes nothing.
	opt.NoBench = true
	again, err := Run(context.Background(), k, dir, opt)
	if err != nil {
		t.Fatal(err)
	}
	if again.Rows() != 0 || again.Skipped != n || again.Path != "" {
		t.Errorf("re-run wrote %d rows to %q and skipped %d, want 0 rows, no file, %d skipped", again.Rows(), again.Path, again.Skipped, n)
	}
	if again.Programs != 0 {
		t.Errorf("re-run compiled %d programs, want 0", again.Programs)
	}
}

// cancelAfter is a context whose Err reports cancellation from its n-th
// call on, so that a test can stop a run at a chosen point without timing.
type cancelAfter struct {
	context.Context
	calls, n atomic.Int64
}

func (c *cancelAfter) Err() error {
	if c.calls.Add(1) >= c.n.Load() {
		return context.Canceled
	}
	return nil
}

func TestRunCancelledKeepsRows(t *testing.T) {
	skipWithoutDevice(t)
	k := scaleKernel(t)
	dir := t.TempDir()
	ctx := &cancelAfter{Context: context.Background()}
	ctx.n.Store(20)
	sum, err := Run(ctx, k, dir, Options{Sample: "all", Repeats: 1, Workers: 1, NoBench: true})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run error = %v, want context.Canceled", err)
	}
	if sum == nil || sum.Path == "" {
		t.Fatalf("Summary = %+v, want a written file", sum)
	}
	_, rows, err := record.ReadFile(sum.Path)
	if err != nil {
		t.Fatalf("reading the interrupted run's file: %v", err)
	}
	if len(rows) != sum.Rows() || len(rows) == 0 || len(rows) >= len(k.Tasks)*k.Space.Len() {
		t.Errorf("file holds %d rows, summary %d; want the same, more than 0 and fewer than all", len(rows), sum.Rows())
	}
	if matches, _ := filepath.Glob(filepath.Join(filepath.Dir(sum.Path), "*.partial")); len(matches) != 0 {
		t.Errorf("partial files left behind: %v", matches)
	}

	// Resuming measures exactly what is missing.
	rest, err := Run(context.Background(), k, dir, Options{Sample: "all", Repeats: 1, Workers: 1, NoBench: true})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := rest.Rows()+rest.Skipped, len(k.Tasks)*k.Space.Len(); got != want || rest.Skipped != len(rows) {
		t.Errorf("resume wrote %d and skipped %d, want %d skipped and %d in all", rest.Rows(), rest.Skipped, len(rows), want)
	}
}

func TestMeasure(t *testing.T) {
	skipWithoutDevice(t)
	k := scaleKernel(t)
	configs := []features.Config{{64, 0}, {16, 0}, {4, 2}, {1 << 20, 0}}
	rows, err := Measure(context.Background(), k, features.Task{777}, configs, Options{Repeats: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(configs) {
		t.Fatalf("got %d rows, want %d", len(rows), len(configs))
	}
	for i, r := range rows {
		if !r.Config.Equal(configs[i]) || r.Task[0] != 777 {
			t.Errorf("row %d is for %v on %v, want %v on [777]", i, r.Config, r.Task, configs[i])
		}
		if got, want := r.Status, wantStatus(configs[i]); got != want {
			t.Errorf("row %d (%v): status %s (%s), want %s", i, configs[i], got, r.Error, want)
		}
	}
	if rows[1].LogSpeedup != 0 || rows[1].RefTimeNs != rows[1].TimeNs {
		t.Errorf("reference row %+v, want log speedup 0 and its own time as reference", rows[1])
	}
	if rows[0].RefTimeNs != rows[1].TimeNs {
		t.Errorf("row 0 RefTimeNs = %v, want the reference's time %v", rows[0].RefTimeNs, rows[1].TimeNs)
	}
}

func TestMeasureRejectsBadInput(t *testing.T) {
	k := scaleKernel(t)
	tests := []struct {
		name    string
		task    features.Task
		configs []features.Config
		opt     Options
	}{
		{"config outside the space", features.Task{10}, []features.Config{{5, 0}}, Options{}},
		{"bad task", features.Task{0}, nil, Options{}},
		{"task of wrong length", features.Task{10, 10}, nil, Options{}},
		{"negative repeats", features.Task{10}, nil, Options{Repeats: -1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := Measure(context.Background(), k, tt.task, tt.configs, tt.opt); err == nil {
				t.Errorf("Measure succeeded, want an error")
			}
		})
	}
}

func TestRunUnwritableDir(t *testing.T) {
	skipWithoutDevice(t)
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	// A directory cannot be made under a regular file, even as root.
	if _, err := Run(context.Background(), scaleKernel(t), file, Options{NoBench: true}); err == nil {
		t.Errorf("Run into a path under a file succeeded, want an error")
	}
}

func TestListDevices(t *testing.T) {
	skipWithoutDevice(t)
	ps, err := ListDevices()
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range ps {
		if p.Name == "" || p.MaxWorkGroupSize < 1 || p.ComputeUnits < 1 {
			t.Errorf("device %d: %+v, want a name, a work-group size and compute units", i, p)
		}
	}
}

func TestRunWhere(t *testing.T) {
	k := scaleKernel(t)
	for _, tc := range []struct{ where, wantErr string }{
		{"MODE ==", "Where"},
		{"MODE > 3", "leaves no valid configuration"},
	} {
		if err := Check(k, Options{Where: tc.where}); err == nil || !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("Check(Where %q) = %v, want an error containing %q", tc.where, err, tc.wantErr)
		}
	}
	skipWithoutDevice(t)
	dir := t.TempDir()
	sum, err := Run(context.Background(), k, dir, Options{Sample: "all", Repeats: 1, Workers: 1, Where: "MODE == 0 and WG < 64"})
	if err != nil {
		t.Fatal(err)
	}
	_, rows, err := record.ReadFile(sum.Path)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, r := range rows {
		if r.Config[1] != 0 || r.Config[0] >= 64 {
			t.Errorf("row of configuration %v, which Where excludes", r.Config)
		}
		seen[fmt.Sprint(r.Task, r.Config)] = true
	}
	if want := len(k.Tasks) * 2; len(seen) != want {
		t.Errorf("%d (task, configuration) pairs recorded, want %d", len(seen), want)
	}
}

func TestSampleEach(t *testing.T) {
	k := scaleKernel(t)
	if len(k.Tasks) < 2 {
		t.Fatalf("scale kernel has %d tasks, want 2 or more", len(k.Tasks))
	}
	n := 3
	union, wants := sampleEach(k.Space, 1, k.Tasks, n)
	sets := make([]map[string]bool, len(k.Tasks))
	for i, s := range k.Tasks {
		sets[i] = map[string]bool{}
		for _, c := range union {
			if wants(s, c) {
				sets[i][fmt.Sprint(c)] = true
			}
		}
		if len(sets[i]) != n {
			t.Errorf("task %v: %d configurations, want %d", s, len(sets[i]), n)
		}
	}
	if fmt.Sprint(sets[0]) == fmt.Sprint(sets[1]) {
		t.Errorf("tasks %v and %v drew the same sample %v", k.Tasks[0], k.Tasks[1], sets[0])
	}
	// A task's sample does not depend on the others.
	alone, wantsAlone := sampleEach(k.Space, 1, k.Tasks[1:2], n)
	for _, c := range alone {
		if !wantsAlone(k.Tasks[1], c) || !sets[1][fmt.Sprint(c)] {
			t.Errorf("task %v alone drew %v, not in its sample among all tasks %v", k.Tasks[1], c, sets[1])
		}
	}
	if other, _ := sampleEach(k.Space, 2, k.Tasks[:1], n); fmt.Sprint(other) == fmt.Sprint(alone) && fmt.Sprint(other) == fmt.Sprint(union[:n]) {
		t.Errorf("seeds 1 and 2 drew the same sample %v", other)
	}
}

func TestRunRandomEach(t *testing.T) {
	skipWithoutDevice(t)
	k := scaleKernel(t)
	dir := t.TempDir()
	opt := Options{Sample: "random-each:3", Repeats: 1, Seed: 1, Workers: 2, NoBench: true}
	sum, err := Run(context.Background(), k, dir, opt)
	if err != nil {
		t.Fatal(err)
	}
	_, rows, err := record.ReadFile(sum.Path)
	if err != nil {
		t.Fatal(err)
	}
	_, wants := sampleEach(k.Space, 1, k.Tasks, 3)
	per := map[features.TaskKey]int{}
	for _, r := range rows {
		if r.Config.Equal(k.Reference) {
			continue
		}
		if !wants(r.Task, r.Config) {
			t.Errorf("task %v measured %v, outside its sample", r.Task, r.Config)
		}
		per[r.Task.Key()]++
	}
	for _, s := range k.Tasks {
		n := 3
		if got := per[s.Key()]; got != n && got != n-1 { // n-1 when the sample holds the reference
			t.Errorf("task %v: %d rows besides the reference, want %d", s, got, n)
		}
	}
	again, err := Run(context.Background(), k, dir, opt)
	if err != nil {
		t.Fatal(err)
	}
	if again.Rows() != 0 {
		t.Errorf("second run measured %d rows, want 0 (all recorded)", again.Rows())
	}
}

func TestRunWarmUp(t *testing.T) {
	skipWithoutDevice(t)
	k := scaleKernel(t)
	// A task large enough that a run takes far longer than warm /
	// MaxWarmUpRuns (the warm-up stops there): the kernel's own tasks run
	// in a few microseconds on PoCL, where 4,096 runs fell short of 20 ms.
	const warm = 50 * time.Millisecond
	tasks := []features.Task{{1 << 18}}
	tests := []struct {
		name    string
		warmUp  time.Duration
		atLeast bool // the device's busy time is >= warm a configuration run
	}{
		{"warm", warm, true},
		{"first run only", -1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sum, err := Run(context.Background(), k, t.TempDir(), Options{Sample: "all", Tasks: tasks, Repeats: 2, Workers: 1, WarmUp: tt.warmUp, Where: "MODE == 0 and WG < 64"})
			if err != nil {
				t.Fatal(err)
			}
			ran := time.Duration(sum.Counts[record.StatusOK]) * warm
			if sum.Counts[record.StatusOK] == 0 {
				t.Fatalf("no configuration ran: %v", sum.Counts)
			}
			t.Logf("device busy %v for %d configurations, %v of warm-up each", sum.DeviceBusy, sum.Counts[record.StatusOK], warm)
			if got := sum.DeviceBusy >= ran; got != tt.atLeast {
				t.Errorf("device busy %v for %d configurations that ran, want >= %v: %v", sum.DeviceBusy, sum.Counts[record.StatusOK], ran, tt.atLeast)
			}
		})
	}
}

// TestCheckSampleAllHuge: Sample "all" of a space of billions of valid
// configurations is refused before anything is listed; random:N is not.
func TestCheckSampleAllHuge(t *testing.T) {
	vals := make([]int, 64)
	for i := range vals {
		vals[i] = i + 1
	}
	var params []features.Param
	for _, n := range []string{"a", "b", "c", "d", "e", "f"} {
		params = append(params, features.Param{Name: n, Values: vals})
	}
	s, err := features.NewSpace(params, []string{"a <= b"})
	if err != nil {
		t.Fatal(err)
	}
	k := &datasets.Kernel{Name: "huge", Space: s}
	err = Check(k, Options{Sample: "all"})
	if err == nil || !strings.Contains(err.Error(), fmt.Sprint(s.Len())) || !strings.Contains(err.Error(), "random:N") {
		t.Errorf("Check(Sample all) = %v, want an error naming the %d configurations and random:N", err, s.Len())
	}
	if err := Check(k, Options{Sample: "random:10"}); err != nil && strings.Contains(err.Error(), "sample \"") {
		t.Errorf("Check(random:10) = %v", err)
	}
}
