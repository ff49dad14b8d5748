package collect

import (
	"cmp"
	"slices"

	"github.com/augur-tuning/augur/collect/record"
	"github.com/augur-tuning/augur/features"
)

// RefineSet returns what "refine:K" measures: for each of shapes, the
// valid configurations of space that differ in one parameter's value from
// one of the shape's k fastest ok rows, less those rows records for the
// shape already. configs lists each such configuration once, in the order
// of the shapes and their fastest rows; wants says which shapes measure
// it.
//
// A random sample that covers the whole space thinly rarely holds the
// best configuration of a shape that was not measured, and the runtime's
// picks stay among configurations that ran in training. Good
// configurations of one shape are mostly good for its neighbours, so
// measuring around each shape's fastest fills the region that the picks
// for new shapes come from. On the H200's whole conv2d spaces
// (testdata/h200 and testdata/h200-test, each predicting the other; 8
// seeds, bench/refine.sh), picks for the other directory's shapes by a
// model trained on random:600 reached 89.1% and 89.4% of the optimum
// (geometric mean over seeds; the worst seed 79.8% and 74.9%); on
// random:400 and refine:3, 91.4% and 96.2% (88.6% and 92.0%), with 10-20%
// fewer configurations built.
func RefineSet(space *features.Space, rows []record.Row, shapes []features.Task, k int) ([]features.Config, func(features.Task, features.Config) bool) {
	type timed struct {
		config features.Config
		ns     float64
	}
	ok := map[features.TaskKey][]timed{}
	recorded := map[features.TaskKey]map[int]bool{}
	for _, r := range rows {
		key := r.Task.Key()
		if recorded[key] == nil {
			recorded[key] = map[int]bool{}
		}
		recorded[key][space.Index(r.Config)] = true
		if r.Status == record.StatusOK && r.TimeNs > 0 {
			ok[key] = append(ok[key], timed{r.Config, r.TimeNs})
		}
	}
	own := map[features.TaskKey]map[int]bool{}
	seen := map[int]bool{}
	var configs []features.Config
	for _, s := range shapes {
		key := s.Key()
		rows := ok[key]
		slices.SortStableFunc(rows, func(a, b timed) int { return cmp.Compare(a.ns, b.ns) })
		set := map[int]bool{}
		for _, t := range rows[:min(k, len(rows))] {
			for i, p := range space.Params {
				for _, v := range p.Values {
					if v == t.config[i] {
						continue
					}
					c := t.config.Clone()
					c[i] = v
					idx := space.Index(c)
					if idx < 0 || set[idx] || recorded[key][idx] || !space.Valid(c) {
						continue
					}
					set[idx] = true
					if !seen[idx] {
						seen[idx] = true
						configs = append(configs, c)
					}
				}
			}
		}
		own[key] = set
	}
	return configs, func(s features.Task, c features.Config) bool { return own[s.Key()][space.Index(c)] }
}
