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
	st := newStratifier(valid, order)
	for range min(k, len(order)) {
		st.take(st.pick(nil))
	}
	return st.out
}

// stratifier is Stratify one pick at a time, so that the first stage
// (FirstStage) can restrict a pick to the configurations its failure
// model predicts to run.
type stratifier struct {
	np int
	// slot[i*np+p] is configuration i's value of parameter p as an index
	// into that parameter's values seen in valid; share is the count of
	// valid configurations with it, taken the count of picks with it.
	slot         []int
	share, taken []float64
	// out is the order: its first next are picked, the rest keep the
	// order they were given in.
	out  []int
	next int
}

func newStratifier(valid []features.Config, order []int) *stratifier {
	st := &stratifier{out: slices.Clone(order)}
	if len(valid) == 0 {
		return st
	}
	st.np = len(valid[0])
	st.slot = make([]int, len(valid)*st.np)
	for p := range st.np {
		at := map[int]int{}
		base := len(st.share)
		for i, c := range valid {
			j, ok := at[c[p]]
			if !ok {
				j = len(at)
				at[c[p]] = j
				st.share = append(st.share, 0)
			}
			st.slot[i*st.np+p] = base + j
			st.share[base+j]++
		}
	}
	st.taken = make([]float64, len(st.share))
	return st
}

// pick returns the position in out of the next pick: of the
// configurations not picked yet for which ok holds (every one when ok is
// nil), the first in order whose values have been taken least; -1 when
// none is left. ok is asked only of a configuration that would be picked
// if it held, so that a costly predicate is asked of few.
func (st *stratifier) pick(ok func(i int) bool) int {
	best, bestScore := -1, -1.0
	for pos := st.next; pos < len(st.out); pos++ {
		i := st.out[pos]
		s := 0.0
		for _, v := range st.slot[i*st.np : (i+1)*st.np] {
			s += st.taken[v] / st.share[v]
		}
		if (bestScore < 0 || s < bestScore) && (ok == nil || ok(i)) {
			best, bestScore = pos, s
			if s == 0 {
				break
			}
		}
	}
	return best
}

// take moves the configuration at position pos of out to the end of the
// picks and counts its values; the ones passed over keep their order, so
// that the rest stays a random order.
func (st *stratifier) take(pos int) int {
	i := st.out[pos]
	copy(st.out[st.next+1:pos+1], st.out[st.next:pos])
	st.out[st.next] = i
	st.next++
	for _, v := range st.slot[i*st.np : (i+1)*st.np] {
		st.taken[v]++
	}
	return i
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
