package eval

import (
	"cmp"
	"flag"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/runtime"
	"github.com/augur-tuning/augur/train"
)

// The variant study of issue 23's candidate lists: which order of the
// runtime's candidates gets the best of the first k closest to the
// optimum on whole-space data. It leaves each shape out as eval's holdout
// does (the same data, learner and seed) and scores every variant on the
// same fitted model. It runs only when given data:
//
//	go test ./eval -run TestTopKVariants -topk.data DIR[,DIR...] -v -timeout 30m
var topkData = flag.String("topk.data", "", "comma-separated conv2d dataset directories for TestTopKVariants")

// variant orders candidates given the model's ranking and what the
// bundle knows of the training shapes.
type variant struct {
	name  string
	order func(v *variantInput) []features.Config
}

// variantInput is what a variant may use: the chooser's ranked list (the
// pick first), the measured bests of the training shapes nearest the
// held-out one (nearest first), their top-3 measured, and the chooser.
type variantInput struct {
	ch      *runtime.Chooser
	task    features.Task
	ranked  []runtime.Pick
	nnBest  []features.Config   // the nearest training shapes' fastest, nearest first
	nnTop3  [][]features.Config // their three fastest each
	grid    []features.Config   // the model's best of each nearest grid shape (Starts), nearest first
	gridTop [][]features.Config
}

func TestTopKVariants(t *testing.T) {
	if *topkData == "" {
		t.Skip("no -topk.data")
	}
	variants := topkVariants()
	for _, dir := range strings.Split(*topkData, ",") {
		t.Run(dir, func(t *testing.T) {
			res := runVariants(t, dir, variants)
			for _, v := range variants {
				var parts []string
				for ki, k := range topKs {
					var logs []float64
					worst := 100.0
					for _, s := range res[v.name] {
						logs = append(logs, math.Log(s[ki]))
						worst = min(worst, s[ki])
					}
					parts = append(parts, fmt.Sprintf("k=%d %.1f (%.1f)", k, geomean(logs), worst))
				}
				line := fmt.Sprintf("%s\t%-10s\t%s\n", dir, v.name, strings.Join(parts, "  "))
				fmt.Fprint(os.Stdout, line)
			}
		})
	}
}

// runVariants returns, per variant, per held-out shape, the best % of the
// first k candidates for every k of topKs.
func runVariants(t *testing.T, dir string, variants []variant) map[string][][len(topKs)]float64 {
	all, err := train.LoadWith(dir, "conv2d", train.LoadOptions{Invalid: train.InvalidZeta, Derived: datasets.Deriver("conv2d")})
	if err != nil {
		t.Fatal(err)
	}
	space, err := features.NewSpace(all.Params, all.Constraints)
	if err != nil {
		t.Fatal(err)
	}
	var okRows []int
	for i, s := range all.Samples() {
		if s.Measured() {
			okRows = append(okRows, i)
		}
	}
	d := all.Subset(okRows)
	out := map[string][][len(topKs)]float64{}
	for _, g := range groupRows(all, space) {
		plat := all.Platforms[g.platform]
		var rows []int
		byShape := map[features.TaskKey][]int{}
		var shapes []features.Task
		for i, s := range d.Samples() {
			if d.Platforms[s.Platform].Slug() == plat.Slug() && s.Task.Key() != g.task.Key() {
				rows = append(rows, i)
				k := s.Task.Key()
				if byShape[k] == nil {
					shapes = append(shapes, s.Task)
				}
				byShape[k] = append(byShape[k], i)
			}
		}
		if len(rows) < 20 || len(g.times) == 0 || g.refNs == 0 {
			continue
		}
		b, _, err := train.FitBundle(d.Subset(rows), train.Options{Kernel: "conv2d", Model: "auto", Seed: 1}, plat.Slug(), &plat)
		if err != nil {
			t.Fatal(err)
		}
		ch, err := runtime.FromBundle(b, runtime.Options{})
		if err != nil {
			t.Fatal(err)
		}
		in := &variantInput{ch: ch, task: g.task}
		if in.ranked, err = ch.Candidates(g.task, 1<<20); err != nil {
			t.Fatal(err)
		}
		dist := func(a features.Task) float64 {
			s := 0.0
			for f := range a {
				x := math.Log(float64(a[f])) - math.Log(float64(g.task[f]))
				s += x * x
			}
			return s
		}
		slices.SortStableFunc(shapes, func(a, b features.Task) int { return cmp.Compare(dist(a), dist(b)) })
		for _, s := range shapes {
			r := byShape[s.Key()]
			slices.SortStableFunc(r, func(a, b int) int { return cmp.Compare(d.Sample(a).TimeNs, d.Sample(b).TimeNs) })
			in.nnBest = append(in.nnBest, d.Sample(r[0]).Config)
			var top []features.Config
			for _, i := range r[:min(3, len(r))] {
				top = append(top, d.Sample(i).Config)
			}
			in.nnTop3 = append(in.nnTop3, top)
		}
		if st := b.Models[0].Starts; st != nil {
			idx := make([]int, len(st.Shapes))
			for i := range idx {
				idx[i] = i
			}
			slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(dist(st.Shapes[a]), dist(st.Shapes[b])) })
			for _, gi := range idx {
				var top []features.Config
				for _, pi := range st.Configs[gi] {
					top = append(top, st.Pool[pi])
				}
				in.gridTop = append(in.gridTop, top)
				in.grid = append(in.grid, top[0])
			}
		}
		for _, v := range variants {
			cands := firstDistinct(space, v.order(in), topKs[len(topKs)-1])
			var row [len(topKs)]float64
			for ki, k := range topKs {
				best, failed := 0.0, false
				for _, c := range cands[:min(k, len(cands))] {
					switch status, pct := g.score(space.Format(c)); status {
					case "ok":
						best = max(best, pct)
					case "failed":
						failed = true
					}
				}
				if best == 0 && failed {
					best = 100 * g.bestNs / g.refNs
				}
				row[ki] = best
			}
			out[v.name] = append(out[v.name], row)
		}
		fmt.Fprintf(os.Stdout, "%s\t%s\tdone\n", dir, features.FormatTask(all.TaskNames, g.task))
	}
	return out
}

// firstDistinct keeps the first n distinct configurations of cs.
func firstDistinct(space *features.Space, cs []features.Config, n int) []features.Config {
	seen := map[int]bool{}
	var out []features.Config
	for _, c := range cs {
		if i := space.Index(c); !seen[i] && len(out) < n {
			seen[i] = true
			out = append(out, c)
		}
	}
	return out
}

func configs(ps []runtime.Pick) []features.Config {
	out := make([]features.Config, len(ps))
	for i, p := range ps {
		out[i] = p.Config
	}
	return out
}

// interleave takes from a and b in turn, a first.
func interleave(a, b []features.Config) []features.Config {
	var out []features.Config
	for i := 0; i < max(len(a), len(b)); i++ {
		if i < len(a) {
			out = append(out, a[i])
		}
		if i < len(b) {
			out = append(out, b[i])
		}
	}
	return out
}

func hamming(a, b features.Config) int {
	n := 0
	for i := range a {
		if a[i] != b[i] {
			n++
		}
	}
	return n
}

// greedy takes, after the pick, the best ranked configuration that far
// says is far enough from every one taken, and falls back to the ranking
// when none is.
func greedy(ranked []features.Config, n int, far func(a, b features.Config) bool) []features.Config {
	out := []features.Config{ranked[0]}
	used := map[int]bool{0: true}
	for len(out) < n {
		next := -1
		for i, c := range ranked {
			if used[i] {
				continue
			}
			ok := true
			for _, o := range out {
				if !far(c, o) {
					ok = false
					break
				}
			}
			if ok {
				next = i
				break
			}
		}
		if next < 0 {
			for i := range ranked {
				if !used[i] {
					next = i
					break
				}
			}
		}
		if next < 0 {
			break
		}
		used[next] = true
		out = append(out, ranked[next])
	}
	return out
}

// important returns, for the shape, which parameters matter: those whose
// values' best predictions spread by more than eps (log-speedup).
func important(in *variantInput, eps float64) []bool {
	n := len(in.ranked[0].Config)
	best := make([]map[int]float64, n)
	for p := range best {
		best[p] = map[int]float64{}
	}
	for _, r := range in.ranked[1:] { // the pick may come from elsewhere; the rest is the ranking
		for p, v := range r.Config {
			if b, ok := best[p][v]; !ok || r.LogSpeedup > b {
				best[p][v] = r.LogSpeedup
			}
		}
	}
	out := make([]bool, n)
	for p := range best {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, v := range best[p] {
			lo, hi = min(lo, v), max(hi, v)
		}
		out[p] = hi-lo > eps
	}
	return out
}

// profile is the model's predicted log-speedup of c on the nearest grid
// shapes and the shape itself.
func profileDist(in *variantInput, shapes []features.Task) func(a, b features.Config) float64 {
	cache := map[string][]float64{}
	prof := func(c features.Config) []float64 {
		k := fmt.Sprint(c)
		if p, ok := cache[k]; ok {
			return p
		}
		var p []float64
		for _, s := range shapes {
			v, _ := in.ch.Predict(s, c)
			p = append(p, v)
		}
		cache[k] = p
		return p
	}
	return func(a, b features.Config) float64 {
		pa, pb := prof(a), prof(b)
		s := 0.0
		for i := range pa {
			s += (pa[i] - pb[i]) * (pa[i] - pb[i])
		}
		return math.Sqrt(s / float64(len(pa)))
	}
}

func topkVariants() []variant {
	const n = 8
	nnRank := func(m int) func(in *variantInput) []features.Config {
		return func(in *variantInput) []features.Config {
			pool := slices.Clone(in.nnBest[:min(m, len(in.nnBest))])
			return append([]features.Config{in.ranked[0].Config}, interleave(rankBy(in, pool), configs(in.ranked[1:]))...)
		}
	}
	unimp := func(in *variantInput) []features.Config {
		imp := important(in, 0.05)
		return greedy(configs(in.ranked), n, func(a, b features.Config) bool {
			for p := range a {
				if imp[p] && a[p] != b[p] {
					return true
				}
			}
			return false
		})
	}
	return []variant{
		{"base", func(in *variantInput) []features.Config { return configs(in.ranked) }},
		{"ham2", func(in *variantInput) []features.Config {
			return greedy(configs(in.ranked), n, func(a, b features.Config) bool { return hamming(a, b) >= 2 })
		}},
		{"unimp", unimp},
		{"prof", func(in *variantInput) []features.Config {
			shapes := []features.Task{in.task}
			// the shape halved and doubled in each dimension
			for f := range in.task {
				for _, m := range []float64{0.5, 2} {
					s := slices.Clone(in.task)
					s[f] = max(1, int(math.Round(float64(s[f])*m)))
					shapes = append(shapes, s)
				}
			}
			dist := profileDist(in, shapes)
			return greedy(configs(in.ranked[:min(200, len(in.ranked))]), n, func(a, b features.Config) bool { return dist(a, b) >= 0.05 })
		}},
		{"grid-alt", func(in *variantInput) []features.Config {
			return append([]features.Config{in.ranked[0].Config}, interleave(configs(in.ranked[1:]), in.grid)...)
		}},
		{"nn-alt", func(in *variantInput) []features.Config {
			return append([]features.Config{in.ranked[0].Config}, interleave(in.nnBest, configs(in.ranked[1:]))...)
		}},
		{"alt-nn", func(in *variantInput) []features.Config {
			return append([]features.Config{in.ranked[0].Config}, interleave(configs(in.ranked[1:]), in.nnBest)...)
		}},
		{"nn-rank2", nnRank(2)},
		{"nn-rank4", nnRank(4)},
		{"nn-rank8", nnRank(8)},
		{"nn-rankall", nnRank(1 << 20)},
		{"nn4-first", func(in *variantInput) []features.Config {
			pool := slices.Clone(in.nnBest[:min(4, len(in.nnBest))])
			return append(append([]features.Config{in.ranked[0].Config}, rankBy(in, pool)...), configs(in.ranked[1:])...)
		}},
		{"nn3-rank", func(in *variantInput) []features.Config {
			var pool []features.Config
			for _, top := range in.nnTop3[:min(4, len(in.nnTop3))] {
				pool = append(pool, top...)
			}
			return append([]features.Config{in.ranked[0].Config}, interleave(rankBy(in, pool), configs(in.ranked[1:]))...)
		}},
		{"nn4+unimp", func(in *variantInput) []features.Config {
			pool := slices.Clone(in.nnBest[:min(4, len(in.nnBest))])
			div := unimp(in)
			return append([]features.Config{div[0]}, interleave(rankBy(in, pool), div[1:])...)
		}},
	}
}

// rankBy orders pool by the model's prediction for the shape, best first.
func rankBy(in *variantInput, pool []features.Config) []features.Config {
	type sc struct {
		c features.Config
		v float64
	}
	var s []sc
	for _, c := range pool {
		v, err := in.ch.Predict(in.task, c)
		if err == nil {
			s = append(s, sc{c, v})
		}
	}
	slices.SortStableFunc(s, func(a, b sc) int { return cmp.Compare(b.v, a.v) })
	out := make([]features.Config, len(s))
	for i, x := range s {
		out[i] = x.c
	}
	return out
}
