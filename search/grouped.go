package search

import (
	"fmt"
	"math/rand/v2"

	"github.com/augur-tuning/augur/features"
)

var _ Strategy = (*Grouped)(nil)

// Grouped is Garvey and Abdelrahman's grouped search (2015, section 6.2):
// the parameters are split into groups, each group in turn is searched
// exhaustively with the other parameters held at their current best, and
// the whole sequence of groups is repeated Rounds times to soften the
// effect of their order. Their three heuristics differ only in the
// grouping: by dimension (all parameters of the x dimension, then y, ...),
// by optimization (the work-group size in every dimension, then the merge
// factors, ...), or a hybrid of the two. Their hybrid's extra step, which
// reshapes the work-group while keeping its size, is not a plain group and
// is left out.
//
// Scores are remembered, as in Anneal, so later rounds pay only for
// configurations they have not seen; combinations that break the space's
// constraints are skipped without being evaluated.
type Grouped struct {
	// Groups lists the parameters searched together, by name, in the order
	// they are tuned; a parameter may appear in several groups. Parameters
	// in no group keep their start value. nil means one group per
	// parameter, in the space's order (a coordinate search).
	Groups [][]string
	// Rounds is the number of passes over the groups; 0 means 2, Garvey
	// and Abdelrahman's n = 1 repetition after the first pass.
	Rounds int
	// Start is the first configuration; nil means a random valid one.
	Start features.Config
	// Budget caps the objective calls; 0 means no cap beyond the groups'
	// own size.
	Budget int
}

// WithBudget implements Budgeted: Budget becomes n.
func (g Grouped) WithBudget(n int) (Strategy, error) {
	if err := checkBudget(n); err != nil {
		return nil, err
	}
	g.Budget = n
	return g, nil
}

// groups resolves the group names to parameter indices.
func (g Grouped) groups(s *features.Space) ([][]int, error) {
	if g.Groups == nil {
		out := make([][]int, len(s.Params))
		for i := range out {
			out[i] = []int{i}
		}
		return out, nil
	}
	out := make([][]int, len(g.Groups))
	for i, names := range g.Groups {
		if len(names) == 0 {
			return nil, fmt.Errorf("search: Grouped.Groups[%d] is empty", i)
		}
		for _, name := range names {
			k := s.Param(name)
			if k < 0 {
				return nil, fmt.Errorf("search: Grouped.Groups[%d] names %q, which is not a parameter: %w", i, name, features.ErrUnknownName)
			}
			out[i] = append(out[i], k)
		}
	}
	return out, nil
}

// Search implements Strategy.
func (g Grouped) Search(s *features.Space, obj Objective, rng *rand.Rand) (Result, error) {
	rounds := g.Rounds
	if rounds == 0 {
		rounds = 2
	}
	if rounds < 0 {
		return Result{}, fmt.Errorf("search: Grouped.Rounds must be >= 0, got %d", g.Rounds)
	}
	if g.Budget < 0 {
		return Result{}, fmt.Errorf("search: Grouped.Budget must be >= 0, got %d", g.Budget)
	}
	groups, err := g.groups(s)
	if err != nil {
		return Result{}, err
	}
	cur, err := start(s, "Grouped.Start", g.Start, rng)
	if err != nil {
		return Result{}, err
	}
	m := newMemo()
	spent := func() bool { return g.Budget > 0 && m.t.r.Evals >= g.Budget }
	score, _ := m.eval(s, obj, cur)
	cand := make(features.Config, len(s.Params))
	best := cur.Clone()
	idx := make([]int, 0, len(s.Params))
	for range rounds {
		for _, grp := range groups {
			// Walk the group's values as a mixed-radix counter, the last
			// parameter of the group fastest.
			idx = idx[:len(grp)]
			clear(idx)
			for !spent() {
				copy(cand, cur)
				for j, k := range grp {
					cand[k] = s.Params[k].Values[idx[j]]
				}
				if s.Valid(cand) {
					if v, _ := m.eval(s, obj, cand); v > score {
						score = v
						copy(best, cand)
					}
				}
				j := len(grp) - 1
				for ; j >= 0; j-- {
					if idx[j]++; idx[j] < len(s.Params[grp[j]].Values) {
						break
					}
					idx[j] = 0
				}
				if j < 0 {
					break
				}
			}
			copy(cur, best)
		}
	}
	return m.t.result()
}
