package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
)

// checkWritable refuses to clobber an existing file unless forced, before
// any long work starts.
func checkWritable(path string, force bool) error {
	fi, err := os.Stat(path)
	switch {
	case err == nil && fi.IsDir():
		return fmt.Errorf("%s is a directory; name the file to write", path)
	case err == nil && !force:
		return fmt.Errorf("%s exists; pass --force to overwrite it", path)
	}
	// The file is written beside its final name and renamed: the directory
	// must exist and take new files.
	if err := probeDir(filepath.Dir(path)); err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	return nil
}

// probeDir checks that files can be created in dir, by creating and
// removing one; the error is the cause alone ("permission denied").
func probeDir(dir string) error {
	f, err := os.CreateTemp(dir, ".augur-check-*")
	if err != nil {
		return unwrapPath(err)
	}
	f.Close()
	return os.Remove(f.Name())
}

// unwrapPath drops an *fs.PathError's operation and temporary file name,
// keeping its cause ("permission denied"), for a message that names the
// user's path instead.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// checkOutDir makes the dataset directory dir if needed and checks that
// files can be created in it, before any measurement: a command that
// measured for minutes must not fail on its --out at the end.
func checkOutDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := probeDir(dir); err != nil {
		return fmt.Errorf("cannot write in %s: %w", dir, err)
	}
	return nil
}

// writeWhole has write fill a temporary file beside path and renames it to
// path once write succeeds, so that an interrupted or failed export leaves
// no file that looks complete; the temporary file is removed on failure.
func writeWhole(path string, write func(tmp string) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".partial-*")
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, unwrapPath(err))
	}
	tmp := f.Name()
	f.Close()
	os.Remove(tmp) // a name no other file has; write creates it (some refuse an existing file)
	// An interrupt or termination removes the partial file first.
	sig, done := make(chan os.Signal, 1), make(chan struct{})
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sig)
	defer close(done)
	go func() {
		select {
		case <-sig:
			os.Remove(tmp)
			os.Exit(130)
		case <-done:
		}
	}()
	if err := write(tmp); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Chmod(tmp, 0o644); err != nil { // CreateTemp's is 0600
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, path)
}
