package features

import "math"

// LogShapes are shapes as the natural logarithms of their task values
// (TaskLogs), the space in which augur measures how near two shapes are:
// doubling a width moves a shape as far at 64 as at 4,096. The runtime's
// starts and copies and eval's device bests all find their nearest
// shapes here, so that they agree on which shape is nearest.
type LogShapes [][]float64

// TaskLogs appends the natural logarithm of each of t's values, taken as
// at least 1, to dst and returns the extended slice.
func TaskLogs(dst []float64, t Task) []float64 {
	for _, v := range t {
		dst = append(dst, math.Log(float64(max(v, 1))))
	}
	return dst
}

// Nearest fills idx with the indices of the len(idx) shapes of s nearest
// l (squared Euclidean distance over l's values), nearest first, a tie
// going to the earlier shape, and returns how many it filled: fewer than
// len(idx) when s has fewer shapes. It allocates nothing when len(idx) is
// 16 or less.
func (s LogShapes) Nearest(l []float64, idx []int) int {
	k := min(len(idx), len(s))
	if k == 0 {
		return 0
	}
	var buf [16]float64
	dist := buf[:]
	if k > len(buf) {
		dist = make([]float64, k)
	}
	n := 0
	for gi, g := range s {
		d := 0.0
		for f, v := range l {
			x := v - g[f]
			d += x * x
		}
		// Insert into the k nearest so far, kept sorted; an equal distance
		// goes after those already there.
		if n < k {
			n++
		} else if d >= dist[n-1] {
			continue
		}
		j := n - 1
		for j > 0 && dist[j-1] > d {
			idx[j], dist[j] = idx[j-1], dist[j-1]
			j--
		}
		idx[j], dist[j] = gi, d
	}
	return n
}

// NearestOne is the index of the shape of s nearest l (Nearest), -1 when
// s is empty.
func (s LogShapes) NearestOne(l []float64) int {
	var idx [1]int
	if s.Nearest(l, idx[:]) == 0 {
		return -1
	}
	return idx[0]
}
