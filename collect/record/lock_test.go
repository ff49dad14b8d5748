//go:build unix

package record

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestLockDir(t *testing.T) {
	unsharded := LockOptions{Holder: "first"}
	shard := func(i, n int) LockOptions { return LockOptions{Shard: i, Shards: n, Holder: "first"} }
	tests := []struct {
		name        string
		held, asked LockOptions
		wantErr     string // "" when the second lock is granted
	}{
		{"two runs", unsharded, LockOptions{}, "is being written by another collect (first)"},
		{"run then shard", unsharded, shard(0, 2), "(first)"},
		{"shard then run", shard(1, 2), LockOptions{}, "(shard 1/2: first)"},
		{"same shard twice", shard(0, 2), shard(0, 2), "shard 0/2 of "},
		{"other count", shard(0, 2), shard(1, 3), "shards of 2 (not 3)"},
		{"two shards of one run", shard(0, 2), shard(1, 2), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			first, err := LockDir(dir, tt.held)
			if err != nil {
				t.Fatal(err)
			}
			defer first.Unlock()
			second, err := LockDir(dir, tt.asked)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				second.Unlock()
				return
			}
			if err == nil {
				second.Unlock()
				t.Fatalf("granted, want an error with %q", tt.wantErr)
			}
			if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), tt.wantErr) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("err = %v, want one line matching ErrLocked with %q", err, tt.wantErr)
			}
		})
	}
}

func TestLockDirAfterUnlock(t *testing.T) {
	dir := t.TempDir()
	for i := range 3 {
		l, err := LockDir(dir, LockOptions{})
		if err != nil {
			t.Fatalf("lock %d: %v", i, err)
		}
		if l.Stale != "" {
			t.Errorf("lock %d: Stale = %q after a clean unlock", i, l.Stale)
		}
		if err := l.Unlock(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestLockDirStale takes over the lock of a process killed while holding
// it (flock(1) holds the lock file as collect does).
func TestLockDirStale(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, runLockName)
	if err := os.WriteFile(path, []byte("pid 1 on host gone, started 2026-11-26T00:00:00Z\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := exec.LookPath("flock"); err == nil {
		// flock waits for the lock: the loop below holds it for moments
		// while it looks whether flock has it yet (with --nonblock flock
		// gave up when it came at such a moment, and the test hung).
		cmd := exec.Command("flock", path, "sleep", "60")
		// Its own process group, killed whole: sleep inherits the lock.
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		deadline := time.Now().Add(2 * time.Minute) // a loaded CI machine starts processes slowly
		for {
			select {
			case err := <-exited:
				t.Fatalf("flock(1) ended before the test killed it: %v", err)
			default:
			}
			l, err := LockDir(dir, LockOptions{})
			if err != nil {
				if !strings.Contains(err.Error(), "pid 1 on host gone") {
					t.Fatalf("err = %v, want the holder named", err)
				}
				break
			}
			l.Unlock()
			os.WriteFile(path, []byte("pid 1 on host gone, started 2026-11-26T00:00:00Z\n"), 0o644)
			if time.Now().After(deadline) {
				t.Fatal("flock(1) never took the lock")
			}
			time.Sleep(10 * time.Millisecond)
		}
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-exited
	}
	// The kernel drops the lock once the killed processes are gone, a
	// moment after the kill.
	var l *DirLock
	var err error
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(10 * time.Millisecond) {
		if l, err = LockDir(dir, LockOptions{}); err == nil || time.Now().After(deadline) {
			break
		}
	}
	if err != nil {
		t.Fatalf("stale lock not taken over: %v", err)
	}
	defer l.Unlock()
	if want := "pid 1 on host gone, started 2026-11-26T00:00:00Z"; l.Stale != want {
		t.Errorf("Stale = %q, want %q", l.Stale, want)
	}
	got, _ := os.ReadFile(path)
	if !strings.HasPrefix(string(got), "pid ") || strings.Contains(string(got), "gone") {
		t.Errorf("lock file holds %q, want this process", got)
	}
}

// TestLockDirDoing checks that what the holder says it does reaches a run
// that finds the lock held, and goes once it says it is done.
func TestLockDirDoing(t *testing.T) {
	dir := t.TempDir()
	l, err := LockDir(dir, LockOptions{Holder: "first"})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Unlock()
	for _, tt := range []struct {
		doing, want string
	}{
		{"measuring X=1 on n=7", "(first; measuring X=1 on n=7)"},
		{"measuring X=22 on n=7", "(first; measuring X=22 on n=7)"},
		{"", "(first)"},
		{strings.Repeat("x", 600), "(first; xxx"},
	} {
		l.Doing(tt.doing)
		_, err := LockDir(dir, LockOptions{})
		if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Doing(%.20q): second lock: %v, want the holder %s", tt.doing, err, tt.want)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(dir, runLockName)); len(b) > 512 {
		t.Errorf("lock file of %d bytes, want at most 512", len(b))
	}
}
