package search

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/augur-tuning/augur/features"
)

// bigSpace returns a 6400-configuration space (20 x 20 x 16, of which the
// constraint keeps 5490) and a smooth objective with a single optimum at
// x=13, y=6, z=9, for tests and benchmarks that need room to search.
func bigSpace(tb testing.TB) (*features.Space, Objective, features.Config) {
	vals := func(n int) []int {
		v := make([]int, n)
		for i := range v {
			v[i] = i
		}
		return v
	}
	s, err := features.NewSpace([]features.Param{
		{Name: "x", Values: vals(20)},
		{Name: "y", Values: vals(20)},
		{Name: "z", Values: vals(16)},
	}, []string{"x + y <= 30"})
	if err != nil {
		tb.Fatal(err)
	}
	obj := func(c features.Config) (float64, error) {
		d := func(x, y int) float64 { return float64((x - y) * (x - y)) }
		return -(d(c[0], 13) + d(c[1], 6) + d(c[2], 9)) / 100, nil
	}
	return s, obj, features.Config{13, 6, 9}
}

func TestFindsOptimum(t *testing.T) {
	for _, tc := range []struct {
		name   string
		st     Strategy
		budget int
		scale  float64 // multiplies the objective; 0 means 1
	}{
		{"random covering the space", Random{}, 6400, 0},
		{"hillclimb", HillClimb{Steps: 300}, 0, 0},
		{"anneal", Anneal{Temperature: 0.05}, 300, 0},
		// CLTune's T=4 was meant for times in milliseconds: score
		// differences of a few units.
		{"anneal-default-temperature", Anneal{}, 500, 100},
		{"pso", PSO{}, 500, 0},
		{"pso-6", PSO{Swarm: 6}, 500, 0},
		{"grouped by parameter", Grouped{}, 0, 0},
		{"grouped", Grouped{Groups: [][]string{{"x", "z"}, {"y"}}, Rounds: 1}, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, obj, want := bigSpace(t)
			if tc.scale != 0 {
				unscaled := obj
				obj = func(c features.Config) (float64, error) {
					v, err := unscaled(c)
					return tc.scale * v, err
				}
			}
			for seed := range uint64(5) {
				res, err := Run(tc.st, s, obj, rand.New(rand.NewPCG(seed, 3)), Settings{Budget: tc.budget})
				if err != nil {
					t.Fatal(err)
				}
				if !res.Best.Equal(want) {
					t.Errorf("seed %d: Best = %s (%g) after %d evals, want %s", seed, s.Format(res.Best), res.Score, res.Evals, s.Format(want))
				}
			}
		})
	}
}

// TestEvaluatesOnce checks that the strategies that remember scores never
// pay twice for one configuration, so that the budget counts distinct ones.
func TestEvaluatesOnce(t *testing.T) {
	for name, st := range map[string]Strategy{
		"anneal":  Anneal{},
		"pso":     PSO{},
		"random":  Random{},
		"grouped": Grouped{},
	} {
		t.Run(name, func(t *testing.T) {
			s, obj, _ := space(t)
			calls := map[string]int{}
			res, err := Run(st, s, func(c features.Config) (float64, error) {
				calls[s.Format(c)]++
				return obj(c)
			}, rand.New(rand.NewPCG(2, 2)), Settings{Budget: 25})
			if err != nil {
				t.Fatal(err)
			}
			for c, n := range calls {
				if n > 1 {
					t.Errorf("%s evaluated %d times", c, n)
				}
			}
			if res.Evals != len(calls) {
				t.Errorf("Evals = %d, objective saw %d configurations", res.Evals, len(calls))
			}
		})
	}
}

// TestSmallSpaceStops checks that a budget larger than the space ends when
// the space is exhausted instead of spinning.
func TestSmallSpaceStops(t *testing.T) {
	s, obj, want := space(t)
	for name, st := range map[string]Strategy{
		"anneal": Anneal{},
		"pso":    PSO{},
	} {
		res, err := Run(st, s, obj, rand.New(rand.NewPCG(4, 4)), Settings{Budget: 1000})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if res.Evals > s.Len() || !res.Best.Equal(want) {
			t.Errorf("%s: %d evals of a %d-configuration space, Best %v; want at most %d and %v", name, res.Evals, s.Len(), res.Best, s.Len(), want)
		}
	}
}

func TestStrategyOptionErrors(t *testing.T) {
	s, obj, _ := space(t)
	for _, tc := range []struct {
		name  string
		st    Strategy
		field string
	}{
		{"anneal negative temperature", Anneal{Temperature: -1}, "Anneal.Temperature"},
		{"anneal infinite temperature", Anneal{Temperature: math.Inf(1)}, "Anneal.Temperature"},
		{"anneal invalid start", Anneal{Start: features.Config{8, 8, 1}}, "Anneal.Start"},
		{"anneal start out of domain", Anneal{Start: features.Config{3, 1, 1}}, "Anneal.Start"},
		{"pso negative swarm", PSO{Swarm: -2}, "PSO.Swarm"},
		{"pso alpha above 1", PSO{Alpha: 1.5}, "PSO.Alpha"},
		{"pso negative beta", PSO{Beta: -0.1}, "PSO.Beta"},
		{"pso gamma NaN", PSO{Gamma: math.NaN()}, "PSO.Gamma"},
		{"pso sum above 1", PSO{Alpha: 0.5, Beta: 0.5, Gamma: 0.5}, "PSO.Alpha+Beta+Gamma"},
		{"pso default sum above 1", PSO{Beta: 0.3}, "PSO.Alpha+Beta+Gamma"},
		{"grouped negative rounds", Grouped{Rounds: -1}, "Grouped.Rounds"},
		{"grouped unknown name", Grouped{Groups: [][]string{{"a"}, {"d"}}}, "Grouped.Groups[1]"},
		{"grouped empty group", Grouped{Groups: [][]string{{}}}, "Grouped.Groups[0]"},
		{"grouped invalid start", Grouped{Start: features.Config{8, 8, 2}}, "Grouped.Start"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Run(tc.st, s, obj, rand.New(rand.NewPCG(1, 1)), Settings{})
			if err == nil || !strings.Contains(err.Error(), tc.field) || !strings.HasPrefix(err.Error(), "search: ") {
				t.Errorf("error = %v, want one naming %s", err, tc.field)
			}
		})
	}
}

func TestBudgetRespected(t *testing.T) {
	s, obj, _ := bigSpace(t)
	for _, st := range []Strategy{Random{}, HillClimb{}, HillClimb{Steps: 7, P: 0.5}, Anneal{}, PSO{}, PSO{Swarm: 6}, Grouped{Rounds: 5}, Exhaustive{}} {
		for _, n := range []int{1, 2, 3, 6, 17, 64, 150} {
			res, err := Run(st, s, obj, rand.New(rand.NewPCG(uint64(n), 9)), Settings{Budget: n})
			if err != nil {
				t.Fatal(err)
			}
			// On a space this large nothing runs out of new configurations,
			// so only a HillClimb with fixed-length climbs leaves some
			// budget unspent; a grouped search restarts until it is spent.
			want := n
			if h, ok := st.(HillClimb); ok && h.Steps > 0 && n > h.Steps+1 {
				want = n - n%(h.Steps+1)
			}
			if res.Evals != want {
				t.Errorf("%T%+v with budget %d: Evals = %d, want %d", st, st, n, res.Evals, want)
			}
		}
	}
}

// TestHillClimbBudget checks how a budget divides into climbs: one climb
// as long as the budget with Steps unset or longer than the budget, else
// as many climbs of Steps as fit.
func TestHillClimbBudget(t *testing.T) {
	for _, tc := range []struct {
		name          string
		h             HillClimb
		budget        int
		climbs, steps int // steps -1: until the budget is spent
	}{
		{"one climb", HillClimb{P: 0.5}, 40, 1, -1},
		{"climbs fill", HillClimb{Steps: 9, Restarts: 7}, 35, 3, 9},
		{"short budget", HillClimb{Steps: 75, Restarts: 2}, 10, 1, -1},
		{"no budget", HillClimb{Steps: 10, Restarts: 2}, 0, 3, 10},
		{"no budget, defaults", HillClimb{}, 0, 1, 75},
	} {
		steps, _, err := tc.h.params()
		if err != nil {
			t.Fatal(err)
		}
		if climbs, steps := tc.h.climbs(steps, tc.budget); climbs != tc.climbs || steps != tc.steps {
			t.Errorf("%s: %d climbs of %d steps, want %d of %d", tc.name, climbs, steps, tc.climbs, tc.steps)
		}
	}
}

func TestRunErrors(t *testing.T) {
	s, obj, _ := space(t)
	for _, tc := range []struct {
		name string
		st   Strategy
		set  Settings
		want string
	}{
		{"negative budget", Random{}, Settings{Budget: -4}, "Settings.Budget"},
		{"nil strategy", nil, Settings{}, "nil"},
	} {
		_, err := Run(tc.st, s, obj, rand.New(rand.NewPCG(1, 1)), tc.set)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "search: ") {
			t.Errorf("%s: error = %v, want one naming %s", tc.name, err, tc.want)
		}
	}
}

func TestAccept(t *testing.T) {
	inf := math.Inf(-1)
	rng := rand.New(rand.NewPCG(1, 1))
	for _, tc := range []struct {
		name       string
		cur, v, tk float64
		want       bool
	}{
		{"better", 1, 2, 0, true},
		{"worse when frozen", 2, 1, 0, false},
		{"failed neighbour", 2, inf, 100, false},
		{"off a failed start", inf, inf, 0, true},
		{"far worse when cool", 0, -100, 1e-3, false},
		{"slightly worse when hot", 0, -1e-9, 1e9, true},
	} {
		if got := accept(tc.cur, tc.v, tc.tk, rng); got != tc.want {
			t.Errorf("%s: accept(%g, %g, %g) = %v, want %v", tc.name, tc.cur, tc.v, tc.tk, got, tc.want)
		}
	}
}

// TestAnnealTemperature checks that the temperature matters: walks that
// accept worse moves visit a different part of the space than walks that
// only climb, judged by the mean score of what they evaluate.
func TestAnnealTemperature(t *testing.T) {
	s, obj, _ := bigSpace(t)
	mean := func(temp float64) float64 {
		sum, n := 0.0, 0
		for seed := range uint64(20) {
			_, err := Run(Anneal{Temperature: temp, Start: features.Config{0, 0, 0}}, s, func(c features.Config) (float64, error) {
				v, err := obj(c)
				sum += v
				n++
				return v, err
			}, rand.New(rand.NewPCG(seed, 5)), Settings{Budget: 60})
			if err != nil {
				t.Fatal(err)
			}
		}
		return sum / float64(n)
	}
	cold, hot := mean(1e-9), mean(100)
	if !(cold > hot) {
		t.Errorf("mean evaluated score: cold %g, hot %g; want cold walks to climb higher", cold, hot)
	}
}

func TestReplay(t *testing.T) {
	s, _, _ := space(t)
	times := map[string]float64{"a=4,b=8,c=2": 10, "a=1,b=1,c=1": 40, "a=8,b=4,c=1": 20}
	speedup, err := Replay(s, times, 40)
	if err != nil {
		t.Fatal(err)
	}
	negTime, err := Replay(s, times, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		c             features.Config
		speedup, time float64 // NaN: not recorded
	}{
		{features.Config{4, 8, 2}, math.Log(4), -10},
		{features.Config{1, 1, 1}, 0, -40},
		{features.Config{8, 4, 1}, math.Log(2), -20},
		{features.Config{8, 4, 2}, math.NaN(), math.NaN()},
		{features.Config{3, 4, 2}, math.NaN(), math.NaN()},
	} {
		for _, o := range []struct {
			obj  Objective
			want float64
		}{{speedup, tc.speedup}, {negTime, tc.time}} {
			got, err := o.obj(tc.c)
			if math.IsNaN(o.want) {
				if !errors.Is(err, ErrNotRecorded) {
					t.Errorf("%v: error %v, want ErrNotRecorded", tc.c, err)
				}
				continue
			}
			if err != nil || math.Abs(got-o.want) > 1e-12 {
				t.Errorf("%v = %g, %v; want %g", tc.c, got, err, o.want)
			}
		}
	}
	res, err := Run(Anneal{}, s, speedup, rand.New(rand.NewPCG(1, 1)), Settings{Budget: 100})
	if err != nil || !res.Best.Equal(features.Config{4, 8, 2}) {
		t.Errorf("Anneal over the replay = %v, %v; want the fastest recorded a=4,b=8,c=2", res.Best, err)
	}
}

func TestReplayErrors(t *testing.T) {
	s, _, _ := space(t)
	for _, tc := range []struct {
		name  string
		times map[string]float64
		ref   float64
		want  string
	}{
		{"invalid configuration", map[string]float64{"a=8,b=8,c=1": 1}, 0, "a=8,b=8,c=1"},
		{"unknown parameter", map[string]float64{"a=1,b=1,c=1,d=1": 1}, 0, "a=1,b=1,c=1,d=1"},
		{"zero time", map[string]float64{"a=1,b=1,c=1": 0}, 0, "positive"},
		{"NaN time", map[string]float64{"a=1,b=1,c=1": math.NaN()}, 0, "positive"},
		{"negative reference", map[string]float64{"a=1,b=1,c=1": 1}, -1, "reference"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Replay(s, tc.times, tc.ref)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error = %v, want one mentioning %q", err, tc.want)
			}
		})
	}
}

// TestSpaceIndexKeys checks the key memo and Replay use for this space.
func TestSpaceIndexKeys(t *testing.T) {
	s, _, _ := space(t)
	seen := map[int]bool{}
	s.Each(func(c features.Config) bool {
		k := s.Index(c)
		if k < 0 || k >= s.RawSize() || seen[k] {
			t.Errorf("Index(%v) = %d: out of range or repeated", c, k)
		}
		seen[k] = true
		return true
	})
	for _, c := range []features.Config{{3, 1, 1}, {1, 1}, {1, 1, 1, 1}} {
		if k := s.Index(c); k != -1 {
			t.Errorf("Index(%v) = %d, want -1", c, k)
		}
	}
}

// TestGroupedExploresProduct checks that a group of two parameters is
// searched over every valid combination of their values, the others held.
func TestGroupedExploresProduct(t *testing.T) {
	s, obj, _ := space(t)
	res, err := Run(Grouped{Groups: [][]string{{"a", "b"}}, Rounds: 1, Start: features.Config{1, 1, 1}}, s, obj, nil, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	// 4 x 4 values of a and b, less a=8,b=8, with c held at 1.
	if want := (features.Config{4, 8, 1}); !res.Best.Equal(want) || res.Evals != 15 {
		t.Errorf("Best %v after %d evals, want %v after 15", res.Best, res.Evals, want)
	}
}

// TestPrunedNotCounted checks Settings.Pruned for every strategy: the
// objective is never called for a pruned configuration, the budget is
// spent on the others (as without pruning), and a space pruned whole ends
// the search with nothing found instead of looping.
func TestPrunedNotCounted(t *testing.T) {
	s, obj, _ := bigSpace(t)
	for _, tc := range []struct {
		name   string
		pruned func(features.Config) bool
	}{
		{"z >= 8 pruned (half)", func(c features.Config) bool { return c[2] >= 8 }},
		{"all but x < 3 pruned", func(c features.Config) bool { return c[0] >= 3 }},
		{"everything pruned", func(features.Config) bool { return true }},
	} {
		for _, st := range []Strategy{Random{}, HillClimb{}, HillClimb{Steps: 7, P: 0.5}, Anneal{}, PSO{}, Grouped{Rounds: 5}, Exhaustive{}} {
			for _, n := range []int{1, 17, 150} {
				name := fmt.Sprintf("%s/%T%+v/budget %d", tc.name, st, st, n)
				calls := 0
				counted := func(c features.Config) (float64, error) {
					if tc.pruned(c) {
						t.Fatalf("%s: objective called for pruned %s", name, s.Format(c))
					}
					calls++
					return obj(c)
				}
				res, err := Run(st, s, counted, rand.New(rand.NewPCG(uint64(n), 5)), Settings{Budget: n, Pruned: tc.pruned})
				if res.Evals != calls {
					t.Errorf("%s: Evals = %d, objective calls %d", name, res.Evals, calls)
				}
				everything := tc.pruned(features.Config{0, 0, 0})
				if everything {
					if !errors.Is(err, ErrNothingFound) || res.Evals != 0 {
						t.Errorf("%s: err %v, Evals %d; want ErrNothingFound and none", name, err, res.Evals)
					}
					continue
				}
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if tc.pruned(res.Best) {
					t.Errorf("%s: best %s is pruned", name, s.Format(res.Best))
				}
				// Every strategy spends its budget within the limits as it
				// does on a space without pruning (TestBudgetRespected); a
				// climb of fixed length leaves the remainder. A grouped
				// search walks one parameter at a time from a start, and
				// where most of the space is pruned it may run out of
				// restarts first.
				want := n
				if h, ok := st.(HillClimb); ok && h.Steps > 0 && n > h.Steps+1 {
					want = n - n%(h.Steps+1)
				}
				if _, grouped := st.(Grouped); grouped && res.Evals <= want {
					continue
				}
				if res.Evals != want {
					t.Errorf("%s: Evals = %d, want %d", name, res.Evals, want)
				}
			}
		}
	}
}
