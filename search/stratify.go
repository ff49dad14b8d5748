package search

import (
	"cmp"
	"slices"

	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/predict"
)

// Stratify reorders order, a random order of the indices of valid, so that
// its first k configurations cover every parameter's values as evenly as
// the space allows: each is, of the configurations left, the first in
// order whose values have been taken least so far, each value's count
// divided by its share of valid (a value not yet taken counts 0, however
// rare). The rest follow in order. It returns a new slice; order is not
// modified. k is capped at len(order).
//
// This is the two-stage tuner's first stage (eval's replays and 'augur
// tune'). On a small space the sample is ten configurations, and ten
// uniform draws from the 189 of examples/rowsum often miss a work-group
// size or a vector width altogether, which leaves both the sample's best
// and the model fitted on it to luck; stratified, the ten hold every
// value of every parameter (TestStratify). Ties keep order's randomness,
// so that the sample is still a random one (TestStratifyCoversTheSpace).
func Stratify(valid []features.Config, order []int, k int) []int {
	out := slices.Clone(order)
	k = min(k, len(out))
	if k == 0 || len(valid) == 0 {
		return out
	}
	np := len(valid[0])
	// slot[i*np+p] is configuration i's value of parameter p as an index
	// into that parameter's values seen in valid; share is the count of
	// valid configurations with it.
	slot := make([]int, len(valid)*np)
	var share []float64
	base := make([]int, np)
	for p := range np {
		at := map[int]int{}
		base[p] = len(share)
		for i, c := range valid {
			j, ok := at[c[p]]
			if !ok {
				j = len(at)
				at[c[p]] = j
				share = append(share, 0)
			}
			slot[i*np+p] = base[p] + j
			share[base[p]+j]++
		}
	}
	taken := make([]float64, len(share))
	for j := range k {
		best, bestScore := j, -1.0
		for pos := j; pos < len(out); pos++ {
			i := out[pos]
			s := 0.0
			for _, v := range slot[i*np : (i+1)*np] {
				s += taken[v] / share[v]
			}
			if bestScore < 0 || s < bestScore {
				best, bestScore = pos, s
				if s == 0 {
					break
				}
			}
		}
		// Keep the order of the ones passed over, so that the rest stays
		// a random order.
		i := out[best]
		copy(out[j+1:best+1], out[j:best])
		out[j] = i
		for _, v := range slot[i*np : (i+1)*np] {
			taken[v]++
		}
	}
	return out
}

// RankInOrder returns the configurations valid[order[j]] scored by
// score(order[j]) (a predicted log-speedup), highest first; ties keep
// order's order. The two-stage tuner ranks the space in its random order
// (the one Stratify began), not the space's own: trees fitted on a first
// stage of ten rows predict one value for whole regions, and ties broken
// by the space's order made the favourite the region's smallest
// parameter values, on examples/transpose a configuration at 3-8% of the
// optimum on 8 of 12 shapes (bench/RESULTS.md, session 15).
func RankInOrder(valid []features.Config, order []int, score func(i int) float64) []predict.Scored {
	out := make([]predict.Scored, len(order))
	for j, i := range order {
		out[j] = predict.Scored{Config: valid[i], LogSpeedup: score(i)}
	}
	slices.SortStableFunc(out, func(a, b predict.Scored) int { return cmp.Compare(b.LogSpeedup, a.LogSpeedup) })
	return out
}
