package features

// maxNearestTries bounds the configurations NearestValid checks: about a
// tenth of a second of constraint evaluations on the largest spaces.
const maxNearestTries = 1 << 20

// NearestValid returns the valid configuration nearest to c, whose values
// must each be in their parameter's domain but which may break a
// constraint: the fewest parameters changed, then the smallest sum of the
// changed values' moves along their parameters' value lists, then the
// first in mixed-radix order. A valid c is returned as a copy. It returns
// false when c has a value outside its domain, or when no valid
// configuration is found among the first 2^20 it tries (nearest first).
func (s *Space) NearestValid(c Config) (Config, bool) {
	if s.Index(c) < 0 {
		return nil, false
	}
	if s.Valid(c) {
		return c.Clone(), true
	}
	pos := make([]int, len(c))
	for k, p := range s.Params {
		pos[k] = s.position(k, p, c[k])
	}
	var best Config
	bestMoves, bestIndex := 0, 0
	tries := 0
	try := make(Config, len(c))
	// Changing d parameters: every subset of d (in order), every choice of
	// other values for them.
	for d := 1; d <= len(c) && best == nil && tries < maxNearestTries; d++ {
		forSubsets(len(c), d, func(sub []int) bool {
			copy(try, c)
			at := make([]int, d) // the value index of each changed parameter
			for {
				ok := true
				moves := 0
				for i, k := range sub {
					if at[i] == pos[k] {
						ok = false // not a change
						break
					}
					try[k] = s.Params[k].Values[at[i]]
					moves += abs(at[i] - pos[k])
				}
				if ok {
					tries++
					if s.Valid(try) {
						if idx := s.Index(try); best == nil || moves < bestMoves || moves == bestMoves && idx < bestIndex {
							best, bestMoves, bestIndex = try.Clone(), moves, idx
						}
					}
					if tries >= maxNearestTries {
						return false
					}
				}
				// Next choice of values: an odometer over sub.
				i := d - 1
				for ; i >= 0; i-- {
					if at[i]++; at[i] < len(s.Params[sub[i]].Values) {
						break
					}
					at[i] = 0
				}
				if i < 0 {
					return true
				}
			}
		})
	}
	return best, best != nil
}

// Nearest returns the value of p nearest to v, the smaller of two as
// near; v itself when p has it. p must have a value.
func (p Param) Nearest(v int) int {
	best := p.Values[0]
	for _, x := range p.Values[1:] {
		if d, bd := abs(x-v), abs(best-v); d < bd || d == bd && x < best {
			best = x
		}
	}
	return best
}

// Broken returns the index in Constraints of the first constraint c
// breaks, or -1 when it breaks none or has a value outside its domain.
func (s *Space) Broken(c Config) int {
	if s.Index(c) < 0 {
		return -1
	}
	return s.holds(c)
}

// forSubsets calls fn with every d-element subset of 0..n-1, in
// lexicographic order, until fn returns false. The slice is reused.
func forSubsets(n, d int, fn func([]int) bool) {
	sub := make([]int, d)
	for i := range sub {
		sub[i] = i
	}
	for {
		if !fn(sub) {
			return
		}
		i := d - 1
		for i >= 0 && sub[i] == n-d+i {
			i--
		}
		if i < 0 {
			return
		}
		sub[i]++
		for j := i + 1; j < d; j++ {
			sub[j] = sub[j-1] + 1
		}
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
