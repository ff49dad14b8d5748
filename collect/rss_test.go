package collect

import (
	"runtime"
	"runtime/debug"
	"testing"
)

func TestResidentBytes(t *testing.T) {
	// Freed heap is given back first, so that the buffer below cannot
	// reuse pages already resident.
	debug.FreeOSMemory()
	got := residentBytes()
	if runtime.GOOS != "linux" {
		if got != 0 {
			t.Errorf("residentBytes() = %d off Linux, want 0 (unknown)", got)
		}
		return
	}
	// A Go test process holds a few MiB at least, and far less than 1 TiB.
	if got < 1<<20 || got > 1<<40 {
		t.Errorf("residentBytes() = %d, want a process's resident size", got)
	}
	// Touching 64 MiB shows in the figure.
	buf := make([]byte, 64<<20)
	for i := range buf {
		buf[i] = 1
	}
	if grown := residentBytes() - got; grown < 32<<20 {
		t.Errorf("resident size grew by %d bytes after touching 64 MiB, want at least 32 MiB", grown)
	}
	runtime.KeepAlive(buf)
}
