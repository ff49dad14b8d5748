package train

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"

	"github.com/augur-tuning/augur/features"
)

// Known returns the distinct configurations measured (ok) in d, in order
// of first appearance.
func (d *Data) Known() []features.Config {
	seen := map[string]bool{}
	var out []features.Config
	for _, s := range d.Samples() {
		if !s.Measured() {
			continue
		}
		if k := fmt.Sprint(s.Config); !seen[k] {
			seen[k] = true
			out = append(out, s.Config)
		}
	}
	return out
}

// onePlatform returns the platform of d's rows when they are all of one,
// whatever d.Platforms lists: a Subset of one device's rows keeps every
// platform of the data it came from, and a device's own model must be the
// same whether or not other devices' rows were loaded beside its own
// (bench/RESULTS.md, session 18).
func (d *Data) onePlatform() (int, bool) {
	pi := -1
	for _, s := range d.Samples() {
		switch {
		case pi < 0:
			pi = s.Platform
		case s.Platform != pi:
			return 0, false
		}
	}
	return pi, pi >= 0
}

// startsPerShape is how many configurations the starts table keeps for
// each grid shape.
const startsPerShape = 8

// maxScored bounds the configurations scored for each grid shape: spaces
// larger than this are sampled.
const maxScored = 20000

// limitFeatures are the derived features that measure a configuration's
// use of a device resource; Model.Limits records their largest value
// among the rows that ran. augur's families name the work-group's items
// wg_items, a spec kernel's launch geometry wg_size.
var limitFeatures = []string{"wg_items", "wg_size", "local_mem"}

// limits returns, for each resource feature among d's derived features,
// its largest value over d's measured rows.
func (d *Data) limits() map[string]float64 {
	return d.limitsOf(func(int) bool { return true })
}

// typeLimits returns limits over the rows of each device type, for data
// of several platforms; nil for one platform or none of a known type. A
// type whose rows limit nothing (none ran) is left out: its devices keep
// to every row's limits.
func (d *Data) typeLimits() map[string]map[string]float64 {
	if _, one := d.onePlatform(); one {
		return nil
	}
	var out map[string]map[string]float64
	done := map[string]bool{"": true}
	for _, s := range d.Samples() {
		typ := d.Platforms[s.Platform].Type
		if done[typ] {
			continue
		}
		done[typ] = true
		if l := d.limitsOf(func(p int) bool { return d.Platforms[p].Type == typ }); l != nil {
			if out == nil {
				out = map[string]map[string]float64{}
			}
			out[typ] = l
		}
	}
	return out
}

// limitsOf is limits over the measured rows of the platforms keep takes.
func (d *Data) limitsOf(keep func(platform int) bool) map[string]float64 {
	out := map[string]float64{}
	for _, name := range limitFeatures {
		col := slices.Index(d.Features, "derived."+name)
		if col < 0 {
			continue
		}
		m := math.Inf(-1)
		for i, s := range d.Samples() {
			if s.Measured() && keep(s.Platform) {
				m = max(m, d.value(i, col))
			}
		}
		if !math.IsInf(m, -1) {
			out[name] = m
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// starts computes the climb starting points of a model fitted on d: for
// each shape of a grid over d's shapes, the startsPerShape configurations
// r predicts fastest among the configurations measured in d (sampled when
// there are very many), within d's limits. It returns nil when d's rows
// are of several platforms (the fleet model's).
func starts(d *Data, r Regressor, perShape int) (*features.Starts, error) {
	pi, ok := d.onePlatform()
	if !ok {
		return nil, nil
	}
	// Only configurations that ran on the device are candidates: a model
	// fitted on a sample of the space is most wrong, and most flattering,
	// where it saw nothing (the argmax over the whole space lands there),
	// and a configuration never run may not run at all.
	pool := d.Known()
	if len(d.groupParams) > 0 {
		sp, err := features.NewSpace(d.Params, d.Constraints)
		if err != nil {
			return nil, err
		}
		pool = sp.WithSmaller(pool, d.groupParams)
	}
	if len(pool) > maxScored {
		rng := rand.New(rand.NewPCG(uint64(len(pool)), 0x57a7))
		rng.Shuffle(len(pool), func(i, j int) { pool[i], pool[j] = pool[j], pool[i] })
		pool = append(pool[:maxScored:maxScored], Candidates(d, 0)...)
	}
	enc := d.Encoder()
	if enc.Len() != len(d.Features) {
		return nil, fmt.Errorf("train: starts: encoder has %d features, data %d", enc.Len(), len(d.Features))
	}
	pv := d.Platforms[pi].Vector()
	lim := d.limits()
	limCols := map[int]float64{}
	for name, v := range lim {
		limCols[slices.Index(d.Features, "derived."+name)] = v
	}
	grid := shapeGrid(d.Shapes())
	st := &features.Starts{Shapes: grid, Configs: make([][]int, len(grid))}
	top := make([][]features.Config, len(grid))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2)
	for gi, t := range grid {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			x := make([]float64, enc.Len())
			type scored struct {
				c features.Config
				v float64
			}
			var best []scored
			for _, c := range pool {
				enc.Encode(x, t, c, pv)
				ok := true
				for col, v := range limCols {
					if x[col] > v {
						ok = false
					}
				}
				if !ok {
					continue
				}
				best = append(best, scored{c, r.Predict(x)})
			}
			slices.SortStableFunc(best, func(a, b scored) int { return cmp.Compare(b.v, a.v) })
			for _, s := range best[:min(perShape, len(best))] {
				top[gi] = append(top[gi], s.c)
			}
		}()
	}
	wg.Wait()
	index := map[string]int{}
	for gi := range grid {
		for _, c := range top[gi] {
			key := fmt.Sprint(c)
			i, ok := index[key]
			if !ok {
				i = len(st.Pool)
				index[key] = i
				st.Pool = append(st.Pool, c)
			}
			st.Configs[gi] = append(st.Configs[gi], i)
		}
	}
	return st, nil
}

// shapeGrid spans the shapes' range: each task feature with at most 4
// distinct values keeps them (a filter size), any other gets 6 values
// spaced evenly on a log scale from its least to its largest value. A grid
// of more than 400 shapes falls back to the shapes themselves.
func shapeGrid(shapes []features.Task) []features.Task {
	if len(shapes) == 0 {
		return nil
	}
	n := len(shapes[0])
	axes := make([][]int, n)
	size := 1
	for f := 0; f < n; f++ {
		var vals []int
		for _, t := range shapes {
			vals = append(vals, t[f])
		}
		slices.Sort(vals)
		vals = slices.Compact(vals)
		if len(vals) > 4 && vals[0] > 0 {
			lo, hi := math.Log(float64(vals[0])), math.Log(float64(vals[len(vals)-1]))
			var g []int
			for i := 0; i < 6; i++ {
				g = append(g, int(math.Round(math.Exp(lo+(hi-lo)*float64(i)/5))))
			}
			vals = slices.Compact(g)
		}
		axes[f] = vals
		size *= len(vals)
	}
	if size > 400 {
		return shapes
	}
	out := make([]features.Task, 0, size)
	idx := make([]int, n)
	for {
		t := make(features.Task, n)
		for f := range t {
			t[f] = axes[f][idx[f]]
		}
		out = append(out, t)
		f := n - 1
		for f >= 0 {
			idx[f]++
			if idx[f] < len(axes[f]) {
				break
			}
			idx[f] = 0
			f--
		}
		if f < 0 {
			return out
		}
	}
}
