package record

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// LockOptions says who takes a directory lock (LockDir). The zero value is
// an unsharded run described by its pid, host and the current time.
type LockOptions struct {
	// Shard is the share of a sharded run this process writes, in
	// [0, Shards); Shards 0 or 1 means an unsharded run.
	Shard, Shards int
	// Holder describes this process to a run that finds the lock taken;
	// "" means "pid P on host H, started T".
	Holder string
}

// The lock files in a dataset directory. A dot name keeps them out of
// the readers' way (which read *.arrow files only).
const (
	runLockName = ".collect.lock"
	// shardLockFormat names shard I of N's lock.
	shardLockFormat = ".collect-shard-%d-of-%d.lock"
)

// DirLock is a writer's claim on a dataset directory: one collect run, or
// one shard of a sharded run, per directory (out/kernel/platform).
//
// An unsharded run holds the directory's lock file exclusively. Shards of
// one run write disjoint files, so they share the directory lock, and each
// holds a lock of its own shard exclusively: shards 0/4 and 1/4 run side
// by side, while a second 0/4, a shard of another count (whose pairs
// overlap) or an unsharded run is refused. The locks are flock(2) locks,
// which the kernel drops when the holder exits, however it exits: the lock
// of a killed run is simply taken over (DirLock.Stale says whose it was).
// Where there is no flock (not unix), LockDir excludes nobody. Locks on a
// network file system hold only as far as it carries flock.
type DirLock struct {
	files []*os.File // held open: closing one drops its lock
	// holder is what the last of files says of this process.
	holder string
	// Stale describes the holder of a lock that was taken over: a run that
	// died without unlocking; "" when there was none. It ends with what
	// that run was doing when it died, if it said (Doing).
	Stale string
}

// maxHolderLine bounds the line a lock file holds: readHolder reads 512
// bytes.
const maxHolderLine = 500

// LockDir locks dir for one writer (see DirLock). When another live run
// holds it, the error matches ErrLocked and names the holder on one line.
func LockDir(dir string, opt LockOptions) (*DirLock, error) {
	if opt.Shards > 1 && (opt.Shard < 0 || opt.Shard >= opt.Shards) {
		return nil, fmt.Errorf("record: LockOptions.Shard must be in [0, %d], got %d", opt.Shards-1, opt.Shard)
	}
	if opt.Holder == "" {
		host, _ := os.Hostname()
		opt.Holder = fmt.Sprintf("pid %d on host %s, started %s", os.Getpid(), host, time.Now().UTC().Format(time.RFC3339))
	}
	l := &DirLock{}
	runPath := filepath.Join(dir, runLockName)
	if opt.Shards <= 1 {
		f, old, err := takeLock(runPath, lockFile)
		if err != nil {
			return nil, lockedError(dir, "", runPath, err)
		}
		l.add(f, old, opt.Holder)
		return l, nil
	}
	f, _, err := takeLock(runPath, lockShared)
	if err != nil {
		return nil, lockedError(dir, "", runPath, err)
	}
	// The run lock's holder text is an unsharded run's; a shard finding
	// one there knows that run is gone, since it got the lock, and clears
	// it so that nobody names a dead run as the holder.
	stale, _ := readHolder(f)
	if stale != "" {
		f.Truncate(0)
	}
	l.files = append(l.files, f)
	shardPath := filepath.Join(dir, fmt.Sprintf(shardLockFormat, opt.Shard, opt.Shards))
	sf, old, err := takeLock(shardPath, lockFile)
	if err != nil {
		l.Unlock()
		return nil, lockedError(dir, fmt.Sprintf("shard %d/%d of ", opt.Shard, opt.Shards), shardPath, err)
	}
	if old == "" {
		old = stale
	}
	l.add(sf, old, opt.Holder)
	if err := otherCounts(dir, opt.Shards); err != nil {
		l.Unlock()
		return nil, err
	}
	return l, nil
}

// add keeps f, held, and writes holder into it.
func (l *DirLock) add(f *os.File, old, holder string) {
	l.files = append(l.files, f)
	l.holder = holder
	l.Stale = old
	// A failure to describe the holder costs only the description.
	if f.Truncate(0) == nil {
		f.WriteAt([]byte(holder+"\n"), 0)
	}
}

// Doing adds what the holder does now to its description in the lock file,
// "" what it did: the configuration being measured, say. A run that finds
// the lock held names it (LockedError), and one that takes the lock over
// after the holder died says what it died doing (Stale), which is how a
// process that a kernel killed (a segmentation fault) is heard of. A
// description that cannot be written costs only the description.
func (l *DirLock) Doing(what string) {
	if l == nil || len(l.files) == 0 {
		return
	}
	line := l.holder
	if what != "" {
		line += "; " + what
	}
	if len(line) > maxHolderLine {
		line = line[:maxHolderLine] + "..."
	}
	line += "\n"
	// The new line first, then the old one's tail cut: the file's first
	// line is a whole description at every moment.
	f := l.files[len(l.files)-1]
	if _, err := f.WriteAt([]byte(line), 0); err == nil {
		f.Truncate(int64(len(line)))
	}
}

// Unlock releases the directory. The lock files stay (removing one would
// let a run that opened it before the removal lock a file nobody else
// sees); emptied, they tell the next run that nobody died holding them.
func (l *DirLock) Unlock() error {
	var errs []error
	for i := len(l.files) - 1; i >= 0; i-- {
		f := l.files[i]
		if i == len(l.files)-1 { // the file add wrote the holder into
			errs = append(errs, f.Truncate(0))
		}
		errs = append(errs, f.Close())
	}
	l.files = nil
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("record: unlock: %w", err)
	}
	return nil
}

// takeLock opens (creating) the lock file at path and locks it with lock;
// old is what a previous holder left in it.
func takeLock(path string, lock func(*os.File) error) (f *os.File, old string, err error) {
	f, err = os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, "", err
	}
	if err := lock(f); err != nil {
		holder, _ := readHolder(f)
		f.Close()
		return nil, "", &heldError{holder: holder, err: err}
	}
	old, _ = readHolder(f)
	return f, old, nil
}

// heldError is a lock another process holds.
type heldError struct {
	holder string
	err    error
}

func (e *heldError) Error() string { return e.err.Error() }

// readHolder returns the first line of a lock file.
func readHolder(f *os.File) (string, error) {
	buf := make([]byte, 512)
	n, err := f.ReadAt(buf, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return "", err
	}
	line, _, _ := strings.Cut(string(buf[:n]), "\n")
	return line, nil
}

// lockedError turns takeLock's error into LockDir's: ErrLocked naming the
// holder, or the file system's error.
func lockedError(dir, what, path string, err error) error {
	var h *heldError
	if !errors.As(err, &h) {
		return fmt.Errorf("record: lock %s: %w", path, err)
	}
	holder := h.holder
	if holder == "" {
		// Shards share the run lock and write their names in their own.
		holder = liveShards(dir)
	}
	if holder == "" {
		holder = "a process that has not yet said who it is"
	}
	return &LockedError{Dir: dir, What: what, Holder: holder}
}

// LockedError is LockDir's error for a directory another run writes.
type LockedError struct {
	Dir string
	// What is "" for the directory, "shard I/N of " for one shard.
	What string
	// Holder describes the other run: "pid P on host H, started T".
	Holder string
}

func (e *LockedError) Error() string {
	return fmt.Sprintf("record: %s%s is being written by another collect (%s); wait for it to finish or stop it", e.What, e.Dir, e.Holder)
}

// Is makes a LockedError match ErrLocked.
func (e *LockedError) Is(target error) bool { return target == ErrLocked }

// liveShards describes the shards that hold their locks in dir.
func liveShards(dir string) string {
	paths, _ := filepath.Glob(filepath.Join(dir, ".collect-shard-*-of-*.lock"))
	var live []string
	for _, p := range paths {
		var i, n int
		if _, err := fmt.Sscanf(filepath.Base(p), shardLockFormat, &i, &n); err != nil {
			continue
		}
		f, err := os.Open(p)
		if err != nil {
			continue
		}
		if lockShared(f) != nil {
			h, _ := readHolder(f)
			live = append(live, fmt.Sprintf("shard %d/%d: %s", i, n, h))
		}
		f.Close()
	}
	return strings.Join(live, "; ")
}

// otherCounts refuses when a live shard of another count than n writes in
// dir: its pairs overlap this run's.
func otherCounts(dir string, n int) error {
	paths, _ := filepath.Glob(filepath.Join(dir, ".collect-shard-*-of-*.lock"))
	for _, p := range paths {
		var i, m int
		if _, err := fmt.Sscanf(filepath.Base(p), shardLockFormat, &i, &m); err != nil || m == n {
			continue
		}
		f, err := os.Open(p)
		if err != nil {
			continue
		}
		held := lockShared(f) != nil
		h, _ := readHolder(f)
		f.Close()
		if held {
			return &LockedError{Dir: dir, What: fmt.Sprintf("shards of %d (not %d) in ", m, n), Holder: fmt.Sprintf("shard %d/%d: %s", i, m, h)}
		}
	}
	return nil
}
