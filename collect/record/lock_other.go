//go:build !unix

package record

import "os"

// lockFile does nothing where there is no flock: Recover then cannot tell a
// live writer's partial file from a dead one's, so only one process may
// write to a directory at a time.
func lockFile(f *os.File) error { return nil }

// lockShared does nothing where there is no flock; LockDir then excludes
// nobody.
func lockShared(f *os.File) error { return nil }
