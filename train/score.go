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
// platform), in the order the shapes first appear.
func (d *Data) measuredByShape() [][]int {
	type shape struct {
		task     features.TaskKey
		platform int
	}
	index := map[shape]int{}
	var groups [][]int
	for i, s := range d.Samples() {
		if !s.Measured() {
			continue
		}
		k := shape{s.Task.Key(), s.Platform}
		g, ok := index[k]
		if !ok {
			g = len(groups)
			index[k] = g
			groups = append(groups, nil)
		}
		groups[g] = append(groups[g], i)
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
