// Command cputime_go measures the thread CPU time of cold ChoosePick calls
// (the shapes of libaugur/testdata/latency_go), which a loaded machine's
// scheduling does not add to (Linux only):
//
//	go build -o /tmp/cputime ./runtime/testdata/cputime_go && /tmp/cputime BUNDLE N
package main

import (
	"fmt"
	"os"
	goruntime "runtime"
	"slices"
	"strconv"
	"syscall"
	"unsafe"

	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/runtime"
)

func threadNs() int64 {
	var ts syscall.Timespec
	syscall.Syscall(syscall.SYS_CLOCK_GETTIME, 3 /* CLOCK_THREAD_CPUTIME_ID */, uintptr(unsafe.Pointer(&ts)), 0)
	return ts.Nano()
}

func main() {
	goruntime.LockOSThread()
	data, _ := os.ReadFile(os.Args[1])
	n, _ := strconv.Atoi(os.Args[2])
	ch, err := runtime.New(data, runtime.Options{})
	if err != nil {
		panic(err)
	}
	t := make([]float64, n)
	for i := range n {
		s := features.Task{256 + i, 512 + 16*(i%7), 3 + 2*(i%3), 3 + 2*(i%3)}
		t0 := threadNs()
		if _, err := ch.ChoosePick(s); err != nil {
			panic(err)
		}
		t[i] = float64(threadNs()-t0) / 1e3
	}
	slices.Sort(t)
	fmt.Printf("cold CPU time: n=%d p50=%.1f us p99=%.1f us max=%.1f us\n", n, t[n/2], t[n*99/100], t[n-1])
}
