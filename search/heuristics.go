package search

import (
	"fmt"
	"slices"

	"github.com/augur-tuning/augur/features"
)

// Dims names a space's parameters by the part they play in Garvey and
// Abdelrahman's heuristics (2018, section 6.2), one name per dimension, x
// first, and "" where a dimension has no such parameter (their stencils
// merge blocks in x only). Which parameters these are is the kernel
// family's knowledge; the heuristics only need the names.
type Dims struct {
	// WorkGroup are the work-group sizes (WX, WY, WZ).
	WorkGroup []string
	// Block are the block merge factors (BX, BY, BZ).
	Block []string
	// Cyclic are the cyclic merge factors (CX, CY, CZ).
	Cyclic []string
	// Other are parameters outside the three optimizations (unrolling,
	// padding, ...), each tuned alone after the groups, in this order. The
	// parameter a classifier fixes (the data loading technique) belongs
	// in none of the lists: Fixed holds it.
	Other []string
}

// The heuristics repeat their groups n = 2 times after the first pass
// (section 8.3.1: a second pass helps much, a third slightly, a fourth
// not at all).
const heuristicRounds = 3

// byDimension returns the groups of d by dimension, then Other.
func (d Dims) byDimension() [][]string {
	var groups [][]string
	for i := range max(len(d.WorkGroup), len(d.Block), len(d.Cyclic)) {
		var g []string
		for _, names := range [][]string{d.WorkGroup, d.Block, d.Cyclic} {
			if i < len(names) && names[i] != "" {
				g = append(g, names[i])
			}
		}
		if len(g) > 0 {
			groups = append(groups, g)
		}
	}
	return d.other(groups)
}

func (d Dims) other(groups [][]string) [][]string {
	for _, name := range d.Other {
		groups = append(groups, []string{name})
	}
	return groups
}

// init sets every named parameter to its smallest value, as the
// heuristics' step (1) sets them to 1; a parameter its group tunes first
// is overwritten at once, so only the others matter.
func (d Dims) init(s *features.Space) (map[string]int, error) {
	init := map[string]int{}
	for _, names := range [][]string{d.WorkGroup, d.Block, d.Cyclic, d.Other} {
		for _, name := range names {
			if name == "" {
				continue
			}
			k := s.Param(name)
			if k < 0 {
				return nil, fmt.Errorf("search: Dims names %q, which is not a parameter: %w", name, features.ErrUnknownName)
			}
			init[name] = slices.Min(s.Params[k].Values)
		}
	}
	return init, nil
}

// ByDimension is the group-by-dimension heuristic (section 6.2.1) over s:
// from the smallest value of every named parameter, it tunes WX, BX and
// CX together, then WY, BY and CY, then WZ, BZ and CZ, then each Other
// parameter, three times over.
func ByDimension(s *features.Space, d Dims) (Grouped, error) {
	init, err := d.init(s)
	if err != nil {
		return Grouped{}, err
	}
	return Grouped{Groups: d.byDimension(), Init: init, Rounds: heuristicRounds}, nil
}

// ByOptimization is the group-by-optimization heuristic (section 6.2.2)
// over s: from the smallest value of every named parameter, it tunes the
// work-group sizes together, then the block merge factors, then the cyclic
// merge factors, then each Other parameter, three times over; after the
// first pass each work-group size moves with its cyclic merge factor so
// that their product, the work of a work-group, stays.
func ByOptimization(s *features.Space, d Dims) (Grouped, error) {
	init, err := d.init(s)
	if err != nil {
		return Grouped{}, err
	}
	var groups [][]string
	for _, names := range [][]string{d.WorkGroup, d.Block, d.Cyclic} {
		var g []string
		for _, name := range names {
			if name != "" {
				g = append(g, name)
			}
		}
		if len(g) > 0 {
			groups = append(groups, g)
		}
	}
	coupled := map[string]string{}
	for i, w := range d.WorkGroup {
		if i < len(d.Cyclic) && w != "" && d.Cyclic[i] != "" {
			coupled[w] = d.Cyclic[i]
		}
	}
	return Grouped{Groups: d.other(groups), Coupled: coupled, Init: init, Rounds: heuristicRounds}, nil
}

// Hybrid is the hybrid heuristic (section 6.2.3) over s: ByDimension with,
// after the groups of every pass, a step that tries every work-group shape
// of the current work-group size.
func Hybrid(s *features.Space, d Dims) (Grouped, error) {
	g, err := ByDimension(s, d)
	if err != nil {
		return Grouped{}, err
	}
	for _, name := range d.WorkGroup {
		if name != "" {
			g.Reshape = append(g.Reshape, name)
		}
	}
	return g, nil
}

// DimsFromGroups reads Dims from a kernel family's two groupings of its
// parameters: byDim by dimension, x first, and byOpt by optimization, in
// the paper's order: work-group sizes, block merge factors, cyclic merge
// factors. A parameter's role is its group in byOpt and its dimension its
// group in byDim; a parameter of byDim in no group of byOpt is Other.
func DimsFromGroups(byDim, byOpt [][]string) (Dims, error) {
	var d Dims
	if len(byOpt) > 3 {
		return d, fmt.Errorf("search: %d groups by optimization, want at most 3 (work-group, block, cyclic)", len(byOpt))
	}
	roles := []*[]string{&d.WorkGroup, &d.Block, &d.Cyclic}
	role := map[string]int{}
	for j, g := range byOpt {
		for _, name := range g {
			if _, dup := role[name]; dup {
				return d, fmt.Errorf("search: %q is in two groups by optimization", name)
			}
			role[name] = j
		}
	}
	placed := map[string]bool{}
	for i, g := range byDim {
		for _, name := range g {
			if placed[name] {
				return d, fmt.Errorf("search: %q is in two groups by dimension", name)
			}
			placed[name] = true
			j, ok := role[name]
			if !ok {
				d.Other = append(d.Other, name)
				continue
			}
			names := roles[j]
			for len(*names) <= i {
				*names = append(*names, "")
			}
			if (*names)[i] != "" {
				return d, fmt.Errorf("search: dimension %d has two parameters of one optimization, %q and %q", i, (*names)[i], name)
			}
			(*names)[i] = name
		}
	}
	for name := range role {
		if !placed[name] {
			return d, fmt.Errorf("search: %q is in a group by optimization but in none by dimension", name)
		}
	}
	return d, nil
}
