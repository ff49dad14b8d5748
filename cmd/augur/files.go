package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/augur-tuning/augur/features"
)

// checkWritable refuses to clobber an existing file unless forced, before
// any long work starts.
func checkWritable(path string, force bool) error {
	if _, err := os.Stat(path); err == nil && !force {
		return fmt.Errorf("%s exists; pass --force to overwrite it", path)
	}
	return nil
}

// writeBundle writes b next to path and renames it into place, so that a
// failed write never leaves a half-written bundle behind.
func writeBundle(path string, b *features.Bundle) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".bundle-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := features.WriteBundle(tmp, b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
