package train

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/augur-tuning/augur/features"
)

// Score computes the metrics of CrossValidate for predictions pred of d's
// rows made by a model fitted elsewhere (a learning curve's held-out part).
func Score(d *Data, pred []float64) CV { return scores(d, pred) }

// Candidates returns up to max configurations (0 means 16) that ran
// fastest on d's shapes: the best few of every shape, round-robin over
// shapes, so that each shape contributes its winners.
func Candidates(d *Data, max int) []features.Config {
	if max == 0 {
		max = 16
	}
	groups := d.measuredByShape()
	for _, rows := range groups {
		slices.SortStableFunc(rows, func(a, b int) int { return cmp.Compare(d.Sample(a).TimeNs, d.Sample(b).TimeNs) })
	}
	var out []features.Config
	seen := map[string]bool{}
	for rank := 0; len(out) < max; rank++ {
		added := false
		for _, rows := range groups {
			if rank >= len(rows) || len(out) >= max {
				continue
			}
			added = true
			c := d.Sample(rows[rank]).Config
			if key := fmt.Sprint(c); !seen[key] {
				seen[key] = true
				out = append(out, c)
			}
		}
		if !added {
			break
		}
	}
	return out
}

// measuredByShape groups the measured rows by shape (a task on a
// platform), in the order the shapes first appear. The groups share one
// list of rows, made at its size (each group's capacity ends where it
// does): at a million rows, appending to each group took 35 MB, a third
// of what was allocated after the fleet model's fit (bench/RESULTS.md,
// session 16).
func (d *Data) measuredByShape() [][]int {
	c := &d.samples
	type shape struct{ task, platform uint32 }
	index := map[shape]int32{}
	group := make([]int32, d.Len()) // each row's group; -1: not measured
	var counts []int
	total := 0
	for i := range group {
		if !(c.timeNs[i] > 0 && c.refTimeNs.value(i) > 0) { // Sample.Measured
			group[i] = -1
			continue
		}
		k := shape{c.task.code(i), c.platform.code(i)}
		g, ok := index[k]
		if !ok {
			g = int32(len(counts))
			index[k] = g
			counts = append(counts, 0)
		}
		group[i] = g
		counts[g]++
		total++
	}
	rows := make([]int, total)
	groups := make([][]int, len(counts))
	off := 0
	for g, n := range counts {
		groups[g] = rows[off : off : off+n]
		off += n
	}
	for i, g := range group {
		if g >= 0 {
			groups[g] = append(groups[g], i)
		}
	}
	return groups
}

// Shapes returns the distinct shapes of d's rows, in order of appearance.
func (d *Data) Shapes() []features.Task {
	seen := map[features.TaskKey]bool{}
	var out []features.Task
	for _, s := range d.Samples() {
		if k := s.Task.Key(); !seen[k] {
			seen[k] = true
			out = append(out, s.Task)
		}
	}
	return out
}
