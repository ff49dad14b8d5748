//go:build !unix

package runtime

import "os"

// lockFile is a no-op where the system has no flock(2): appends of one
// write each on a file opened with O_APPEND still do not interleave on
// local files, but a reader may see a line being written (and skip it as
// damaged).
func lockFile(f *os.File, exclusive bool) error { return nil }

func unlockFile(f *os.File) {}
