package main

import (
	"flag"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/train"
)

// subset keeps the named features of a deriver (all when keep is nil),
// dropping those in drop.
type subset struct {
	base features.Deriver
	idx  []int
	buf  []float64
}

func (s *subset) ID() string { return s.base.ID() + "-sub" }
func (s *subset) Names() []string {
	n := s.base.Names()
	var out []string
	for _, i := range s.idx {
		out = append(out, n[i])
	}
	return out
}
func (s *subset) Derive(dst []float64, t features.Task, c features.Config, pv []float64) {
	s.base.Derive(s.buf, t, c, pv)
	for j, i := range s.idx {
		dst[j] = s.buf[i]
	}
}

func main() {
	data := flag.String("data", "", "dir")
	drop := flag.String("drop", "", "comma-separated features to drop")
	picks := flag.Bool("picks", false, "print each shape's pick")
	only := flag.Int("learner", -1, "only this learner (0 or 1)")
	flag.Parse()
	var der features.Deriver = datasets.Deriver("conv2d")
	if *drop != "" {
		dl := strings.Split(*drop, ",")
		s := &subset{base: der, buf: make([]float64, len(der.Names()))}
		for i, n := range der.Names() {
			if !slices.Contains(dl, n) {
				s.idx = append(s.idx, i)
			}
		}
		der = s
	}
	d, err := train.LoadWith(*data, "conv2d", train.LoadOptions{Derived: der})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	g := train.GroupColumns(d)
	learners := []train.TopOptions{
		{Anchored: true, GroupColumns: g, GBRT: train.GBRTOptions{Trees: 50, MaxDepth: 10, LearningRate: 0.2, MinLeaf: 5, Seed: 1}},
		{Anchored: true, GroupColumns: g, GBRT: train.GBRTOptions{Trees: 150, MaxDepth: 8, LearningRate: 0.1, MinLeaf: 5, Seed: 1}},
	}
	shapes := map[string][]int{}
	var order []string
	for i, s := range d.Samples() {
		k := fmt.Sprint(s.Task)
		if _, ok := shapes[k]; !ok {
			order = append(order, k)
		}
		shapes[k] = append(shapes[k], i)
	}
	slices.Sort(order)
	for li, l := range learners {
		if *only >= 0 && li != *only {
			continue
		}
		var logs, worst = 0.0, 100.0
		var line []string
		for _, k := range order {
			var rows []int
			for _, o := range order {
				if o != k {
					rows = append(rows, shapes[o]...)
				}
			}
			m, err := train.FitRows(l, d, rows)
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
			best, pickP, pickT, pickC := math.Inf(1), math.Inf(-1), 0.0, features.Config(nil)
			for _, i := range shapes[k] {
				s := d.Sample(i)
				if s.Measured() && s.TimeNs < best {
					best = s.TimeNs
				}
				if p := m.Predict(d.Row(i)); p > pickP {
					pickP, pickT, pickC = p, s.TimeNs, s.Config
				}
			}
			pct := 0.0
			if pickT > 0 {
				pct = 100 * best / pickT
			}
			logs += math.Log(max(pct, 1))
			worst = min(worst, pct)
			line = append(line, fmt.Sprintf("%s:%.1f", strings.ReplaceAll(k, " ", "x"), pct))
			if *picks {
				fmt.Printf("  %s pick %v %.1f%%\n", k, pickC, pct)
			}
		}
		fmt.Printf("top-d%d-t%d %.2f (%.1f) %s\n", l.GBRT.MaxDepth, l.GBRT.Trees, math.Exp(logs/float64(len(order))), worst, strings.Join(line, " "))
	}
}
