package main

import (
	"fmt"
	"os"
)

// checkWritable refuses to clobber an existing file unless forced, before
// any long work starts.
func checkWritable(path string, force bool) error {
	if _, err := os.Stat(path); err == nil && !force {
		return fmt.Errorf("%s exists; pass --force to overwrite it", path)
	}
	return nil
}
