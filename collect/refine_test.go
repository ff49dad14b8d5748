package collect

import (
	"context"
	"slices"
	"testing"

	"github.com/augur-tuning/augur/collect/record"
	"github.com/augur-tuning/augur/features"
)

func TestRefineSet(t *testing.T) {
	space, err := features.NewSpace([]features.Param{
		{Name: "A", Values: []int{1, 2, 4}},
		{Name: "B", Values: []int{0, 1}},
	}, []string{"A * B != 4"})
	if err != nil {
		t.Fatal(err)
	}
	s1, s2 := features.Task{10}, features.Task{20}
	row := func(task features.Task, c features.Config, st record.Status, ns float64) record.Row {
		return record.Row{Task: task, Config: c, Status: st, TimeNs: ns}
	}
	rows := []record.Row{
		row(s1, features.Config{1, 0}, record.StatusOK, 30),
		row(s1, features.Config{2, 0}, record.StatusOK, 10), // fastest of s1
		row(s1, features.Config{2, 1}, record.StatusTimeout, 0),
		row(s2, features.Config{4, 0}, record.StatusOK, 50),
		row(s2, features.Config{1, 1}, record.StatusOK, 40), // fastest of s2
	}
	for _, tc := range []struct {
		name  string
		k     int
		want  map[int][]features.Config // by shape's first value
		union int
	}{
		{"fastest only", 1, map[int][]features.Config{
			// {2,0}'s neighbours: {1,0} and {2,1} recorded, {4,0} new.
			10: {{4, 0}},
			// {1,1}'s: {2,1}, {4,1} breaks the constraint, {1,0}.
			20: {{2, 1}, {1, 0}},
		}, 3},
		{"two fastest", 2, map[int][]features.Config{
			// and {1,0}'s: {2,0} recorded, {4,0} already in, {1,1}.
			10: {{4, 0}, {1, 1}},
			// and {4,0}'s: {1,0} and {2,0} ({4,1} breaks the constraint).
			20: {{2, 1}, {1, 0}, {2, 0}},
		}, 5},
		{"no shape rows", 1, map[int][]features.Config{30: nil}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var shapes []features.Task
			for v := range tc.want {
				shapes = append(shapes, features.Task{v})
			}
			slices.SortFunc(shapes, func(a, b features.Task) int { return a[0] - b[0] })
			configs, wants := RefineSet(space, rows, shapes, tc.k)
			if len(configs) != tc.union {
				t.Errorf("%d configurations %v, want %d", len(configs), configs, tc.union)
			}
			for _, s := range shapes {
				var got []features.Config
				for _, c := range configs {
					if wants(s, c) {
						got = append(got, c)
					}
				}
				want := tc.want[s[0]]
				if !slices.EqualFunc(sorted(got), sorted(want), features.Config.Equal) {
					t.Errorf("shape %v measures %v, want %v", s, got, want)
				}
			}
		})
	}
}

func sorted(cs []features.Config) []features.Config {
	out := slices.Clone(cs)
	slices.SortFunc(out, func(a, b features.Config) int { return slices.Compare(a, b) })
	return out
}

// TestRunRefine samples, then refines: the second run measures the
// fastest configuration's recorded neighbours and nothing else, and a
// third run after it measures the neighbours of what is fastest now.
func TestRunRefine(t *testing.T) {
	skipWithoutDevice(t)
	k := scaleKernel(t)
	dir := t.TempDir()
	opt := Options{Sample: "random:2", Repeats: 1, Seed: 3, Workers: 2, NoBench: true}
	if _, err := Run(context.Background(), k, dir, opt); err != nil {
		t.Fatal(err)
	}
	before, err := record.ReadDir(dir + "/scale")
	if err != nil {
		t.Fatal(err)
	}
	var rows []record.Row
	for _, f := range before {
		rows = append(rows, f.Rows...)
	}
	opt.Sample = "refine:1"
	sum, err := Run(context.Background(), k, dir, opt)
	if err != nil {
		t.Fatal(err)
	}
	_, wants := RefineSet(k.Space, rows, k.Tasks, 1)
	_, got, err := record.ReadFile(sum.Path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) == 0 {
		t.Fatal("refine:1 measured nothing")
	}
	for _, r := range got {
		if !wants(r.Task, r.Config) {
			t.Errorf("refine measured %v on %v, not a new neighbour of its fastest", r.Config, r.Task)
		}
	}
	for _, r := range rows {
		for _, g := range got {
			if g.Task.Key() == r.Task.Key() && g.Config.Equal(r.Config) {
				t.Errorf("refine measured %v on %v again", r.Config, r.Task)
			}
		}
	}
}
