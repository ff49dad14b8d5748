// Command latency_go measures runtime.Chooser.ChoosePick from Go with the
// protocol of latency.c, the baseline of the C and Python figures:
//
//	go run ./libaugur/testdata/latency_go BUNDLE N
package main

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"time"

	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/runtime"
)

func report(what string, t []float64) {
	slices.Sort(t)
	fmt.Printf("%s: n=%d p50=%.3f us p99=%.3f us\n", what, len(t), t[len(t)/2], t[int(float64(len(t))*0.99)])
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: latency_go BUNDLE N")
		os.Exit(2)
	}
	data, err := os.ReadFile(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	n, _ := strconv.Atoi(os.Args[2])
	ch, err := runtime.New(data, runtime.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	t := make([]float64, n)
	for i := range n {
		s := features.Task{256 + i, 512 + 16*(i%7), 3 + 2*(i%3), 3 + 2*(i%3)}
		t0 := time.Now()
		if _, err := ch.ChoosePick(s); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		t[i] = float64(time.Since(t0).Nanoseconds()) / 1e3
	}
	report("cold", t)
	s := features.Task{1920, 1080, 5, 5}
	ch.ChoosePick(s)
	for i := range n {
		t0 := time.Now()
		for range 100 {
			ch.ChoosePick(s)
		}
		t[i] = float64(time.Since(t0).Nanoseconds()) / 1e3 / 100
	}
	report("cached (mean of 100 calls)", t)
	for i := range n {
		s := features.Task{300 + i, 700 + 16*(i%7), 3 + 2*(i%3), 3 + 2*(i%3)}
		t0 := time.Now()
		if _, err := ch.Candidates(s, 5); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		t[i] = float64(time.Since(t0).Nanoseconds()) / 1e3
	}
	report("candidates k=5, new shapes", t)
}
