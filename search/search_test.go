package search

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/augur-tuning/augur/features"
)

// space returns a small constrained space and an objective with a single
// optimum at a=4, b=8, c=2, so that every strategy has something to find.
func space(t testing.TB) (*features.Space, Objective, features.Config) {
	s, err := features.NewSpace([]features.Param{
		{Name: "a", Values: []int{1, 2, 4, 8}},
		{Name: "b", Values: []int{1, 2, 4, 8}},
		{Name: "c", Values: []int{1, 2}},
	}, []string{"a * b <= 32"})
	if err != nil {
		t.Fatal(err)
	}
	obj := func(c features.Config) (float64, error) {
		if !s.Valid(c) {
			t.Fatalf("objective called with invalid %v", c)
		}
		if c[0] == 1 && c[1] == 1 && c[2] == 2 {
			return 0, errors.New("fails to compile")
		}
		d := func(x, y int) float64 { return float64((x - y) * (x - y)) }
		return -(d(c[0], 4) + d(c[1], 8) + d(c[2], 2)), nil
	}
	return s, obj, features.Config{4, 8, 2}
}

// budgeted is a strategy and the budget a test runs it under (0: none).
type budgeted struct {
	st     Strategy
	budget int
}

// TestConformance is the suite every strategy passes: it evaluates only
// valid configurations, reports the best it saw with its score, counts its
// evaluations, stays within its budget, survives failing evaluations and
// is reproducible for a seed.
func TestConformance(t *testing.T) {
	strategies := map[string]budgeted{
		"exhaustive":       {Exhaustive{}, 0},
		"exhaustive-10":    {Exhaustive{}, 10},
		"random":           {Random{}, 20},
		"random-all":       {Random{}, 0},
		"hillclimb":        {HillClimb{Steps: 30, Start: features.Config{1, 1, 1}}, 0},
		"hillclimb-rand":   {HillClimb{Steps: 10, Restarts: 3}, 0},
		"anneal":           {Anneal{Start: features.Config{1, 1, 1}}, 20},
		"anneal-hot":       {Anneal{Temperature: 50}, 25},
		"anneal-all":       {Anneal{}, 0},
		"pso":              {PSO{}, 20},
		"pso-local":        {PSO{Swarm: 6, Alpha: 0.3, Beta: 0.3, Gamma: 0.3}, 25},
		"pso-unbudgeted":   {PSO{}, 0},
		"grouped":          {Grouped{}, 0},
		"grouped-pairs":    {Grouped{Groups: [][]string{{"a", "b"}, {"c"}}, Start: features.Config{1, 1, 1}}, 12},
		"grouped-restarts": {Grouped{Groups: [][]string{{"a"}, {"b"}}}, 25},
		"grouped-reshape":  {Grouped{Groups: [][]string{{"c"}}, Reshape: []string{"a", "b"}, Init: map[string]int{"a": 2, "b": 2}}, 0},
		"grouped-coupled":  {Grouped{Groups: [][]string{{"a"}, {"b"}}, Coupled: map[string]string{"a": "b"}, Rounds: 3}, 0},
		"fixed":            {Fixed{Strategy: Grouped{}, Param: "c", Value: 2}, 0},
		"oracle":           {Oracle{Strategy: Anneal{}, Param: "c"}, 20},
		"list":             {List{Configs: []features.Config{{1, 1, 1}, {2, 2, 2}, {8, 8, 8}, {4, 2, 1}}}, 0},
	}
	for name, tc := range strategies {
		t.Run(name, func(t *testing.T) {
			s, obj, _ := space(t)
			run := func() Result {
				var best float64
				first := true
				calls := 0
				res, err := Run(tc.st, s, func(c features.Config) (float64, error) {
					calls++
					if !s.Valid(c) {
						t.Errorf("evaluated %v, which breaks the constraints", c)
					}
					v, err := obj(c)
					if err == nil && (first || v > best) {
						best, first = v, false
					}
					return v, err
				}, rand.New(rand.NewPCG(7, 7)), Settings{Budget: tc.budget})
				if err != nil {
					t.Fatal(err)
				}
				if res.Evals != calls || tc.budget > 0 && calls > tc.budget {
					t.Errorf("Evals = %d, objective called %d times, budget %d", res.Evals, calls, tc.budget)
				}
				if res.Score != best {
					t.Errorf("Score = %g, best evaluated = %g", res.Score, best)
				}
				if got, _ := obj(res.Best); got != res.Score {
					t.Errorf("Best %v scores %g, Result says %g", res.Best, got, res.Score)
				}
				if res.Evals == 0 {
					t.Error("Evals = 0")
				}
				return res
			}
			a, b := run(), run()
			if !a.Best.Equal(b.Best) || a.Evals != b.Evals {
				t.Errorf("same seed, different results: %v/%d and %v/%d", a.Best, a.Evals, b.Best, b.Evals)
			}
		})
	}
}

func TestExhaustiveFindsOptimum(t *testing.T) {
	s, obj, want := space(t)
	res, err := Run(Exhaustive{}, s, obj, nil, Settings{})
	if err != nil || !res.Best.Equal(want) || res.Evals != s.Len() {
		t.Errorf("Exhaustive = %v (%d evals), %v; want %v in %d", res.Best, res.Evals, err, want, s.Len())
	}
}

func TestHillClimbClimbs(t *testing.T) {
	s, obj, want := space(t)
	res, err := Run(HillClimb{Steps: 75, Start: features.Config{1, 1, 1}}, s, obj, rand.New(rand.NewPCG(1, 1)), Settings{})
	if err != nil || !res.Best.Equal(want) {
		t.Errorf("HC75 = %v, %v; want %v", res.Best, err, want)
	}
	if res.Evals != 76 {
		t.Errorf("HC75 Evals = %d, want 76 (start + 75 steps)", res.Evals)
	}
}

func TestOptionErrors(t *testing.T) {
	s, obj, _ := space(t)
	rng := rand.New(rand.NewPCG(1, 1))
	for name, tc := range map[string]budgeted{
		"negative steps":  {HillClimb{Steps: -1}, 0},
		"p above 1":       {HillClimb{P: 2}, 0},
		"invalid start":   {HillClimb{Start: features.Config{8, 8, 1}}, 0},
		"negative budget": {Random{}, -3},
		"nil strategy":    {nil, 0},
	} {
		if _, err := Run(tc.st, s, obj, rng, Settings{Budget: tc.budget}); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestAllFail(t *testing.T) {
	s, _, _ := space(t)
	_, err := Run(Random{}, s, func(features.Config) (float64, error) { return 0, errors.New("x") }, rand.New(rand.NewPCG(1, 1)), Settings{Budget: 5})
	if !errors.Is(err, ErrNothingFound) {
		t.Errorf("error = %v, want ErrNothingFound", err)
	}
}
