package features

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

func TestNearestValid(t *testing.T) {
	tile, err := NewSpace([]Param{
		{Name: "x", Values: []int{1, 2}}, {Name: "sx", Values: []int{0, 1}},
		{Name: "y", Values: []int{1, 2}}, {Name: "sy", Values: []int{0, 1}},
	}, []string{"x > 1 or sx == 0", "y > 1 or sy == 0"})
	if err != nil {
		t.Fatal(err)
	}
	group, err := NewSpace([]Param{
		{Name: "a", Values: []int{1, 2, 4, 8}}, {Name: "b", Values: []int{1, 2, 4}},
	}, []string{"a * b <= 8"})
	if err != nil {
		t.Fatal(err)
	}
	none, err := NewSpace([]Param{{Name: "a", Values: []int{1, 2}}}, []string{"a > 2"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		s     *Space
		c     Config
		want  Config // nil: none
		valid bool
	}{
		{"valid stays", group, Config{2, 4}, Config{2, 4}, true},
		// One change fixes it: a 8->2 and b 4->1 both move two places;
		// (2,4) comes first.
		{"one change, fewest moves, first", group, Config{8, 4}, Config{2, 4}, true},
		{"one change, one move", group, Config{4, 4}, Config{2, 4}, true},
		// Both strides need a change (as the FAIR hub's dedispersion
		// defaults): two changes of one move each, the first in order.
		{"two changes", tile, Config{1, 1, 1, 1}, Config{1, 0, 1, 0}, true},
		{"out of domain", group, Config{3, 1}, nil, false},
		{"wrong length", group, Config{1}, nil, false},
		{"no valid configuration", none, Config{1}, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := tc.s.NearestValid(tc.c)
			if ok != tc.valid || !got.Equal(tc.want) {
				t.Errorf("NearestValid(%v) = %v, %v; want %v, %v", tc.c, got, ok, tc.want, tc.valid)
			}
		})
	}
}

// TestNearestValidBrute checks NearestValid against the definition, by
// walking every valid configuration of random small spaces.
func TestNearestValidBrute(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 200; trial++ {
		var params []Param
		for k := 0; k < 2+rng.IntN(3); k++ {
			p := Param{Name: fmt.Sprintf("p%d", k)}
			for v := 0; v < 2+rng.IntN(4); v++ {
				p.Values = append(p.Values, v)
			}
			params = append(params, p)
		}
		cons := []string{fmt.Sprintf("p0 + p1 %s %d", []string{"<=", ">="}[rng.IntN(2)], rng.IntN(5))}
		if len(params) > 2 {
			cons = append(cons, fmt.Sprintf("p2 != %d or p0 == %d", rng.IntN(3), rng.IntN(3)))
		}
		s, err := NewSpace(params, cons)
		if err != nil {
			t.Fatal(err)
		}
		c := make(Config, len(params))
		for k, p := range params {
			c[k] = p.Values[rng.IntN(len(p.Values))]
		}
		var want Config
		wd, wm := 0, 0
		s.Each(func(v Config) bool {
			d, m := 0, 0
			for k := range v {
				if v[k] != c[k] {
					d++
					m += abs(v[k] - c[k]) // values are 0..n-1: moves are differences
				}
			}
			if want == nil || d < wd || d == wd && m < wm {
				want, wd, wm = v.Clone(), d, m
			}
			return true
		})
		got, ok := s.NearestValid(c)
		if ok != (want != nil) || !got.Equal(want) {
			t.Fatalf("space %v %v: NearestValid(%v) = %v, %v; want %v", params, cons, c, got, ok, want)
		}
	}
}

func TestParamNearest(t *testing.T) {
	p := Param{Name: "p", Values: []int{8, 1, 4, 16}}
	for _, tc := range []struct{ v, want int }{
		{4, 4}, {3, 4}, {2, 1}, {0, 1}, {6, 4}, {12, 8}, {100, 16}, {-5, 1},
	} {
		if got := p.Nearest(tc.v); got != tc.want {
			t.Errorf("Nearest(%d) = %d, want %d", tc.v, got, tc.want)
		}
	}
}
