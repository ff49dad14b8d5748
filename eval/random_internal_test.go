package eval

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/search"
	"github.com/augur-tuning/augur/train"
)

// h200Groups loads testdata/h200's conv2d rows and their groups.
func h200Groups(t *testing.T) (*train.Data, *features.Space, []*group) {
	t.Helper()
	k := datasets.Conv2D()
	all, err := train.LoadWith("../testdata/h200", k.Name, train.LoadOptions{Invalid: train.InvalidZeta, Derived: datasets.Deriver(k.Name)})
	if err != nil {
		t.Fatal(err)
	}
	space, err := features.NewSpace(all.Params, all.Constraints)
	if err != nil {
		t.Fatal(err)
	}
	return all, space, groupRows(all, space)
}

// TestRandomSearchWithinLimits checks the random-search baseline that the
// two-stage tuner is compared with on testdata/h200 (where more than a
// third of the space is over the device's limits): it draws from the
// configurations within the limits only, so that as many draws as there
// are such configurations find the optimum every time, and its exact
// median is search.RandomMedian over them; without pruning it draws from
// the whole space, as before session 18.
func TestRandomSearchWithinLimits(t *testing.T) {
	all, space, groups := h200Groups(t)
	opt := Options{Kernel: datasets.Conv2D().Name}
	for _, g := range groups[:2] {
		ts, err := newTwoStage(all, space, g, encoder(all, datasets.Deriver(opt.Kernel)))
		if err != nil {
			t.Fatal(err)
		}
		pruned := ts.pruned(opt)
		within := len(ts.valid) - countTrue(pruned)
		for _, tc := range []struct {
			name   string
			pruned []bool
			k      int
			n      int // the configurations drawn from
		}{
			{"within the limits, all of them", pruned, within, within},
			{"within the limits, 100", pruned, 100, within},
			{"whole space, 100", nil, 100, len(ts.valid)},
		} {
			for seed := range uint64(5) {
				pct, med := ts.randomSearch(tc.pruned, tc.k, rand.New(rand.NewPCG(seed, 1)))
				if want := 100 * g.bestNs / search.RandomMedian(ts.times, tc.n, tc.k); med != want {
					t.Errorf("%v %s: median %g, want %g", g.task, tc.name, med, want)
				}
				if tc.k == within && tc.pruned != nil && math.Abs(pct-100) > 1e-9 {
					t.Errorf("%v %s seed %d: %g%% of the best, want 100 (every configuration within the limits drawn)", g.task, tc.name, seed, pct)
				}
				if pct <= 0 || pct > 100+1e-9 {
					t.Errorf("%v %s seed %d: %g%% of the best", g.task, tc.name, seed, pct)
				}
			}
		}
		// The same draws where nothing is pruned as random search made
		// before session 18: the first k of one permutation of the space.
		rng := rand.New(rand.NewPCG(7, 1))
		pct, _ := ts.randomSearch(nil, 50, rand.New(rand.NewPCG(7, 1)))
		best := math.Inf(1)
		for _, i := range rng.Perm(len(ts.valid))[:50] {
			if v, ok := g.times[space.Format(ts.valid[i])]; ok {
				best = min(best, v)
			}
		}
		if want := 100 * g.bestNs / best; pct != want {
			t.Errorf("%v: unpruned draws give %g, before session 18 %g", g.task, pct, want)
		}
	}
}

// TestStrategiesWithinLimits checks that the strategies table spends its
// budgets within the device's limits on testdata/h200: random search with
// a budget of every configuration within them finds the optimum on each
// of 20 seeds, which draws from the whole space at that budget (4,032 of
// 6,400 on its first shape) each miss with probability 0.37.
func TestStrategiesWithinLimits(t *testing.T) {
	all, space, groups := h200Groups(t)
	opt := Options{Kernel: datasets.Conv2D().Name, Seeds: 20}
	g := groups[0]
	within := len(space.All()) - countTrue(groupPruned(all, space, g, space.All(), opt))
	if within >= space.Len() {
		t.Fatalf("nothing pruned on %v", g.task)
	}
	opt.Budgets = []int{within}
	res, err := strategies(all, space, []*group{g}, opt)
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Strategy != "random" || res[0].P10 < 100-1e-9 {
		t.Errorf("%s at budget %d (every configuration within the limits): p10 %.2f%%, want 100", res[0].Strategy, within, res[0].P10)
	}
}

// TestTwoStageReplayNeverBelowMeasured checks eval's replay of the
// two-stage tuner on testdata/h200: its answer is the best of every
// configuration it measured in both stages (never worse than one it
// measured), which is at least the first stage's best, and its count of
// measurements leaves out the configurations over the device's limits.
func TestTwoStageReplayNeverBelowMeasured(t *testing.T) {
	all, space, groups := h200Groups(t)
	opt := Options{Kernel: datasets.Conv2D().Name, Learner: "gbrt", SampleFraction: 0.02}
	g := groups[0]
	ts, err := newTwoStage(all, space, g, encoder(all, datasets.Deriver(opt.Kernel)))
	if err != nil {
		t.Fatal(err)
	}
	n0 := int(math.Round(opt.SampleFraction * float64(len(ts.valid))))
	for _, threshold := range []float64{0.5, 0.1} {
		for seed := range uint64(2) {
			r, err := ts.run(opt, n0, 0, threshold, seed)
			if err != nil {
				t.Fatal(err)
			}
			if !r.fitted {
				t.Fatalf("T=%g seed %d: no model fitted", threshold, seed)
			}
			if r.pct < r.firstPct-1e-9 || r.pct != r.measuredPct {
				t.Errorf("T=%g seed %d: answer %.2f%%, first stage's best %.2f%%, best measured %.2f%%", threshold, seed, r.pct, r.firstPct, r.measuredPct)
			}
			if r.total > len(ts.valid)-countTrue(ts.pruned(opt)) {
				t.Errorf("T=%g seed %d: %d measured, more than the %d configurations within the limits", threshold, seed, r.total, len(ts.valid)-countTrue(ts.pruned(opt)))
			}
		}
	}
}

// TestTwoStageMax: the two-stage tuner given a measurement budget
// (Options.MaxShares) measures half of it first, answers no worse than its
// first stage, reports random search's exact median at the budget, and
// given the whole space finds the optimum.
func TestTwoStageMax(t *testing.T) {
	all, space, groups := h200Groups(t)
	opt := Options{Kernel: datasets.Conv2D().Name, Learner: "gbrt", SampleFraction: 0.02, Coverage: 0.9,
		MaxShares: []float64{1, 100}, TwoStageSeeds: 2, Seed: 1, Derived: datasets.Deriver(datasets.Conv2D().Name)}
	got, err := twoStageMax(all, groups[:1], space, opt)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("%d results, want 2", len(got))
	}
	ts, err := newTwoStage(all, space, groups[0], encoder(all, datasets.Deriver(opt.Kernel)))
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range got {
		c := int(math.Round(opt.MaxShares[i] / 100 * float64(len(ts.valid))))
		_, med := ts.randomSearch(ts.pruned(opt), c, rand.New(rand.NewPCG(1, 1)))
		if r.Measurements != c || r.FirstStage != (c+1)/2 || r.RandomMedianPct != med {
			t.Errorf("%g%%: %d measured, %d first, random median %g; want %d, %d, %g", r.SharePct, r.Measurements, r.FirstStage, r.RandomMedianPct, c, (c+1)/2, med)
		}
		if !(r.Pct >= r.SampleBestPct && r.Pct <= 100 && r.WorstPct <= r.MeanPct && r.MeanPct <= 100) {
			t.Errorf("%g%%: median %g, mean %g, worst seed %g, first stage %g", r.SharePct, r.Pct, r.MeanPct, r.WorstPct, r.SampleBestPct)
		}
	}
	if got[1].WorstPct < 100-1e-9 {
		t.Errorf("a budget of the whole space found %g%% of the optimum, want 100", got[1].WorstPct)
	}
}
