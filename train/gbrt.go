package train

import (
	"fmt"
	"math"
	"slices"
)

// GBRTOptions configure gradient-boosted regression trees. The zero value
// of each field means the default in its comment, which is Bergstra et
// al.'s choice (depth 4, 10 examples a leaf, 100 trees).
type GBRTOptions struct {
	// Trees is the number of boosting iterations; 0 means 100. Boosting
	// stops early when a tree finds no split.
	Trees int
	// MaxDepth is the depth of each tree; 0 means 4, at most 16.
	MaxDepth int
	// MinLeaf is the least number of training rows in a leaf; 0 means 10.
	MinLeaf int
	// LearningRate scales each tree's output; 0 means 0.1, at most 1.
	LearningRate float64
	// MaxBins is the most histogram bins per feature; 0 means 255, at
	// least 2. A feature with no more distinct values than that gets one
	// bin per value, so small integer parameters are split exactly.
	MaxBins int
}

// withDefaults returns o with zero fields set to their defaults, or an
// error naming the first invalid field.
func (o GBRTOptions) withDefaults() (GBRTOptions, error) {
	if o.Trees == 0 {
		o.Trees = 100
	}
	if o.MaxDepth == 0 {
		o.MaxDepth = 4
	}
	if o.MinLeaf == 0 {
		o.MinLeaf = 10
	}
	if o.LearningRate == 0 {
		o.LearningRate = 0.1
	}
	if o.MaxBins == 0 {
		o.MaxBins = 255
	}
	switch {
	case o.Trees < 1 || o.Trees > 1_000_000:
		return o, fmt.Errorf("train: GBRTOptions.Trees must be in [1, 1000000], got %d", o.Trees)
	case o.MaxDepth < 1 || o.MaxDepth > 16:
		return o, fmt.Errorf("train: GBRTOptions.MaxDepth must be in [1, 16], got %d", o.MaxDepth)
	case o.MinLeaf < 1:
		return o, fmt.Errorf("train: GBRTOptions.MinLeaf must be >= 1, got %d", o.MinLeaf)
	case !(o.LearningRate > 0 && o.LearningRate <= 1):
		return o, fmt.Errorf("train: GBRTOptions.LearningRate must be in (0, 1], got %g", o.LearningRate)
	case o.MaxBins < 2 || o.MaxBins > 255:
		return o, fmt.Errorf("train: GBRTOptions.MaxBins must be in [2, 255], got %d", o.MaxBins)
	}
	return o, nil
}

// Ensemble is a fitted sum of regression trees, the form LightGBM and
// leaves use: the prediction is the sum of one leaf value from each tree.
type Ensemble struct {
	trees     []tree
	nFeatures int
	// lo and hi are each feature's range in the training data, for
	// LightGBM's feature_infos.
	lo, hi []float64
	opts   GBRTOptions
}

// tree is one regression tree in LightGBM's layout: internal nodes are
// numbered from the root (0); a child index c >= 0 is an internal node and
// c < 0 is leaf ^c.
type tree struct {
	feature       []int32
	threshold     []float64
	left, right   []int32
	gain          []float64
	internalValue []float64
	internalCount []int
	leafValue     []float64
	leafCount     []int
}

// predict returns the value of the leaf x falls in. A NaN feature counts
// as 0, as leaves does for splits without a missing-value rule.
func (t *tree) predict(x []float64) float64 {
	if len(t.feature) == 0 {
		return t.leafValue[0]
	}
	n := int32(0)
	for {
		v := x[t.feature[n]]
		if v != v {
			v = 0
		}
		if v <= t.threshold[n] {
			n = t.left[n]
		} else {
			n = t.right[n]
		}
		if n < 0 {
			return t.leafValue[^n]
		}
	}
}

// Predict returns the predicted target for feature vector x, which must
// have NumFeatures values.
func (e *Ensemble) Predict(x []float64) float64 {
	var s float64
	for i := range e.trees {
		s += e.trees[i].predict(x)
	}
	return s
}

// NumFeatures is the length of the vectors Predict takes.
func (e *Ensemble) NumFeatures() int { return e.nFeatures }

// NumTrees is the number of trees fitted; fewer than GBRTOptions.Trees when
// boosting stopped early.
func (e *Ensemble) NumTrees() int { return len(e.trees) }

// FitGBRT fits gradient-boosted regression trees with squared loss to the
// n rows of x (row-major, nFeatures values a row) and targets y. The first
// tree's leaves include the mean of y. Fitting is deterministic.
//
// Splits are found on histograms: every feature is binned once into at
// most MaxBins quantile bins, each tree level costs one pass over the rows
// of the smaller child of every split, and the larger child's histogram is
// the parent's less the smaller one's.
func FitGBRT(x []float64, nFeatures int, y []float64, opts GBRTOptions) (*Ensemble, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	n := len(y)
	switch {
	case nFeatures < 1:
		return nil, fmt.Errorf("train: need at least one feature, got %d", nFeatures)
	case n == 0:
		return nil, fmt.Errorf("train: no training rows")
	case len(x) != n*nFeatures:
		return nil, fmt.Errorf("train: x has %d values, want %d rows x %d features", len(x), n, nFeatures)
	case n > math.MaxInt32:
		return nil, fmt.Errorf("train: %d rows, at most %d supported", n, math.MaxInt32)
	}
	for i, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("train: feature %d of row %d is %g", i%nFeatures, i/nFeatures, v)
		}
	}
	var mean float64
	for i, v := range y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("train: target of row %d is %g", i, v)
		}
		mean += v
	}
	mean /= float64(n)

	b := newBuilder(x, nFeatures, y, opts)
	e := &Ensemble{nFeatures: nFeatures, lo: b.lo, hi: b.hi, opts: opts}
	pred := make([]float64, n)
	for k := 0; k < opts.Trees; k++ {
		base := 0.0
		if k == 0 {
			base = mean
		}
		for i := range b.grad {
			b.grad[i] = y[i] - pred[i] - base
		}
		t := b.grow(opts.LearningRate, base, pred)
		if k > 0 && len(t.feature) == 0 {
			// Without a split the residuals keep their shape, so no later
			// tree would split either.
			break
		}
		e.trees = append(e.trees, t)
	}
	return e, nil
}

// histBin accumulates the residuals of the rows in one bin.
type histBin struct {
	sum float64
	n   int
}

// leafState is a leaf of the tree being grown: its rows are
// builder.rows[start:end].
type leafState struct {
	start, end int
	sum        float64
	hist       []histBin // nil when the leaf will not be split
	depth      int
	parent     int32 // internal node above, -1 for the root
	isLeft     bool
	done       bool
}

// builder holds the binned training data and the buffers reused by every
// tree, so that boosting allocates little after the first tree.
type builder struct {
	n, nFeat int
	opts     GBRTOptions
	bins     []uint8     // row-major, bins[i*nFeat+f]
	upper    [][]float64 // upper[f][b]: bin b holds values <= upper[f][b]; the last bin has no bound
	offset   []int       // offset[f]: first bin of feature f in a histogram
	lo, hi   []float64
	grad     []float64
	rows     []int32
	scratch  []int32
	free     [][]histBin
	leaves   []leafState
}

func newBuilder(x []float64, nFeat int, y []float64, opts GBRTOptions) *builder {
	n := len(y)
	b := &builder{n: n, nFeat: nFeat, opts: opts,
		bins: make([]uint8, n*nFeat), upper: make([][]float64, nFeat), offset: make([]int, nFeat+1),
		lo: make([]float64, nFeat), hi: make([]float64, nFeat),
		grad: make([]float64, n), rows: make([]int32, n), scratch: make([]int32, n)}
	col := make([]float64, n)
	for f := 0; f < nFeat; f++ {
		for i := range col {
			col[i] = x[i*nFeat+f]
		}
		up := binBounds(col, opts.MaxBins)
		b.upper[f] = up
		b.lo[f], b.hi[f] = slices.Min(col), slices.Max(col)
		b.offset[f+1] = b.offset[f] + len(up) + 1
		for i := 0; i < n; i++ {
			v := x[i*nFeat+f]
			k, _ := slices.BinarySearch(up, v) // first bound >= v
			b.bins[i*nFeat+f] = uint8(k)
		}
	}
	return b
}

// binBounds returns the upper bounds of at most maxBins bins over the
// values of col (which it sorts): between every two distinct values when
// there are few, otherwise at quantiles, always midway between two
// neighbouring distinct values.
func binBounds(col []float64, maxBins int) []float64 {
	slices.Sort(col)
	distinct := make([]float64, 0, 64)
	counts := make([]int, 0, 64)
	for i, v := range col {
		if i == 0 || v != col[i-1] {
			distinct = append(distinct, v)
			counts = append(counts, 0)
		}
		counts[len(counts)-1]++
	}
	mid := func(j int) float64 {
		a, c := distinct[j], distinct[j+1]
		m := a + (c-a)/2
		if m >= c { // a and c are neighbouring floats
			m = a
		}
		return m
	}
	var up []float64
	if len(distinct) <= maxBins {
		for j := 0; j+1 < len(distinct); j++ {
			up = append(up, mid(j))
		}
		return up
	}
	// Close a bin once it holds its share of the rows, so that the bins
	// are of about equal weight even when some values are very common.
	per := float64(len(col)) / float64(maxBins)
	cum := 0
	for j := 0; j+1 < len(distinct) && len(up) < maxBins-1; j++ {
		cum += counts[j]
		if float64(cum) >= per*float64(len(up)+1) {
			up = append(up, mid(j))
		}
	}
	return up
}

func (b *builder) getHist() []histBin {
	if k := len(b.free); k > 0 {
		h := b.free[k-1]
		b.free = b.free[:k-1]
		return h
	}
	return make([]histBin, b.offset[b.nFeat])
}

func (b *builder) putHist(h []histBin) {
	if h != nil {
		b.free = append(b.free, h)
	}
}

// buildHist fills h with the residual sums and counts of rows.
func (b *builder) buildHist(h []histBin, rows []int32) {
	clear(h)
	nf := b.nFeat
	off := b.offset[:nf]
	for _, r := range rows {
		g := b.grad[r]
		row := b.bins[int(r)*nf : int(r)*nf+nf]
		for f, v := range row {
			e := &h[off[f]+int(v)]
			e.sum += g
			e.n++
		}
	}
}

// split is the best split of a leaf.
type split struct {
	feature int
	bin     int // rows with bin <= bin go left
	gain    float64
}

// bestSplit finds the split of leaf l that most reduces the squared error,
// with at least MinLeaf rows on each side. Ties go to the lowest feature
// and bin, which keeps fitting deterministic.
func (b *builder) bestSplit(l *leafState) (split, bool) {
	best := split{gain: 1e-12}
	found := false
	n := l.end - l.start
	s := l.sum
	minLeaf := b.opts.MinLeaf
	parent := s * s / float64(n)
	for f := 0; f < b.nFeat; f++ {
		hb := l.hist[b.offset[f]:b.offset[f+1]]
		var sl float64
		nl := 0
		for k := 0; k < len(hb)-1; k++ {
			sl += hb[k].sum
			nl += hb[k].n
			if nl < minLeaf || hb[k].n == 0 {
				continue
			}
			nr := n - nl
			if nr < minLeaf {
				break
			}
			sr := s - sl
			gain := sl*sl/float64(nl) + sr*sr/float64(nr) - parent
			if gain > best.gain {
				best = split{feature: f, bin: k, gain: gain}
				found = true
			}
		}
	}
	return best, found
}

// grow fits one tree, depth by depth, to the residuals in b.grad, adds its
// output to pred, and returns it. Leaf values are lr times the mean
// residual, plus base.
func (b *builder) grow(lr, base float64, pred []float64) tree {
	var t tree
	for i := range b.rows {
		b.rows[i] = int32(i)
	}
	var sum float64
	for _, g := range b.grad {
		sum += g
	}
	leaves := append(b.leaves[:0], leafState{start: 0, end: b.n, sum: sum, parent: -1})
	if b.needsHist(0, b.n) {
		leaves[0].hist = b.getHist()
		b.buildHist(leaves[0].hist, b.rows)
	}
	for depth := 0; depth < b.opts.MaxDepth; depth++ {
		nLeaves := len(leaves)
		for li := 0; li < nLeaves; li++ {
			l := leaves[li]
			if l.done || l.depth != depth || l.hist == nil {
				continue
			}
			sp, ok := b.bestSplit(&l)
			if !ok {
				b.putHist(l.hist)
				leaves[li].hist, leaves[li].done = nil, true
				continue
			}
			mid := b.partition(l.start, l.end, sp)
			node := int32(len(t.feature))
			n := l.end - l.start
			t.feature = append(t.feature, int32(sp.feature))
			t.threshold = append(t.threshold, b.upper[sp.feature][sp.bin])
			t.left = append(t.left, ^int32(li))
			t.right = append(t.right, ^int32(len(leaves)))
			t.gain = append(t.gain, sp.gain)
			t.internalValue = append(t.internalValue, base+lr*l.sum/float64(n))
			t.internalCount = append(t.internalCount, n)
			if l.parent >= 0 {
				if l.isLeft {
					t.left[l.parent] = node
				} else {
					t.right[l.parent] = node
				}
			}
			left := leafState{start: l.start, end: mid, depth: depth + 1, parent: node, isLeft: true}
			right := leafState{start: mid, end: l.end, depth: depth + 1, parent: node}
			b.childHists(&l, &left, &right)
			leaves[li] = left
			leaves = append(leaves, right)
		}
	}
	t.leafValue = make([]float64, len(leaves))
	t.leafCount = make([]int, len(leaves))
	for li, l := range leaves {
		b.putHist(l.hist)
		rows := b.rows[l.start:l.end]
		var s float64
		for _, r := range rows {
			s += b.grad[r]
		}
		v := base + lr*s/float64(len(rows))
		for _, r := range rows {
			pred[r] += v
		}
		t.leafValue[li] = v
		t.leafCount[li] = len(rows)
	}
	b.leaves = leaves
	return t
}

// needsHist reports whether a leaf at depth with n rows may still be split.
func (b *builder) needsHist(depth, n int) bool {
	return depth < b.opts.MaxDepth && n >= 2*b.opts.MinLeaf
}

// childHists gives the children of parent the histograms they need: the
// smaller child's is built from its rows and the larger's is the parent's
// less the smaller's, in the parent's buffer.
func (b *builder) childHists(parent, left, right *leafState) {
	small, large := left, right
	if small.end-small.start > large.end-large.start {
		small, large = large, small
	}
	needSmall := b.needsHist(small.depth, small.end-small.start)
	needLarge := b.needsHist(large.depth, large.end-large.start)
	h := b.getHist()
	b.buildHist(h, b.rows[small.start:small.end])
	small.sum = histSum(h, b.offset[1])
	large.sum = parent.sum - small.sum
	if needLarge {
		p := parent.hist
		for i := range p {
			p[i].sum -= h[i].sum
			p[i].n -= h[i].n
		}
		large.hist = p
	} else {
		b.putHist(parent.hist)
	}
	parent.hist = nil
	if needSmall {
		small.hist = h
	} else {
		b.putHist(h)
	}
}

// histSum is the residual sum over the bins of one feature, which is the
// sum over all the rows.
func histSum(h []histBin, firstFeatureBins int) float64 {
	var s float64
	for _, e := range h[:firstFeatureBins] {
		s += e.sum
	}
	return s
}

// partition reorders b.rows[start:end] so that the rows going left come
// first, each side keeping its order, and returns where the right side
// starts. Keeping the order keeps histogram passes walking memory forwards.
func (b *builder) partition(start, end int, sp split) int {
	nf, f, k := b.nFeat, sp.feature, uint8(sp.bin)
	rows := b.rows[start:end]
	nl, nr := 0, 0
	for _, r := range rows {
		if b.bins[int(r)*nf+f] <= k {
			rows[nl] = r
			nl++
		} else {
			b.scratch[nr] = r
			nr++
		}
	}
	copy(rows[nl:], b.scratch[:nr])
	return start + nl
}
