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

// FarthestFirst chooses n shapes of pool, one at a time, each the one
// farthest from its nearest among s and the shapes chosen before it (a
// tie going to the earlier shape of pool): the greedy cover that spreads
// new measurements over the shapes s lacks. It returns their indices in
// pool, in the order chosen, and each one's distance (Euclidean, in
// logs) to that nearest shape when it was chosen. With s empty the first
// is the medoid of pool (the least summed distance to the others), so a
// cover starts in the middle. Pool shapes already in s are never chosen;
// fewer than n come back when pool runs out of others.
func (s LogShapes) FarthestFirst(pool LogShapes, n int) (idx []int, dist []float64) {
	near := make([]float64, len(pool)) // squared distance to the nearest of s and the chosen
	for i, p := range pool {
		near[i] = math.Inf(1)
		for _, g := range s {
			near[i] = min(near[i], sqDist(p, g))
		}
	}
	if len(s) == 0 && n > 0 && len(pool) > 0 {
		best, bi := math.Inf(1), 0
		for i, p := range pool {
			sum := 0.0
			for _, q := range pool {
				sum += math.Sqrt(sqDist(p, q))
			}
			if sum < best {
				best, bi = sum, i
			}
		}
		idx, dist = append(idx, bi), append(dist, math.Inf(1))
		near[bi] = 0
		for i, p := range pool {
			near[i] = min(near[i], sqDist(p, pool[bi]))
		}
	}
	for len(idx) < n {
		best, bi := 0.0, -1
		for i, d := range near {
			if d > best {
				best, bi = d, i
			}
		}
		if bi < 0 {
			break // every shape left is one of s or chosen
		}
		idx, dist = append(idx, bi), append(dist, math.Sqrt(best))
		for i, p := range pool {
			near[i] = min(near[i], sqDist(p, pool[bi]))
		}
	}
	return idx, dist
}

// sqDist is the squared Euclidean distance between two shapes' logs.
func sqDist(a, b []float64) float64 {
	d := 0.0
	for f, v := range a {
		x := v - b[f]
		d += x * x
	}
	return d
}

// LogDistance is the Euclidean distance of two shapes' logs (TaskLogs):
// divided by math.Ln2, in doublings.
func LogDistance(a, b []float64) float64 { return math.Sqrt(sqDist(a, b)) }
