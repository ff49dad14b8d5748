package search

import (
	"errors"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/augur-tuning/augur/features"
)

// workGroupSpace is a three-dimensional work-group with a cyclic merge
// factor in x, powers of two up to 8, at most 64 work-items a group.
func workGroupSpace(t testing.TB) *features.Space {
	v := []int{1, 2, 4, 8}
	s, err := features.NewSpace([]features.Param{
		{Name: "WX", Values: v}, {Name: "WY", Values: v}, {Name: "WZ", Values: v}, {Name: "CX", Values: v},
	}, []string{"WX * WY * WZ <= 64"})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestGroupedReshape checks the hybrid's reshaping step: every shape of the
// current work-group size, and nothing else, is tried.
func TestGroupedReshape(t *testing.T) {
	s := workGroupSpace(t)
	var seen []features.Config
	obj := func(c features.Config) (float64, error) {
		seen = append(seen, c.Clone())
		// Peaks at the cube 2x2x2, of size 8.
		return -math.Abs(float64(c[0]-2)) - math.Abs(float64(c[1]-2)) - math.Abs(float64(c[2]-2)), nil
	}
	res, err := Run(Grouped{
		Groups:  [][]string{},
		Reshape: []string{"WX", "WY", "WZ"},
		Rounds:  1,
		Start:   features.Config{8, 1, 1, 1},
	}, s, obj, nil, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range seen {
		if c[0]*c[1]*c[2] != 8 || c[3] != 1 {
			t.Errorf("evaluated %s: not a reshape of 8x1x1", s.Format(c))
		}
	}
	// The shapes of 8 work-items from {1, 2, 4, 8}^3: exponents summing to
	// 3, C(5, 2) = 10 of them, the start among them.
	if want := (features.Config{2, 2, 2, 1}); !res.Best.Equal(want) || res.Evals != 10 {
		t.Errorf("Best %s after %d evals, want %s after 10", s.Format(res.Best), res.Evals, s.Format(want))
	}
}

// TestGroupedCoupled checks the group-by-optimization rule: after the first
// round, tuning WX moves CX so that WX*CX stays.
func TestGroupedCoupled(t *testing.T) {
	s := workGroupSpace(t)
	lg := func(v int) float64 { return math.Log2(float64(v)) }
	// Best with WX*CX = 8, and among those CX = 2: reachable from WX=8,
	// CX=1 only by moving both at once.
	obj := func(c features.Config) (float64, error) {
		return -10*math.Abs(lg(c[0]*c[3])-3) - math.Abs(lg(c[3])-1), nil
	}
	for _, tc := range []struct {
		name    string
		coupled map[string]string
		want    features.Config
	}{
		{"coupled", map[string]string{"WX": "CX"}, features.Config{4, 1, 1, 2}},
		{"independent", nil, features.Config{8, 1, 1, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Run(Grouped{
				Groups:  [][]string{{"WX"}, {"CX"}},
				Coupled: tc.coupled,
				Rounds:  2,
				Start:   features.Config{1, 1, 1, 1},
			}, s, obj, nil, Settings{})
			if err != nil {
				t.Fatal(err)
			}
			if !res.Best.Equal(tc.want) {
				t.Errorf("Best %s, want %s", s.Format(res.Best), s.Format(tc.want))
			}
		})
	}
}

// rugged scores configurations by a hash: a landscape of many local
// optima, on which every search converges early.
func rugged(c features.Config) (float64, error) {
	h := fnv.New64a()
	for _, v := range c {
		h.Write([]byte{byte(v), byte(v >> 8)})
	}
	return float64(h.Sum64()%1_000_000) / 1e6, nil
}

// TestLargerBudgetSpent checks that grouped search and annealing spend a
// larger budget instead of stopping where their first pass converged, and
// find at least as good a configuration with it.
func TestLargerBudgetSpent(t *testing.T) {
	s, _, _ := bigSpace(t)
	for _, tc := range []struct {
		name string
		st   Strategy
		// perSeed: the larger budget's search extends the smaller one's
		// (same seed, same first evaluations), so it is never worse.
		perSeed bool
	}{
		{"grouped", Grouped{}, true},
		{"grouped-pairs", Grouped{Groups: [][]string{{"x", "y"}, {"z"}}}, true},
		{"anneal-cold", Anneal{Temperature: 1e-9}, false},
		{"anneal", Anneal{Temperature: 0.05}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const seeds = 20
			var sum [2]float64
			for seed := range uint64(seeds) {
				var best [2]float64
				for i, n := range []int{64, 128} {
					res, err := Run(tc.st, s, rugged, rand.New(rand.NewPCG(seed, 11)), Settings{Budget: n})
					if err != nil {
						t.Fatal(err)
					}
					if res.Evals != n {
						t.Errorf("seed %d, budget %d: Evals = %d, want the budget spent", seed, n, res.Evals)
					}
					best[i] = res.Score
					sum[i] += res.Score / seeds
				}
				if tc.perSeed && best[1] < best[0] {
					t.Errorf("seed %d: best %g with budget 128, %g with 64", seed, best[1], best[0])
				}
			}
			if sum[1] < sum[0] {
				t.Errorf("mean best %g with budget 128, %g with 64", sum[1], sum[0])
			}
		})
	}
}

// TestGroupedExhaustsSmallSpace checks that restarts end when no unseen
// configuration is left, not when the budget is.
func TestGroupedExhaustsSmallSpace(t *testing.T) {
	s, obj, want := space(t)
	res, err := Run(Grouped{}, s, obj, rand.New(rand.NewPCG(3, 3)), Settings{Budget: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if res.Evals != s.Len() || !res.Best.Equal(want) {
		t.Errorf("%d evals of a %d-configuration space, Best %v; want all and %v", res.Evals, s.Len(), res.Best, want)
	}
}

func TestHeuristics(t *testing.T) {
	v := []int{1, 2, 4}
	s, err := features.NewSpace([]features.Param{
		{Name: "WX", Values: v}, {Name: "WY", Values: v}, {Name: "WZ", Values: v},
		{Name: "BX", Values: v}, {Name: "CX", Values: v}, {Name: "CY", Values: v}, {Name: "CZ", Values: v},
		{Name: "T", Values: []int{0, 1, 2, 3}},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	d := Dims{
		WorkGroup: []string{"WX", "WY", "WZ"},
		Block:     []string{"BX"},
		Cyclic:    []string{"CX", "CY", "CZ"},
	}
	init := map[string]int{"WX": 1, "WY": 1, "WZ": 1, "BX": 1, "CX": 1, "CY": 1, "CZ": 1}
	byDim := [][]string{{"WX", "BX", "CX"}, {"WY", "CY"}, {"WZ", "CZ"}}
	for _, tc := range []struct {
		name  string
		build func(*features.Space, Dims) (Grouped, error)
		want  Grouped
	}{
		{"dimension", ByDimension, Grouped{Groups: byDim, Init: init, Rounds: 3}},
		{"optimization", ByOptimization, Grouped{
			Groups:  [][]string{{"WX", "WY", "WZ"}, {"BX"}, {"CX", "CY", "CZ"}},
			Coupled: map[string]string{"WX": "CX", "WY": "CY", "WZ": "CZ"},
			Init:    init, Rounds: 3}},
		{"hybrid", Hybrid, Grouped{Groups: byDim, Reshape: []string{"WX", "WY", "WZ"}, Init: init, Rounds: 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.build(s, d)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v\nwant %+v", got, tc.want)
			}
			// Deterministic from Init, except for T, which Fixed holds.
			res, err := Run(Fixed{got, "T", 2}, s, rugged, rand.New(rand.NewPCG(1, 1)), Settings{})
			if err != nil || res.Best[7] != 2 {
				t.Errorf("Fixed search = %v, %v; want T=2", res.Best, err)
			}
		})
		t.Run(tc.name+"-unknown", func(t *testing.T) {
			_, err := tc.build(s, Dims{WorkGroup: []string{"WX", "WQ"}})
			if !errors.Is(err, features.ErrUnknownName) {
				t.Errorf("error = %v, want ErrUnknownName", err)
			}
		})
	}
}

// TestOracle checks that the oracle runs the strategy once per value and
// keeps the best, and that Fixed searches only its value.
func TestOracle(t *testing.T) {
	s, obj, want := space(t)
	var evals int
	for _, c := range []int{1, 2} {
		res, err := Run(Fixed{Exhaustive{}, "c", c}, s, obj, nil, Settings{})
		if err != nil || res.Best[2] != c {
			t.Fatalf("Fixed c=%d: %v, %v", c, res.Best, err)
		}
		evals += res.Evals
	}
	res, err := Run(Oracle{Exhaustive{}, "c"}, s, obj, nil, Settings{})
	if err != nil || !res.Best.Equal(want) || res.Evals != evals || evals != s.Len() {
		t.Errorf("Oracle = %v after %d evals, %v; want %v after %d (= %d)", res.Best, res.Evals, err, want, evals, s.Len())
	}
	for _, tc := range []struct {
		name string
		st   Strategy
	}{
		{"fixed unknown", Fixed{Exhaustive{}, "d", 1}},
		{"fixed value", Fixed{Exhaustive{}, "c", 3}},
		{"fixed nil", Fixed{Param: "c", Value: 1}},
		{"oracle unknown", Oracle{Exhaustive{}, "d"}},
		{"oracle nil", Oracle{Param: "c"}},
	} {
		if _, err := Run(tc.st, s, obj, nil, Settings{}); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
	_, err = Run(Oracle{Random{}, "c"}, s, func(features.Config) (float64, error) { return 0, errors.New("x") }, rand.New(rand.NewPCG(1, 1)), Settings{Budget: 3})
	if !errors.Is(err, ErrNothingFound) {
		t.Errorf("all failing: error = %v, want ErrNothingFound", err)
	}
	// A budget is shared by the runs, in the order of the values: the
	// first value's run spends it all.
	res, err = Run(Oracle{Exhaustive{}, "c"}, s, obj, nil, Settings{Budget: 5})
	if err != nil || res.Evals != 5 || res.Best[2] != 1 {
		t.Errorf("Oracle with budget 5 = %v after %d evals, %v; want c=1 after 5", res.Best, res.Evals, err)
	}
}

// TestGroupedInit checks that Init sets the first configuration's values
// in the space's order, each only where it keeps the configuration valid.
func TestGroupedInit(t *testing.T) {
	s := workGroupSpace(t)
	obj := func(c features.Config) (float64, error) { return 0, nil }
	for _, tc := range []struct {
		name  string
		start features.Config
		init  map[string]int
		want  features.Config // nil: an error
	}{
		{"all", features.Config{8, 8, 1, 1}, map[string]int{"WX": 1, "CX": 4}, features.Config{1, 8, 1, 4}},
		{"one breaks a constraint", features.Config{8, 8, 1, 1}, map[string]int{"WZ": 8, "CX": 2}, features.Config{8, 8, 1, 2}},
		{"first wins", features.Config{1, 1, 1, 1}, map[string]int{"WX": 8, "WY": 8, "WZ": 2}, features.Config{8, 8, 1, 1}},
		{"unknown name", features.Config{1, 1, 1, 1}, map[string]int{"WQ": 1}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Run(Grouped{Groups: [][]string{}, Rounds: 1, Start: tc.start, Init: tc.init}, s, obj, nil, Settings{})
			if tc.want == nil {
				if !errors.Is(err, features.ErrUnknownName) {
					t.Errorf("error = %v, want ErrUnknownName", err)
				}
				return
			}
			if err != nil || !res.Best.Equal(tc.want) || res.Evals != 1 {
				t.Errorf("first configuration %v after %d evals, %v; want %v after 1", res.Best, res.Evals, err, tc.want)
			}
		})
	}
}

func TestDimsFromGroups(t *testing.T) {
	for _, tc := range []struct {
		name         string
		byDim, byOpt [][]string
		want         Dims
		err          string
	}{
		{"stencil", [][]string{{"WX", "BX", "CX"}, {"WY", "CY"}, {"WZ", "CZ"}}, [][]string{{"WX", "WY", "WZ"}, {"BX"}, {"CX", "CY", "CZ"}},
			Dims{WorkGroup: []string{"WX", "WY", "WZ"}, Block: []string{"BX"}, Cyclic: []string{"CX", "CY", "CZ"}}, ""},
		{"other and gaps", [][]string{{"WX", "U"}, {"CY"}}, [][]string{{"WX"}, nil, {"CY"}},
			Dims{WorkGroup: []string{"WX"}, Cyclic: []string{"", "CY"}, Other: []string{"U"}}, ""},
		{"four optimizations", nil, [][]string{{"a"}, {"b"}, {"c"}, {"d"}}, Dims{}, "at most 3"},
		{"twice by optimization", [][]string{{"a"}}, [][]string{{"a"}, {"a"}}, Dims{}, "two groups by optimization"},
		{"twice by dimension", [][]string{{"a"}, {"a"}}, [][]string{{"a"}}, Dims{}, "two groups by dimension"},
		{"two of a kind", [][]string{{"a", "b"}}, [][]string{{"a", "b"}}, Dims{}, "two parameters of one optimization"},
		{"no dimension", [][]string{{"a"}}, [][]string{{"a", "b"}}, Dims{}, "none by dimension"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := DimsFromGroups(tc.byDim, tc.byOpt)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("error = %v, want one with %q", err, tc.err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
}
