package main

import (
	"flag"
	"fmt"
	"math"
	"os"

	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/runtime"
	"github.com/augur-tuning/augur/train"
)

func main() {
	dir := flag.String("data", "", "")
	kname := flag.String("kernel", "", "")
	spec := flag.String("spec", "", "")
	maxTrain := flag.Int("max", 8, "training shapes tried per device")
	flag.Parse()
	var k *datasets.Kernel
	var err error
	if *spec != "" {
		k, err = datasets.ReadSpec(*spec)
		*kname = k.Name
	} else {
		k, err = datasets.Lookup(*kname)
	}
	must(err)
	d, err := train.LoadWith(*dir, *kname, train.LoadOptions{Derived: k.Derived})
	must(err)
	type key struct {
		p int
		t string
	}
	rowsOf := map[key][]int{}
	var order []key
	for i, s := range d.Samples() {
		if !s.Measured() {
			continue
		}
		kk := key{s.Platform, features.FormatTask(d.TaskNames, s.Task)}
		if rowsOf[kk] == nil {
			order = append(order, kk)
		}
		rowsOf[kk] = append(rowsOf[kk], i)
	}
	opt := train.Options{Kernel: *kname, Model: "auto", Seed: 1}
	var lm, lc []float64
	tried := map[int]int{}
	for _, tr := range order {
		if tried[tr.p] >= *maxTrain {
			continue
		}
		tried[tr.p]++
		plat := d.Platforms[tr.p]
		b, _, err := train.FitBundle(d.Subset(rowsOf[tr]), opt, plat.Slug(), &plat)
		must(err)
		if k.FromSpec() {
			must(k.Attach(b))
		}
		b.Measured = nil
		ch, err := runtime.FromBundle(b, runtime.Options{})
		must(err)
		// the training shape's best
		bestCfg, bestT := "", math.Inf(1)
		for _, i := range rowsOf[tr] {
			if s := d.Sample(i); s.TimeNs < bestT {
				bestT, bestCfg = s.TimeNs, fmt.Sprint(s.Config)
			}
		}
		var sm, sc float64
		n := 0
		for _, te := range order {
			if te.p != tr.p || te == tr {
				continue
			}
			best := math.Inf(1)
			copyT := 0.0
			top, pickT := math.Inf(-1), 0.0
			for _, i := range rowsOf[te] {
				s := d.Sample(i)
				best = min(best, s.TimeNs)
				if fmt.Sprint(s.Config) == bestCfg {
					copyT = s.TimeNs
				}
				v, err := ch.Predict(s.Task, s.Config)
				must(err)
				if v > top {
					top, pickT = v, s.TimeNs
				}
			}
			if copyT == 0 {
				continue // the copy did not run there
			}
			sm += math.Log(best / pickT)
			sc += math.Log(best / copyT)
			lm = append(lm, math.Log(best/pickT))
			lc = append(lc, math.Log(best/copyT))
			n++
		}
		if n > 0 {
			fmt.Printf("%s train %s: %d test shapes, model %.1f, copy %.1f\n", plat.Slug(), tr.t, n, 100*math.Exp(sm/float64(n)), 100*math.Exp(sc/float64(n)))
		}
	}
	g := func(v []float64) float64 {
		s := 0.0
		for _, x := range v {
			s += x
		}
		return 100 * math.Exp(s/float64(len(v)))
	}
	fmt.Printf("ALL %s: %d pairs, model %.2f, copy %.2f\n", *kname, len(lm), g(lm), g(lc))
}

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
