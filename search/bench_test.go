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
		name string
		st   Strategy
	}{
		{"exhaustive", Exhaustive{}},
		{"random-100", Random{Budget: 100}},
		{"hillclimb-100", HillClimb{Steps: 99}},
		{"anneal-100", Anneal{Budget: 100, Temperature: 0.05}},
		{"pso-100", PSO{Budget: 100}},
		{"grouped-100", Grouped{Budget: 100}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			rng := rand.New(rand.NewPCG(1, 2))
			for b.Loop() {
				if _, err := bc.st.Search(s, obj, rng); err != nil {
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
