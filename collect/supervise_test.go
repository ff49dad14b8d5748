package collect

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/augur-tuning/augur/collect/record"
	"github.com/augur-tuning/augur/features"
)

// superviseChildEnv makes the test binary act as a collecting child for
// Supervise: `count FILE N` appends a line to FILE and exits with ExitMore
// until FILE holds N lines, then with 0; `exit CODE` exits with CODE;
// `wait` writes "ready", waits for SIGINT or SIGTERM, writes its name to
// stderr and exits with ExitMore; `collect ...` measures (collectChild).
const superviseChildEnv = "AUGUR_TEST_SUPERVISE_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(superviseChildEnv) == "1" {
		os.Exit(superviseChild(os.Args[1:]))
	}
	os.Exit(m.Run())
}

func superviseChild(args []string) int {
	switch args[0] {
	case "count":
		f, err := os.OpenFile(args[1], os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			return 100
		}
		f.WriteString("run\n")
		f.Close()
		b, _ := os.ReadFile(args[1])
		want, _ := strconv.Atoi(args[2])
		if bytes.Count(b, []byte("\n")) < want {
			return ExitMore
		}
		os.Stdout.WriteString("done\n")
		return 0
	case "wait":
		sigs := make(chan os.Signal, 1)
		signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
		os.Stdout.WriteString("ready\n")
		os.Stderr.WriteString((<-sigs).String() + "\n")
		return ExitMore
	case "exit":
		code, _ := strconv.Atoi(args[1])
		os.Stderr.WriteString("child: failed\n")
		return code
	case "collect":
		return collectChild(args[1:])
	}
	return 101
}

// TestSupervise checks that a child stopping with ExitMore is followed by
// another until one exits 0, and that any other status ends the run as an
// ExitStatus after one child.
func TestSupervise(t *testing.T) {
	t.Setenv(superviseChildEnv, "1")
	for _, tt := range []struct {
		name     string
		children int // the child exiting 0 is the last; 0: args say
		args     []string
		wantRuns int
		wantErr  error
		wantOut  string
	}{
		{name: "first child finishes", children: 1, wantRuns: 1, wantOut: "done\n"},
		{name: "three children", children: 3, wantRuns: 3, wantOut: "done\n"},
		{name: "child fails", args: []string{"exit", "2"}, wantErr: ExitStatus(2), wantOut: "child: failed\n"},
		{name: "child fails with the usage status", args: []string{"exit", "1"}, wantErr: ExitStatus(1), wantOut: "child: failed\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			count := filepath.Join(t.TempDir(), "runs")
			args := tt.args
			if args == nil {
				args = []string{"count", count, strconv.Itoa(tt.children)}
			}
			var out bytes.Buffer
			err := Supervise(context.Background(), SuperviseOptions{Exe: os.Args[0], Args: args, Stdout: &out, Stderr: &out})
			if err != tt.wantErr {
				t.Fatalf("Supervise: got %v, want %v", err, tt.wantErr)
			}
			if out.String() != tt.wantOut {
				t.Errorf("output: got %q, want %q", out.String(), tt.wantOut)
			}
			b, _ := os.ReadFile(count)
			if got := strings.Count(string(b), "\n"); got != tt.wantRuns {
				t.Errorf("children run: got %d, want %d", got, tt.wantRuns)
			}
		})
	}
}

// TestSuperviseCancelled cancels the context while a child runs: the child
// receives the signal that is the context's cause (SIGINT when there is
// none), and its ExitMore then starts no new child.
func TestSuperviseCancelled(t *testing.T) {
	t.Setenv(superviseChildEnv, "1")
	for _, tt := range []struct {
		name  string
		cause error
		want  string
	}{
		{"no cause", nil, "interrupt"},
		{"SIGTERM", signalCause{syscall.SIGTERM}, "terminated"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			var stderr bytes.Buffer
			// The child says "ready" once it listens for signals.
			ready := cancelOnWrite{cancel: func() { cancel(tt.cause) }}
			err := Supervise(ctx, SuperviseOptions{Exe: os.Args[0], Args: []string{"wait"}, Stdout: &ready, Stderr: &stderr})
			if want := ExitStatus(ExitMore); err != want {
				t.Errorf("Supervise: got %v, want %v", err, want)
			}
			if got := strings.TrimSpace(stderr.String()); got != tt.want {
				t.Errorf("child received %q, want %q", got, tt.want)
			}
		})
	}
}

// cancelOnWrite calls cancel on its first write.
type cancelOnWrite struct {
	cancel func()
	once   sync.Once
}

func (c *cancelOnWrite) Write(p []byte) (int, error) {
	c.once.Do(c.cancel)
	return len(p), nil
}

// TestSuperviseNoExecutable checks the error of a child that cannot start.
func TestSuperviseNoExecutable(t *testing.T) {
	err := Supervise(context.Background(), SuperviseOptions{Exe: filepath.Join(t.TempDir(), "missing")})
	if err == nil || !strings.HasPrefix(err.Error(), "collect: cannot start a measuring process: ") {
		t.Errorf("Supervise: got %v, want collect: cannot start a measuring process: ...", err)
	}
}

func TestExitCode(t *testing.T) {
	for _, tt := range []struct {
		name     string
		err      error
		wantCode int
		wantOK   bool
	}{
		{"nil", nil, 0, false},
		{"other error", errors.New("collect: no device"), 0, false},
		{"program limit", fmt.Errorf("collect: %w: 500 programs", ErrProgramLimit), ExitMore, true},
		{"child's status", ExitStatus(2), 2, true},
		{"wrapped status", fmt.Errorf("collect: %w", ExitStatus(130)), 130, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, ok := ExitCode(tt.err)
			if code != tt.wantCode || ok != tt.wantOK {
				t.Errorf("ExitCode(%v) = %d, %v; want %d, %v", tt.err, code, ok, tt.wantCode, tt.wantOK)
			}
		})
	}
}

// TestStopOnSignalsEcho: with an echo window, a signal within it of the
// first is the same one heard twice (a terminal signals the measuring
// child's whole process group, and Supervise passes it on too), so it does
// not end the process, and one after it does, with status 128 + 2; without
// one, the second signal ends it at once.
func TestStopOnSignalsEcho(t *testing.T) {
	for _, tt := range []struct {
		name string
		echo time.Duration
	}{{"a measuring child", SignalEcho}, {"no echo", 0}} {
		t.Run(tt.name, func(t *testing.T) {
			exited := make(chan int, 1)
			var stderr bytes.Buffer
			ctx, stop := stopOnSignals(context.Background(), &stderr, tt.echo, func(code int) { exited <- code })
			self := os.Getpid()
			if err := syscall.Kill(self, syscall.SIGINT); err != nil {
				t.Fatal(err)
			}
			<-ctx.Done()
			if err := syscall.Kill(self, syscall.SIGINT); err != nil {
				t.Fatal(err)
			}
			if tt.echo > 0 {
				select {
				case code := <-exited:
					t.Fatalf("the echo ended the process with status %d", code)
				case <-time.After(tt.echo / 4):
				}
				time.Sleep(tt.echo)
				if err := syscall.Kill(self, syscall.SIGINT); err != nil {
					t.Fatal(err)
				}
			}
			select {
			case code := <-exited:
				if code != 130 {
					t.Errorf("exit status %d, want 130", code)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("a second signal did not end the process")
			}
			stop()
			out := stderr.String()
			if strings.Count(out, "stopping once") != 1 || strings.Count(out, "again: stopping now") != 1 {
				t.Errorf("stderr:\n%s", out)
			}
			if cause := context.Cause(ctx); !errors.Is(cause, signalCause{syscall.SIGINT}) {
				t.Errorf("cause %v, want SIGINT", cause)
			}
		})
	}
}

// lockedBuffer is a bytes.Buffer that Supervise and its children's
// output may write while a test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// shChild returns the arguments of a child of Supervise that is a shell
// script: it reports where its rows go (under dir) and then each line of
// reports, on SupervisorFD, and then runs then; or, once the file done
// exists, exits 0. The script sees the file as $0's first argument, $1.
func shChild(t *testing.T, dir string, reports []string, then string) (string, []string) {
	t.Helper()
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	file, err := json.Marshal(report{File: &reportFile{Dir: dir, Meta: reportMeta()}})
	if err != nil {
		t.Fatal(err)
	}
	lines := append([]string{string(file)}, reports...)
	script := `[ -e "$1" ] && exit 0; touch "$1"; printf '%s\n' "$2" >&3; ` + then
	return sh, []string{"-c", script, "child", filepath.Join(t.TempDir(), "done"), strings.Join(lines, "\n")}
}

// measureLine is the report of a fake pair X=x on n=7, with bound.
func measureLine(x int, bound time.Duration) string {
	b, _ := json.Marshal(report{Measure: &inFlight{Task: features.Task{7}, Config: features.Config{x},
		Name: fmt.Sprintf("X=%d on n=7", x), Record: true, BoundMs: bound.Milliseconds()}})
	return string(b)
}

// TestSuperviseLost checks what Supervise does with a child that dies or
// wedges: what it records for the pair the child was measuring, and
// whether another child goes on. The children are shell scripts that
// report as a measuring child does; the second of each exits 0.
func TestSuperviseLost(t *testing.T) {
	ended, _ := json.Marshal(report{Ended: true, Status: record.StatusOK})
	for _, tt := range []struct {
		name    string
		reports []string
		then    string
		// want is the status recorded for X=2, and why names the error's
		// beginning; "" for none recorded.
		want    record.Status
		why     string
		wantErr string
	}{
		{name: "segmentation fault", reports: []string{measureLine(2, time.Minute)}, then: "kill -SEGV $$",
			want: record.StatusCrash, why: "the measuring process died of signal SIGSEGV (segmentation fault) while measuring it"},
		{name: "abort", reports: []string{measureLine(2, time.Minute)}, then: "kill -ABRT $$",
			want: record.StatusCrash, why: "the measuring process died of signal SIGABRT"},
		{name: "Go runtime's fatal error", reports: []string{measureLine(2, time.Minute)}, then: "exit 2",
			want: record.StatusCrash, why: "the measuring process died of a fatal error (exit status 2"},
		{name: "wedged", reports: []string{measureLine(2, 300*time.Millisecond)}, then: "exec sleep 60",
			want: record.StatusTimeout, why: "the measuring process was still measuring it 300ms after it began"},
		{name: "stuck kernel given up", reports: []string{measureLine(2, time.Minute), string(ended)}, then: "exit 3"},
		{name: "killed by someone", reports: []string{measureLine(2, time.Minute)}, then: "kill -KILL $$",
			wantErr: "collect: measuring process: signal: killed while measuring X=2 on n=7"},
		{name: "crash between pairs", reports: []string{measureLine(2, time.Minute), string(ended)}, then: "kill -SEGV $$",
			wantErr: "collect: measuring process: signal: segmentation fault, with no configuration being measured"},
		{name: "usage error", then: "exit 2", wantErr: "exit status 2"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			exe, args := shChild(t, dir, tt.reports, tt.then)
			var stderr lockedBuffer
			err := Supervise(context.Background(), SuperviseOptions{Exe: exe, Args: args, Stderr: &stderr})
			if got := fmt.Sprint(err); (tt.wantErr == "") != (err == nil) || !strings.HasPrefix(got, tt.wantErr) {
				t.Errorf("Supervise: got %v, want %q", err, tt.wantErr)
			}
			files, err := record.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			var rows []record.Row
			for _, f := range files {
				rows = append(rows, f.Rows...)
			}
			if tt.want == "" {
				if len(rows) != 0 {
					t.Errorf("rows %v, want none", rows)
				}
				return
			}
			if len(rows) != 1 || rows[0].Status != tt.want || !rows[0].Config.Equal(features.Config{2}) || !strings.HasPrefix(rows[0].Error, tt.why) {
				t.Fatalf("rows %v, want one of X=2, %s, %q...", rows, tt.want, tt.why)
			}
			if !strings.Contains(stderr.String(), "X=2 on n=7: "+rows[0].Error+"; recorded as "+string(tt.want)) {
				t.Errorf("stderr %q does not tell of the row", stderr.String())
			}
		})
	}
}

// TestSuperviseLostTwice checks that a pair lost twice ends the run: its
// row did not keep the next child from measuring it.
func TestSuperviseLostTwice(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	dir := t.TempDir()
	file, _ := json.Marshal(report{File: &reportFile{Dir: dir, Meta: reportMeta()}})
	script := `printf '%s\n%s\n' "$1" "$2" >&3; kill -SEGV $$`
	err = Supervise(context.Background(), SuperviseOptions{Exe: sh, Args: []string{"-c", script, "child", string(file), measureLine(2, time.Minute)}})
	if want := "collect: measuring process: signal: segmentation fault while measuring X=2 on n=7 again, recorded as crash the first time"; fmt.Sprint(err) != want {
		t.Errorf("Supervise: got %v, want %s", err, want)
	}
}

// TestSuperviseStopGrace cancels the context while a child measures a
// pair and ignores the signal: Supervise kills it after the grace and
// says so.
func TestSuperviseStopGrace(t *testing.T) {
	dir := t.TempDir()
	exe, args := shChild(t, dir, []string{measureLine(2, time.Minute)}, "trap '' INT TERM; echo ready; exec sleep 60")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ready := cancelOnWrite{cancel: cancel}
	began := time.Now()
	err := Supervise(ctx, SuperviseOptions{Exe: exe, Args: args, Stdout: &ready, stopGrace: 300 * time.Millisecond})
	want := "collect: interrupted: the measuring process was still measuring X=2 on n=7 300ms after the signal, and was killed"
	if !strings.HasPrefix(fmt.Sprint(err), want) {
		t.Errorf("Supervise: got %v, want %s...", err, want)
	}
	if d := time.Since(began); d > 30*time.Second {
		t.Errorf("Supervise took %v", d)
	}
}
