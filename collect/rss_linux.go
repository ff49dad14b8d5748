package collect

import (
	"bytes"
	"os"
	"strconv"
)

// residentBytes returns the process's resident memory, or 0 when it cannot
// be read. /proc/self/statm's second field is resident pages.
func residentBytes() int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := bytes.Fields(b)
	if len(f) < 2 {
		return 0
	}
	pages, err := strconv.ParseInt(string(f[1]), 10, 64)
	if err != nil {
		return 0
	}
	return pages * int64(os.Getpagesize())
}
