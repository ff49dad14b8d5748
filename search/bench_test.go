package search

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkStrategies runs each strategy with a budget of 100 on the
// 6400-configuration bigSpace, whose objective costs nanoseconds, so that
// the figures are the strategies' own overhead.
func BenchmarkStrategies(b *testing.B) {
	s, obj, _ := bigSpace(b)
	for _, bc := range []struct {
		name   string
		st     Strategy
		budget int
	}{
		{"exhaustive", Exhaustive{}, 0},
		{"random-100", Random{}, 100},
		{"hillclimb-100", HillClimb{Steps: 99}, 0},
		{"anneal-100", Anneal{Temperature: 0.05}, 100},
		{"pso-100", PSO{}, 100},
		{"grouped-100", Grouped{}, 100},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			rng := rand.New(rand.NewPCG(1, 2))
			for b.Loop() {
				if _, err := Run(bc.st, s, obj, rng, Settings{Budget: bc.budget}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkReplay measures one lookup of a recorded time.
func BenchmarkReplay(b *testing.B) {
	s, obj, _ := bigSpace(b)
	times := map[string]float64{}
	for _, c := range s.All() {
		v, _ := obj(c)
		times[s.Format(c)] = 1 - v
	}
	replay, err := Replay(s, times, 1)
	if err != nil {
		b.Fatal(err)
	}
	c := s.All()[1234]
	b.ReportAllocs()
	for b.Loop() {
		if _, err := replay(c); err != nil {
			b.Fatal(err)
		}
	}
}
