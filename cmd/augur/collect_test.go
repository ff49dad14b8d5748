package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow/go/v15/arrow/ipc"

	"github.com/augur-tuning/augur/collect"
	"github.com/augur-tuning/augur/collect/record"
	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/eval"
	"github.com/augur-tuning/augur/features"
)

// runMainEnv makes the test binary act as the augur command, so that a
// test can run a real collection in a process of its own and kill it.
const runMainEnv = "AUGUR_TEST_RUN_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(runMainEnv) == "1" {
		main()
		os.Exit(0)
	}
	// collect measures in child processes of its own executable: here,
	// this test binary acting as augur.
	os.Setenv(runMainEnv, "1")
	os.Exit(m.Run())
}

// streamRows counts the rows in the complete record batches of the Arrow
// stream at path: what a killed writer has put on disk so far.
func streamRows(path string) int {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	r, err := ipc.NewReader(f)
	if err != nil {
		return 0
	}
	defer r.Release()
	n := 0
	for r.Next() {
		n += int(r.Record().NumRows())
	}
	return n
}

// TestCollectSurvivesSignals stops a collecting process once some rows are
// on disk, with SIGKILL and with SIGTERM, resumes, and checks that no row
// on disk was lost, none is duplicated, every file reads, and nothing is
// left to measure.
func TestCollectSurvivesSignals(t *testing.T) {
	if _, err := collect.ListDevices(); err != nil {
		t.Skipf("no OpenCL device: %v", err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		sig   syscall.Signal
		twice bool
	}{
		{"SIGKILL", syscall.SIGKILL, false},
		{"SIGTERM", syscall.SIGTERM, false},
		// Two signals a moment apart, as timeout(1) sends them (to the
		// process, then to its group): one stop, between two
		// configurations. (A second signal later stops at once: collect's
		// TestStopOnSignalsEcho.)
		{"SIGINT twice a moment apart", syscall.SIGINT, true},
	} {
		sig := tc.sig
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			args := []string{"collect", "--kernel", "conv2d", "--out", dir, "--sample", "random:24",
				"--shapes", "width=64,height=64,filter_w=3,filter_h=3", "--repeats", "1", "--seed", "3"}
			cmd := exec.Command(exe, args...)
			cmd.Env = append(os.Environ(), runMainEnv+"=1")
			var stderr lockedBuffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Wait for a few rows in the partial file, then signal.
			seen := 0
			deadline := time.Now().Add(60 * time.Second)
			for seen < 3 {
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					cmd.Wait()
					t.Fatalf("no 3 rows on disk after 60 s; stderr: %s", stderr.String())
				}
				time.Sleep(20 * time.Millisecond)
				parts, _ := filepath.Glob(filepath.Join(dir, "conv2d", "*", "*.partial"))
				for _, p := range parts {
					seen = max(seen, streamRows(p))
				}
			}
			first := time.Now()
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			apart := time.Duration(0) // between the two signals sent
			if tc.twice {
				// Once the first is seen (its notice on stderr): coalesced
				// with it, the second would not be a second.
				for !strings.Contains(stderr.String(), "a second signal stops at once") {
					if time.Now().After(deadline) {
						t.Fatalf("no notice of the first signal; stderr: %s", stderr.String())
					}
					time.Sleep(time.Millisecond)
				}
				apart = time.Since(first)
				if err := cmd.Process.Signal(sig); err != nil && !errors.Is(err, os.ErrProcessDone) {
					t.Fatal(err)
				}
			}
			err := cmd.Wait()
			var exit *exec.ExitError
			if !errors.As(err, &exit) {
				t.Fatalf("process ended with %v, want a non-zero exit", err)
			}
			stoppedNow := strings.Contains(stderr.String(), "stopping now")
			switch {
			case sig == syscall.SIGKILL:
			case stoppedNow && apart >= 200*time.Millisecond:
				// A machine too busy to send the second signal well
				// inside collect.SignalEcho.
				t.Logf("%s: the second signal went %v after the first, and stopped the process at once", tc.name, apart)
			default:
				lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
				last := lines[len(lines)-1]
				if exit.ExitCode() != 1 || !strings.Contains(last, "collect: interrupted") {
					t.Errorf("%s: exit %d, last stderr line %q; want exit 1 and an interrupted message", tc.name, exit.ExitCode(), last)
				}
				if stoppedNow {
					t.Errorf("%s: stopped at once; stderr: %s", tc.name, stderr.String())
				}
				if parts, _ := filepath.Glob(filepath.Join(dir, "conv2d", "*", "*.partial")); len(parts) != 0 {
					t.Errorf("%s left partial files %v", tc.name, parts)
				}
			}

			// Resume in this process: the killed run's rows are recovered
			// and skipped.
			var out, errb bytes.Buffer
			if err := run(context.Background(), args, &out, &errb); err != nil {
				t.Fatalf("resume: %v\n%s", err, errb.String())
			}
			files, err := record.ReadDir(dir)
			if err != nil {
				t.Fatalf("after resume: %v", err)
			}
			if len(files) != 2 {
				t.Fatalf("after resume: %d files, want the interrupted run's and the resumed run's", len(files))
			}
			pairs := map[string]bool{}
			for _, f := range files {
				for _, r := range f.Rows {
					key := features.FormatTask(f.Meta.TaskNames, r.Task) + " " + fmt.Sprint(r.Config)
					if pairs[key] {
						t.Errorf("pair %s recorded twice", key)
					}
					pairs[key] = true
				}
			}
			if first := len(files[0].Rows); first < seen {
				t.Errorf("the interrupted run's file holds %d rows, but %d were on disk before the signal", first, seen)
			}
			if !strings.Contains(errb.String(), "recovered") && sig == syscall.SIGKILL {
				t.Errorf("resume printed no recovery note: %q", errb.String())
			}

			// Nothing is left to measure.
			out.Reset()
			if err := run(context.Background(), args, &out, &errb); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(out.String(), "(nothing new)") || !strings.Contains(out.String(), " 0 rows") {
				t.Errorf("third run: %q, want nothing new", out.String())
			}
		})
	}
}

// TestCollectInChildren measures in child processes of two programs each
// (a child stops at the end of the compile batch that reaches them):
// every pair is recorded once, over several files, and the last child's
// summary reports the run complete.
func TestCollectInChildren(t *testing.T) {
	if _, err := collect.ListDevices(); err != nil {
		t.Skipf("no OpenCL device: %v", err)
	}
	dir := t.TempDir()
	args := []string{"collect", "--kernel", "conv2d", "--out", dir, "--sample", "random:20",
		"--shapes", "width=64,height=64,filter_w=3,filter_h=3", "--repeats", "1", "--programs-per-process", "2"}
	var out, errb bytes.Buffer
	if err := run(context.Background(), args, &out, &errb); err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	files, pairs := recordedPairs(t, dir)
	if len(pairs) != 21 {
		t.Errorf("%d pairs recorded, want 21 (20 sampled and the reference)", len(pairs))
	}
	if len(files) < 2 {
		t.Errorf("%d files: the run did not go through several children", len(files))
	}
}

// TestCollectFaults collects a spec kernel of which some configurations
// kill the measuring process and some never finish, in child processes:
// each is recorded (crash, timeout), the collection ends with status 0,
// and with --programs-per-process 0 the collection stops naming the
// configuration that does not finish.
func TestCollectFaults(t *testing.T) {
	if _, err := collect.ListDevices(); err != nil {
		t.Skipf("no OpenCL device: %v", err)
	}
	dir := t.TempDir()
	spec := "../../collect/testdata/specfault/fault.json"
	args := []string{"collect", "--spec", spec, "--out", dir, "--sample", "all", "--repeats", "1"}
	var out, errb bytes.Buffer
	// The configurations that finish first, with time for PoCL to build
	// its kernels for each work-group size at their first launch.
	if err := run(context.Background(), append(args, "--where", "FAULT == 0", "--timeout", "30s"), &out, &errb); err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	// In a process of its own: the kernel that does not finish runs on
	// until its process ends, and OpenCL work in the process waits
	// behind it.
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	alone, err := exec.Command(exe, "collect", "--spec", spec, "--out", t.TempDir(), "--sample", "all", "--repeats", "1",
		"--where", "WG == 16 and FAULT != 1", "--timeout", "1s", "--programs-per-process", "0").CombinedOutput()
	if want := "WG=16,FAULT=2 on n=1024 still ran 10s after its 1s timeout (recorded as a timeout): run collect again"; err == nil || !strings.Contains(string(alone), want) {
		t.Errorf("in one process: %v, want an error with %q:\n%s", err, want, alone)
	}
	errb.Reset()
	if err := run(context.Background(), append(args, "--timeout", "1s"), &out, &errb); err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	files, pairs := recordedPairs(t, dir)
	if len(pairs) != 6 {
		t.Errorf("%d pairs recorded, want 6", len(pairs))
	}
	for _, f := range files {
		for _, r := range f.Rows {
			want := []record.Status{record.StatusOK, record.StatusCrash, record.StatusTimeout}[r.Config[1]]
			if r.Status != want {
				t.Errorf("%v: %s (%s), want %s", r.Config, r.Status, r.Error, want)
			}
		}
	}
	for _, want := range []string{"WG=16,FAULT=1 on n=1024: the measuring process died of signal SIGSEGV", "WG=32,FAULT=2 on n=1024 still ran 1s after its 1s timeout (recorded as a timeout); a new measuring process goes on"} {
		if !strings.Contains(errb.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, errb.String())
		}
	}
}

// lockedBuffer is a bytes.Buffer that a child process's output may be
// written to while the test reads it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// recordedPairs reads the dataset files under dir and reports every
// (shape, configuration) recorded more than once; pairs holds each pair
// recorded.
func recordedPairs(t *testing.T, dir string) ([]record.File, map[string]bool) {
	t.Helper()
	files, err := record.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	pairs := map[string]bool{}
	for _, f := range files {
		for _, r := range f.Rows {
			key := fmt.Sprint(r.Task, r.Config)
			if pairs[key] {
				t.Errorf("pair %s recorded twice", key)
			}
			pairs[key] = true
		}
	}
	return files, pairs
}

// TestCollectConfirmOnly times again what a directory already holds:
// --sample none builds no first pass, and the second pass writes one
// confirm file with each shape's fastest configurations, more repeats a
// row.
func TestCollectConfirmOnly(t *testing.T) {
	if _, err := collect.ListDevices(); err != nil {
		t.Skipf("no OpenCL device: %v", err)
	}
	dir := t.TempDir()
	first := []string{"collect", "--kernel", "conv2d", "--out", dir, "--sample", "random:6",
		"--shapes", "width=64,height=64,filter_w=3,filter_h=3", "--repeats", "1", "--programs-per-process", "0"}
	var out, errb bytes.Buffer
	if err := run(context.Background(), first, &out, &errb); err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	empty := []string{"collect", "--kernel", "conv2d", "--out", t.TempDir(), "--sample", "none", "--confirm", "2"}
	if err := run(context.Background(), empty, &out, &errb); err == nil || !strings.Contains(err.Error(), "nothing recorded for conv2d") {
		t.Errorf("confirm of an empty directory: %v, want nothing recorded", err)
	}
	before, _ := recordedPairs(t, dir)
	again := []string{"collect", "--kernel", "conv2d", "--out", dir, "--sample", "none", "--confirm", "2", "--confirm-repeats", "3", "--confirm-anchors", "0"}
	out.Reset()
	if err := run(context.Background(), again, &out, &errb); err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	if !strings.Contains(out.String(), "confirmed: ") {
		t.Errorf("output lacks the confirm summary:\n%s", out.String())
	}
	files, err := record.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != len(before)+1 {
		t.Fatalf("%d files after the second pass, want %d (one more)", len(files), len(before)+1)
	}
	var last record.File
	for _, f := range files {
		if strings.Contains(filepath.Base(f.Path), "confirm-") {
			last = f
		}
	}
	if last.Path == "" {
		t.Fatal("no confirm file written")
	}
	if len(last.Rows) != 2 {
		t.Errorf("%d rows re-timed, want 2", len(last.Rows))
	}
	for _, r := range last.Rows {
		if r.Status == "ok" && r.Repeats != 3 {
			t.Errorf("re-timed row has %d repeats, want 3", r.Repeats)
		}
	}
}

// TestCollectConfirmPicks times again, beside each shape's fastest, the
// pick an evaluation's JSON names for this device's shape, and refuses the
// flag without --confirm or for a report of another device.
func TestCollectConfirmPicks(t *testing.T) {
	devs, err := collect.ListDevices()
	if err != nil {
		t.Skipf("no OpenCL device: %v", err)
	}
	const shape = "width=64,height=64,filter_w=3,filter_h=3"
	dir := t.TempDir()
	first := []string{"collect", "--kernel", "conv2d", "--out", dir, "--sample", "random:6",
		"--shapes", shape, "--repeats", "1", "--programs-per-process", "0"}
	var out, errb bytes.Buffer
	if err := run(context.Background(), first, &out, &errb); err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	k, err := datasets.Lookup("conv2d")
	if err != nil {
		t.Fatal(err)
	}
	files, err := record.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var slowest record.Row
	ok := 0
	for _, r := range files[0].Rows {
		if r.Status == record.StatusOK {
			ok++
			if r.TimeNs > slowest.TimeNs {
				slowest = r
			}
		}
	}
	if ok < 2 {
		t.Skipf("%d configurations ran, want 2", ok)
	}
	report := func(platform string) string {
		b, err := json.Marshal(eval.Report{Holdout: &eval.HoldoutReport{Mode: "shapes", Shapes: []eval.HoldoutShape{{
			Platform: platform, Shape: shape, Chosen: k.Space.Format(slowest.Config), Candidates: []string{k.Space.Format(slowest.Config)}}}}})
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "eval.json")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	mine, other := report(devs[0].Slug()), report("another-device")
	notJSON, noHoldout := filepath.Join(t.TempDir(), "a.json"), filepath.Join(t.TempDir(), "b.json")
	if err := os.WriteFile(notJSON, []byte("shape,config\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(noHoldout, []byte(`{"kernel": "conv2d"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := []struct {
		args []string
		want string
	}{
		{[]string{"--confirm-picks", mine}, "needs --confirm N"},
		{[]string{"--confirm", "1", "--confirm-picks", other}, "no held-out shape of " + devs[0].Slug()},
		{[]string{"--confirm", "1", "--confirm-picks", filepath.Join(dir, "missing.json")}, "no such file"},
		{[]string{"--confirm", "1", "--confirm-picks", notJSON}, "is not the JSON of"},
		{[]string{"--confirm", "1", "--confirm-picks", noHoldout}, "holds no held-out shapes"},
	}
	for _, tt := range bad {
		args := append([]string{"collect", "--kernel", "conv2d", "--out", dir, "--sample", "none"}, tt.args...)
		if err := run(context.Background(), args, &out, &errb); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: error %v, want one saying %q", tt.args, err, tt.want)
		}
	}
	again := []string{"collect", "--kernel", "conv2d", "--out", dir, "--sample", "none", "--confirm", "1", "--confirm-repeats", "3", "--confirm-anchors", "0", "--confirm-picks", mine}
	if err := run(context.Background(), again, &out, &errb); err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	files, err = record.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var confirmed []record.Row
	for _, f := range files {
		if strings.Contains(filepath.Base(f.Path), "confirm-") {
			confirmed = append(confirmed, f.Rows...)
		}
	}
	if len(confirmed) != 2 || !slices.ContainsFunc(confirmed, func(r record.Row) bool { return r.Config.Equal(slowest.Config) }) {
		t.Errorf("re-timed %d rows, want 2: the fastest and the pick %s", len(confirmed), k.Space.Format(slowest.Config))
	}
}
