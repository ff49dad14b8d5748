// Command picks_go prints the pick of N shapes spread over conv2d's shape
// space and the five candidates of every fourth, with the predicted
// log-speedups printed exactly, so that two builds of the runtime can be
// compared pick for pick:
//
//	go build -o /tmp/picks ./runtime/testdata/picks_go && /tmp/picks BUNDLE N
//
// DEVICE sets Options.Device and STEPS Options.Steps.
package main

import (
	"bufio"
	"fmt"
	"os"
	"strconv"

	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/runtime"
)

func main() {
	data, err := os.ReadFile(os.Args[1])
	if err != nil {
		panic(err)
	}
	n, _ := strconv.Atoi(os.Args[2])
	steps, _ := strconv.Atoi(os.Getenv("STEPS"))
	ch, err := runtime.New(data, runtime.Options{Device: os.Getenv("DEVICE"), Steps: steps})
	if err != nil {
		panic(err)
	}
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	for i := range n {
		s := features.Task{16 + (i*37)%4000, 16 + (i*101)%3000, 3 + 2*(i%5), 3 + 2*((i/5)%5)}
		p, err := ch.ChoosePick(s)
		if err != nil {
			fmt.Fprintln(out, s, err)
			continue
		}
		fmt.Fprintln(out, s, p.Config, p.LogSpeedup, p.Source)
		if i%4 == 0 {
			cs, err := ch.Candidates(features.Task{s[0] + 1, s[1], s[2], s[3]}, 5)
			if err != nil {
				fmt.Fprintln(out, "cand", err)
				continue
			}
			for _, c := range cs {
				fmt.Fprintln(out, " ", c.Config, c.LogSpeedup, c.Source)
			}
		}
	}
}
