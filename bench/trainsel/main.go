package main

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/train"
)

func main() {
	data := flag.String("data", "", "dir")
	set := flag.String("set", "all", "candidate set")
	workers := flag.Int("workers", 2, "")
	folds := flag.Int("folds", 0, "0: one a shape")
	repeats := flag.Int("repeats", 1, "")
	extra := flag.Bool("extra", false, "add CPU-minded derived features")
	flag.Parse()
	var der features.Deriver = datasets.Deriver("conv2d")
	if *extra {
		der = extraDeriver{der}
	}
	d, err := train.LoadWith(*data, "conv2d", train.LoadOptions{Derived: der})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	seed := uint64(1)
	var c []train.Candidate
	if *set == "all" || *set == "default" {
		c = append(c, train.DefaultCandidates(seed)...)
	}
	if *set == "all" || *set == "new" {
		c = append(c,
			train.RankCandidate(train.RankOptions{GBRT: train.GBRTOptions{Trees: 200, MaxDepth: 6, MinLeaf: 5, Seed: seed}, Mix: 0.5}),
			train.TopCandidate(train.TopOptions{GBRT: train.GBRTOptions{Trees: 200, MaxDepth: 6, MinLeaf: 5, Seed: seed}}),
			train.TopCandidate(train.TopOptions{GBRT: train.GBRTOptions{Trees: 150, MaxDepth: 8, MinLeaf: 5, Seed: seed}}),
			train.TopCandidate(train.TopOptions{GBRT: train.GBRTOptions{Trees: 50, MaxDepth: 10, MinLeaf: 5, LearningRate: 0.2, Seed: seed}}),
			train.TopCandidate(train.TopOptions{GBRT: train.GBRTOptions{Trees: 100, MaxDepth: 4, Seed: seed}}),
			train.BagCandidate(train.BagOptions{GBRT: train.GBRTOptions{Trees: 50, MaxDepth: 6, MinLeaf: 5, LearningRate: 0.2, Seed: seed}}),
			train.BagCandidate(train.BagOptions{GBRT: train.GBRTOptions{Trees: 40, MaxDepth: 8, MinLeaf: 5, LearningRate: 0.25, Seed: seed}}),
		)
	}
	if *set == "rank" || *set == "rankdef" {
		// LambdaMART with Newton steps (per-row hessians), beside the
		// defaults when -set rankdef.
		if *set == "rankdef" {
			c = append(c, train.DefaultCandidates(seed)...)
		}
		d8 := train.GBRTOptions{Trees: 150, MaxDepth: 8, MinLeaf: 5, Seed: seed}
		d10 := train.GBRTOptions{Trees: 50, MaxDepth: 10, MinLeaf: 5, LearningRate: 0.2, Seed: seed}
		c = append(c,
			train.RankCandidate(train.RankOptions{GBRT: d8}),
			train.RankCandidate(train.RankOptions{GBRT: d8, Top: 5}),
			train.RankCandidate(train.RankOptions{GBRT: d8, MaxDeltaStep: 1}),
			train.RankCandidate(train.RankOptions{GBRT: d10}),
			train.RankCandidate(train.RankOptions{GBRT: d10, Top: 10}),
			train.RankCandidate(train.RankOptions{GBRT: d10, Mix: 0.5}),
		)
	}
	nf := *folds
	if nf == 0 {
		nf = len(d.Shapes()) * len(d.Platforms)
	}
	t0 := time.Now()
	ch, sel, err := train.Select(d, train.SelectOptions{Candidates: c, MaxCost: -1, Folds: nf, Repeats: *repeats, Budget: time.Hour, Workers: *workers, Seed: seed})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	s := sel.Scores
	slices.SortFunc(s, func(a, b train.PickScore) int {
		if a.PctGeomean > b.PctGeomean {
			return -1
		}
		if a.PctGeomean < b.PctGeomean {
			return 1
		}
		return 0
	})
	fmt.Printf("%s: %d rows, %d shapes, %d folds, chosen %s, %.0fs\n", *data, d.Len(), s[0].Shapes, nf, ch.Name, time.Since(t0).Seconds())
	for _, x := range s {
		fmt.Printf("%6.2f %6.2f sd%5.2f rho%5.3f cost%5d fit%6.1fs %s\n", x.PctGeomean, x.PctWorst, x.PctSpread, x.Spearman, x.Cost, x.FitSeconds, x.Name)
	}
}
