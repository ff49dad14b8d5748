package search

import (
	"fmt"
	"math/rand/v2"

	"github.com/augur-tuning/augur/features"
)

var _ Strategy = (*Grouped)(nil)

// Grouped is Garvey and Abdelrahman's grouped search (2018, section 6.2):
// the parameters are split into groups, each group in turn is searched
// exhaustively with the other parameters held at their current best, and
// the whole sequence of groups is repeated to soften the effect of their
// order. Their three heuristics differ in the grouping: by dimension (all
// parameters of the x dimension, then y, ...), by optimization (the
// work-group size in every dimension, then the merge factors, ..., with
// each work-group size's product with its cyclic merge factor held in the
// rounds after the first: Coupled), and the hybrid, which adds to the
// groups by dimension a step that reshapes the work-group while keeping its
// size (Reshape). ByDimension, ByOptimization and Hybrid build them from
// the names of a space's parameters.
//
// Scores are remembered, as in Anneal, so later rounds pay only for
// configurations they have not seen; combinations that break the space's
// constraints are skipped without being evaluated. With a budget
// (Settings.Budget), a search whose rounds end with budget left starts
// again from a random valid configuration it has not evaluated, keeping
// the scores it has seen, until the budget is spent, 1000 draws find no
// such configuration, or 50 restarts in a row evaluate nothing new;
// without one, it makes one search.
type Grouped struct {
	// Groups lists the parameters searched together, by name, in the order
	// they are tuned; a parameter may appear in several groups. Parameters
	// in no group keep their start value. nil means one group per
	// parameter, in the space's order (a coordinate search).
	Groups [][]string
	// Reshape names the parameters of the hybrid's reshaping step
	// (section 6.2.3, step 5), the work-group size in each dimension: after
	// the groups of every round, each combination of their values whose
	// product equals that of the current values is tried, the other
	// parameters held. nil means no such step.
	Reshape []string
	// Coupled maps a parameter to a partner whose product with it is held
	// when a group tunes the parameter in any round after the first: the
	// partner takes the value cur(p)*cur(partner)/p, and a value of p for
	// which that is not a value of the partner is skipped (by optimization,
	// section 6.2.2, step 5: WX*CX, WY*CY and WZ*CZ). A partner in the same
	// group is not adjusted. nil means none.
	Coupled map[string]string
	// Init sets parameters of the first configuration (the heuristics
	// set WY, WZ, CY, CZ, ... to 1): Start, or a random valid
	// configuration, takes each value in the space's order of parameters
	// unless that breaks a constraint (with vector loads fixed, BX = 1 is
	// not valid). Restarts ignore it.
	Init map[string]int
	// Rounds is the number of passes over the groups; 0 means 2, n = 1
	// repetition after the first pass. Garvey and Abdelrahman's results
	// use n = 2, Rounds 3.
	Rounds int
	// Start is the first configuration; nil means a random valid one.
	Start features.Config
}

// maxStaleRestarts bounds the restarts in a row that evaluate nothing new,
// which is how a budgeted search learns that it has seen all it can reach.
const maxStaleRestarts = 50

// plan is a Grouped resolved against one space: parameter indices instead
// of names.
type plan struct {
	groups  [][]int
	reshape []int
	partner []int // partner[k] is Coupled's partner of parameter k, or -1
	rounds  int
}

func (g Grouped) plan(s *features.Space) (plan, error) {
	var p plan
	p.rounds = g.Rounds
	if p.rounds == 0 {
		p.rounds = 2
	}
	if g.Rounds < 0 {
		return p, fmt.Errorf("search: Grouped.Rounds must be >= 0, got %d", g.Rounds)
	}
	if g.Groups == nil {
		p.groups = make([][]int, len(s.Params))
		for i := range p.groups {
			p.groups[i] = []int{i}
		}
	}
	for i, names := range g.Groups {
		if len(names) == 0 {
			return p, fmt.Errorf("search: Grouped.Groups[%d] is empty", i)
		}
		grp, err := indices(s, fmt.Sprintf("Grouped.Groups[%d]", i), names)
		if err != nil {
			return p, err
		}
		p.groups = append(p.groups, grp)
	}
	var err error
	if p.reshape, err = indices(s, "Grouped.Reshape", g.Reshape); err != nil {
		return p, err
	}
	p.partner = make([]int, len(s.Params))
	for k := range p.partner {
		p.partner[k] = -1
	}
	for name, partner := range g.Coupled {
		ks, err := indices(s, "Grouped.Coupled", []string{name, partner})
		if err != nil {
			return p, err
		}
		p.partner[ks[0]] = ks[1]
	}
	return p, nil
}

// indices resolves parameter names; field names the option they came from.
func indices(s *features.Space, field string, names []string) ([]int, error) {
	var out []int
	for _, name := range names {
		k := s.Param(name)
		if k < 0 {
			return nil, fmt.Errorf("search: %s names %q, which is not a parameter: %w", field, name, features.ErrUnknownName)
		}
		out = append(out, k)
	}
	return out, nil
}

// Search implements Strategy.
func (g Grouped) Search(s *features.Space, e *Evaluator, rng *rand.Rand) error {
	p, err := g.plan(s)
	if err != nil {
		return err
	}
	cur, err := g.first(s, rng)
	if err != nil {
		return err
	}
	m := newMemo(e)
	for stale := 0; ; {
		before := e.Evals()
		p.pass(s, m, cur)
		if e.Budget() == 0 || e.Spent() {
			break
		}
		if e.Evals() == before {
			if stale++; stale >= maxStaleRestarts {
				break
			}
		} else {
			stale = 0
		}
		c, ok := m.unseen(s, rng)
		if !ok {
			break
		}
		cur = c
	}
	return nil
}

// first returns the first configuration: Start or a random valid one,
// with as much of Init applied as keeps it valid.
func (g Grouped) first(s *features.Space, rng *rand.Rand) (features.Config, error) {
	c, err := start(s, "Grouped.Start", g.Start, rng)
	if err != nil {
		return nil, err
	}
	for name := range g.Init {
		if s.Param(name) < 0 {
			return nil, fmt.Errorf("search: Grouped.Init names %q, which is not a parameter: %w", name, features.ErrUnknownName)
		}
	}
	// In the space's order, so that the result does not depend on the
	// map's.
	for k, p := range s.Params {
		v, ok := g.Init[p.Name]
		if !ok || c[k] == v {
			continue
		}
		was := c[k]
		if c[k] = v; !s.Valid(c) {
			c[k] = was
		}
	}
	return c, nil
}

// pass runs the rounds from cur, which it overwrites.
func (p plan) pass(s *features.Space, m *memo, cur features.Config) {
	spent := m.e.Spent
	score, _ := m.eval(s, cur)
	best := cur.Clone()
	cand := make(features.Config, len(s.Params))
	// try evaluates cand when it is valid and keeps it when it is better.
	try := func() {
		if s.Valid(cand) {
			if v, _ := m.eval(s, cand); v > score {
				score = v
				copy(best, cand)
			}
		}
	}
	for round := range p.rounds {
		for _, grp := range p.groups {
			each(s, grp, spent, func(idx []int) {
				copy(cand, cur)
				for j, k := range grp {
					cand[k] = s.Params[k].Values[idx[j]]
				}
				if round > 0 && !p.couple(s, grp, cur, cand) {
					return
				}
				try()
			})
			copy(cur, best)
		}
		if len(p.reshape) > 0 {
			size := product(cur, p.reshape)
			each(s, p.reshape, spent, func(idx []int) {
				copy(cand, cur)
				for j, k := range p.reshape {
					cand[k] = s.Params[k].Values[idx[j]]
				}
				if product(cand, p.reshape) == size {
					try()
				}
			})
			copy(cur, best)
		}
	}
}

// couple moves the partners of the group's coupled parameters so that each
// product stays as in cur; false when a partner's value would leave its
// domain.
func (p plan) couple(s *features.Space, grp []int, cur, cand features.Config) bool {
	for _, k := range grp {
		q := p.partner[k]
		if q < 0 || contains(grp, q) {
			continue
		}
		prod := cur[k] * cur[q]
		if cand[k] == 0 || prod%cand[k] != 0 || indexOf(s.Params[q].Values, prod/cand[k]) < 0 {
			return false
		}
		cand[q] = prod / cand[k]
	}
	return true
}

// each calls fn with the value positions of every combination of the
// parameters grp, as a mixed-radix counter with the last parameter
// fastest, until the combinations or the budget run out.
func each(s *features.Space, grp []int, spent func() bool, fn func(idx []int)) {
	idx := make([]int, len(grp))
	for !spent() {
		fn(idx)
		j := len(grp) - 1
		for ; j >= 0; j-- {
			if idx[j]++; idx[j] < len(s.Params[grp[j]].Values) {
				break
			}
			idx[j] = 0
		}
		if j < 0 {
			return
		}
	}
}

func product(c features.Config, ks []int) int {
	n := 1
	for _, k := range ks {
		n *= c[k]
	}
	return n
}

func contains(ks []int, k int) bool {
	for _, x := range ks {
		if x == k {
			return true
		}
	}
	return false
}
