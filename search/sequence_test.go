package search

import (
	"bytes"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/augur-tuning/augur/features"
)

var update = flag.Bool("update", false, "rewrite testdata/sequences.golden from the strategies' current behaviour")

// sequenceCase is one strategy run whose evaluated configurations the
// golden file records. budget 0 runs the strategy without one.
type sequenceCase struct {
	name   string
	st     Strategy
	budget int
	small  bool // on workGroupSpace instead of bigSpace
}

// sequenceCases covers every strategy, with and without a budget, on a
// space and objective where they move: the rugged objective, with every
// configuration whose score ends in a small digit failing.
func sequenceCases(t *testing.T) []sequenceCase {
	wg := workGroupSpace(t)
	d := Dims{WorkGroup: []string{"WX", "WY", "WZ"}, Cyclic: []string{"CX"}}
	byDim, err := ByDimension(wg, d)
	if err != nil {
		t.Fatal(err)
	}
	byOpt, err := ByOptimization(wg, d)
	if err != nil {
		t.Fatal(err)
	}
	hybrid, err := Hybrid(wg, d)
	if err != nil {
		t.Fatal(err)
	}
	return []sequenceCase{
		{"exhaustive", Exhaustive{}, 0, true},
		{"random-50", Random{}, 50, false},
		{"random-covering", Random{}, 500, true},
		{"hillclimb-60", HillClimb{}, 60, false},
		{"hillclimb-steps9-45", HillClimb{Steps: 9, P: 0.5}, 45, false},
		{"hillclimb-steps20-10", HillClimb{Steps: 20}, 10, false},
		{"hillclimb-unbudgeted", HillClimb{Steps: 10, Restarts: 2}, 0, false},
		{"anneal-80", Anneal{Temperature: 0.5}, 80, false},
		{"anneal-default-temperature-80", Anneal{}, 80, false},
		{"anneal-small-exhausted", Anneal{Temperature: 0.1}, 400, true},
		{"pso-60", PSO{}, 60, false},
		{"pso-swarm6-60", PSO{Swarm: 6, Beta: 0.1}, 60, false},
		{"pso-2", PSO{}, 2, false},
		{"grouped-unbudgeted", Grouped{}, 0, false},
		{"grouped-150", Grouped{Rounds: 1}, 150, false},
		{"bydimension", byDim, 0, true},
		{"byoptimization-70", byOpt, 70, true},
		{"hybrid", hybrid, 0, true},
		{"list-5", List{Configs: wg.All()[:20]}, 5, true},
		{"fixed-hillclimb-30", Fixed{Strategy: HillClimb{}, Param: "CX", Value: 2}, 30, true},
		{"oracle-hybrid", Oracle{Strategy: hybrid, Param: "CX"}, 0, true},
	}
}

// failing wraps rugged so that about one configuration in five fails.
func failing(c features.Config) (float64, error) {
	v, _ := rugged(c)
	if int(v*1e6)%10 < 2 {
		return 0, fmt.Errorf("failed")
	}
	return v, nil
}

// TestSequences checks that every strategy evaluates the same
// configurations in the same order at a fixed seed as the golden file
// recorded: the budget is enforced by the driver, and moving it there
// changed no strategy's walk. Run with -update to rewrite the file.
func TestSequences(t *testing.T) {
	big, _, _ := bigSpace(t)
	small := workGroupSpace(t)
	var out bytes.Buffer
	for _, tc := range sequenceCases(t) {
		s := big
		if tc.small {
			s = small
		}
		var seq []string
		obj := func(c features.Config) (float64, error) {
			seq = append(seq, s.Format(c))
			return failing(c)
		}
		res, err := runBudget(tc.st, s, obj, rand.New(rand.NewPCG(7, 11)), tc.budget)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if res.Evals != len(seq) {
			t.Errorf("%s: Evals = %d, objective called %d times", tc.name, res.Evals, len(seq))
		}
		fmt.Fprintf(&out, "== %s: %d evaluations, best %s (%g)\n", tc.name, res.Evals, s.Format(res.Best), res.Score)
		for _, c := range seq {
			fmt.Fprintln(&out, c)
		}
	}
	path := filepath.Join("testdata", "sequences.golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != string(want) {
		gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		for i := range min(len(gl), len(wl)) {
			if gl[i] != wl[i] {
				t.Fatalf("sequences differ from %s at line %d: got %q, want %q", path, i+1, gl[i], wl[i])
			}
		}
		t.Fatalf("sequences differ from %s in length: got %d lines, want %d", path, len(gl), len(wl))
	}
}

// runBudget runs st on s with at most budget evaluations (none when 0).
func runBudget(st Strategy, s *features.Space, obj Objective, rng *rand.Rand, budget int) (Result, error) {
	return Run(st, s, obj, rng, Settings{Budget: budget})
}
