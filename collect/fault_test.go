package collect

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/augur-tuning/augur/collect/record"
	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/features"
)

// faultSpec is a spec kernel whose FAULT 1 kills the process with a
// segmentation fault and whose FAULT 2 never finishes.
const faultSpec = "testdata/specfault/fault.json"

// collectChild makes the test binary a measuring process, as `augur
// collect` is one: `collect SPEC OUT WHERE TIMEOUT MODE` measures every
// configuration of SPEC for which WHERE holds into OUT, each run within
// TIMEOUT; with MODE "supervised" it reports to SupervisorFD, and exits
// with ExitMore to be replaced when a kernel does not finish.
func collectChild(args []string) int {
	k, err := datasets.ReadSpec(args[0])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	timeout, err := time.ParseDuration(args[3])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	opt := Options{Sample: "all", Where: args[2], Repeats: 1, Workers: 1, NoBench: true, Timeout: timeout,
		Log: os.Stderr, Progress: io.Discard}
	if args[4] == "supervised" {
		opt.Supervisor = os.NewFile(SupervisorFD, "supervisor")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	_, err = Run(ctx, k, args[1], opt)
	switch {
	case err == nil:
		return 0
	case errors.Is(err, ErrKernelStuck) && !errors.Is(err, ErrReferenceFailed) && opt.Supervisor != nil:
		return ExitMore
	}
	fmt.Fprintln(os.Stderr, err)
	return 1
}

// superviseFaults collects faultSpec's configurations for which where
// holds into dir, in supervised children of the test binary, and returns
// what the children and Supervise wrote on stderr and Supervise's error.
// It fails the test when Supervise has not returned within limit.
func superviseFaults(t *testing.T, spec, dir, where string, timeout, limit time.Duration) (string, error) {
	t.Helper()
	t.Setenv(superviseChildEnv, "1")
	var stderr lockedBuffer
	done := make(chan error, 1)
	go func() {
		done <- Supervise(context.Background(), SuperviseOptions{Exe: os.Args[0], Stderr: &stderr,
			Args: []string{"collect", spec, dir, where, timeout.String(), "supervised"}})
	}()
	select {
	case err := <-done:
		return stderr.String(), err
	case <-time.After(limit):
		t.Fatalf("Supervise has not returned after %v; stderr:\n%s", limit, stderr.String())
		return "", nil
	}
}

// rowsByConfig reads every row of k under dir, keyed by configuration,
// and fails the test on a pair recorded twice.
func rowsByConfig(t *testing.T, dir string, k *datasets.Kernel) map[string]record.Row {
	t.Helper()
	rows := map[string]record.Row{}
	for _, r := range readAll(t, dir, k) {
		key := k.FormatConfig(r.Config)
		if _, ok := rows[key]; ok {
			t.Errorf("%s recorded twice", key)
		}
		rows[key] = r
	}
	return rows
}

// TestSuperviseCrash measures configurations of which some kill the
// measuring process with a segmentation fault: each is recorded as a
// crash row naming the signal, the others are measured by the children
// that follow, the collection ends as if nothing had happened, and a
// second collection finds nothing left to measure (it does not crash).
func TestSuperviseCrash(t *testing.T) {
	skipWithoutDevice(t)
	k, err := datasets.ReadSpec(faultSpec)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	stderr, err := superviseFaults(t, faultSpec, dir, "FAULT != 2", 30*time.Second, 3*time.Minute)
	if err != nil {
		t.Fatalf("Supervise: %v\nstderr:\n%s", err, stderr)
	}
	rows := rowsByConfig(t, dir, k)
	if len(rows) != 4 {
		t.Errorf("%d rows, want 4 (WG 16 and 32, FAULT 0 and 1)", len(rows))
	}
	for key, r := range rows {
		want := record.StatusOK
		if r.Config[1] == 1 {
			want = record.StatusCrash
			if !strings.Contains(r.Error, "SIGSEGV") {
				t.Errorf("%s: error %q does not name the signal", key, r.Error)
			}
			if !(r.RefTimeNs > 0) {
				t.Errorf("%s: ref_time_ns %g, want the reference's time", key, r.RefTimeNs)
			}
		}
		if r.Status != want {
			t.Errorf("%s: status %s (%s), want %s", key, r.Status, r.Error, want)
		}
	}
	if n := strings.Count(stderr, "recorded as crash"); n != 2 {
		t.Errorf("stderr tells of %d crashes, want 2:\n%s", n, stderr)
	}

	if stderr, err := superviseFaults(t, faultSpec, dir, "FAULT != 2", 30*time.Second, 3*time.Minute); err != nil || strings.Contains(stderr, "crash") {
		t.Errorf("second collection: %v\nstderr:\n%s", err, stderr)
	}
	if again := rowsByConfig(t, dir, k); len(again) != len(rows) {
		t.Errorf("second collection: %d rows, want the first's %d", len(again), len(rows))
	}
}

// TestSuperviseCrashedReference measures a spec kernel whose reference
// configuration kills the process: it is recorded as a crash, the
// collection stops as for any failed reference, and a second collection
// stops likewise without running it again (no second crash, no second
// row).
func TestSuperviseCrashedReference(t *testing.T) {
	skipWithoutDevice(t)
	spec := specWithDefault(t, faultSpec, "FAULT", 1)
	k, err := datasets.ReadSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for i := range 2 {
		stderr, err := superviseFaults(t, spec, dir, "FAULT != 2", 30*time.Second, 3*time.Minute)
		if err != ExitStatus(1) || !strings.Contains(stderr, "WG=16,FAULT=1 on n=1024 is recorded as a crash") {
			t.Errorf("collection %d: Supervise returned %v, want exit status 1 after a message of the crashed reference; stderr:\n%s", i+1, err, stderr)
		}
		if crashes := strings.Count(stderr, "recorded as crash"); crashes != 1-i {
			t.Errorf("collection %d: %d crashes, want %d; stderr:\n%s", i+1, crashes, 1-i, stderr)
		}
	}
	rows := rowsByConfig(t, dir, k)
	ref := rows[k.FormatConfig(k.Reference)]
	if len(rows) != 1 || ref.Status != record.StatusCrash {
		t.Errorf("rows %v, want the reference's crash alone", rows)
	}
}

// specWithDefault copies the spec at path, with its source, to a temporary
// directory, with param's Default set to value, and returns the copy's
// path.
func specWithDefault(t *testing.T, path, param string, value int) string {
	t.Helper()
	dir := t.TempDir()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	ks := m["KernelSpecification"].(map[string]any)
	src, err := os.ReadFile(filepath.Join(filepath.Dir(path), ks["KernelFile"].(string)))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ks["KernelFile"].(string)), src, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range m["ConfigurationSpace"].(map[string]any)["TuningParameters"].([]any) {
		if p := p.(map[string]any); p["Name"] == param {
			p["Default"] = value
		}
	}
	out, _ := json.Marshal(m)
	spec := filepath.Join(dir, filepath.Base(path))
	if err := os.WriteFile(spec, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return spec
}

// TestSuperviseHang measures configurations whose kernels never finish:
// each is recorded as a timeout, the child that ran it gives itself up
// and the next goes on, and the collection ends within a bound. Without
// a child to replace, PoCL's queue waits behind such a kernel for ever.
func TestSuperviseHang(t *testing.T) {
	skipWithoutDevice(t)
	k, err := datasets.ReadSpec(faultSpec)
	if err != nil {
		t.Fatal(err)
	}
	warmFaultCache(t)
	dir := t.TempDir()
	stderr, err := superviseFaults(t, faultSpec, dir, "FAULT != 1", time.Second, 2*time.Minute)
	if err != nil {
		t.Fatalf("Supervise: %v\nstderr:\n%s", err, stderr)
	}
	rows := rowsByConfig(t, dir, k)
	if len(rows) != 4 {
		t.Errorf("%d rows, want 4 (WG 16 and 32, FAULT 0 and 2)", len(rows))
	}
	for key, r := range rows {
		want := record.StatusOK
		if r.Config[1] == 2 {
			want = record.StatusTimeout
		}
		if r.Status != want {
			t.Errorf("%s: status %s (%s), want %s", key, r.Status, r.Error, want)
		}
	}
}

// warmFaultCache measures faultSpec's configurations that finish, with a
// long timeout: PoCL builds a kernel for each work-group size at its
// first launch, which on a cold cache and a busy 2-core machine can take
// longer than a short timeout (see TestRunTimeout).
func warmFaultCache(t *testing.T) {
	t.Helper()
	k, err := datasets.ReadSpec(faultSpec)
	if err != nil {
		t.Fatal(err)
	}
	opt := Options{Sample: "all", Where: "FAULT == 0", Repeats: 1, Workers: 1, NoBench: true, Timeout: 30 * time.Second,
		Log: io.Discard, Progress: io.Discard}
	if _, err := Run(context.Background(), k, t.TempDir(), opt); err != nil {
		t.Fatal(err)
	}
}

// TestRunHangAlone measures a configuration whose kernel never finishes
// in a process on its own (no supervisor, as `collect
// --programs-per-process 0`): Run records it as a timeout and stops with
// ErrKernelStuck, naming it, rather than wait behind it for ever; a second
// run goes on past it. It runs in child processes: the kernel keeps
// running until its process ends.
func TestRunHangAlone(t *testing.T) {
	skipWithoutDevice(t)
	t.Setenv(superviseChildEnv, "1")
	k, err := datasets.ReadSpec(faultSpec)
	if err != nil {
		t.Fatal(err)
	}
	warmFaultCache(t)
	dir := t.TempDir()
	where := "FAULT != 1 and WG == 16"
	for i, want := range []string{"WG=16,FAULT=2 on n=1024 still ran 10s after its 1s timeout", ""} {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		out, err := exec.CommandContext(ctx, os.Args[0], "collect", faultSpec, dir, where, "1s", "alone").CombinedOutput()
		late := ctx.Err() != nil
		cancel()
		switch {
		case late:
			t.Fatalf("run %d did not end within 2 minutes:\n%s", i+1, out)
		case want == "" && err != nil:
			t.Errorf("run %d: %v\n%s", i+1, err, out)
		case want != "" && (err == nil || !strings.Contains(string(out), want)):
			t.Errorf("run %d: %v, want an error with %q:\n%s", i+1, err, want, out)
		}
	}
	rows := rowsByConfig(t, dir, k)
	if r := rows["WG=16,FAULT=2"]; r.Status != record.StatusTimeout || len(rows) != 2 {
		t.Errorf("rows %v, want WG=16,FAULT=2's timeout and the reference", rows)
	}
}

// reportMeta is the metadata of the file a fake child reports.
func reportMeta() record.Meta {
	return record.Meta{Kernel: "fake", KernelVersion: "v1", Created: time.Now().UTC(), TaskNames: []string{"n"},
		Params: []features.Param{{Name: "X", Values: []int{1, 2, 3}}}, Reference: features.Config{1}, Source: "collect"}
}

// TestRunCrashAlone measures a configuration that kills a process on its
// own (no supervisor, as `collect --programs-per-process 0`): nothing can
// record it, but the next run names the configuration the dead one was
// measuring, from the directory's lock file.
func TestRunCrashAlone(t *testing.T) {
	skipWithoutDevice(t)
	t.Setenv(superviseChildEnv, "1")
	dir := t.TempDir()
	where := "WG == 16 and FAULT != 2"
	var outs []string
	for i := range 2 {
		out, err := exec.Command(os.Args[0], "collect", faultSpec, dir, where, "30s", "alone").CombinedOutput()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || crashed(err) == "" {
			t.Fatalf("run %d: %v, want a segmentation fault:\n%s", i+1, err, out)
		}
		outs = append(outs, string(out))
	}
	if !strings.Contains(outs[1], "took over the lock of a run that is gone (pid ") ||
		!strings.Contains(outs[1], "; measuring WG=16,FAULT=1 on n=1024); if that configuration killed it") {
		t.Errorf("the second run does not name the configuration the first was measuring:\n%s", outs[1])
	}
}
