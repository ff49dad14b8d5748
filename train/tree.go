package train

import (
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"

	"github.com/augur-tuning/augur/predict/lightgbm"
)

// newTree returns a tree of no node yet, fitted with learning rate
// shrinkage. Trees are grown as lightgbm.Tree, the one tree type that
// predicts, is written and is loaded. The per-node arrays are empty
// rather than nil, so that a one-leaf tree writes their lines, empty, as
// LightGBM writes them.
func newTree(shrinkage float64) lightgbm.Tree {
	return lightgbm.Tree{SplitFeature: []int32{}, SplitGain: []float64{}, Threshold: []float64{},
		DecisionType: []int8{}, LeftChild: []int32{}, RightChild: []int32{},
		LeafValue: []float64{}, LeafCount: []int{}, InternalValue: []float64{}, InternalCount: []int{},
		Shrinkage: shrinkage}
}

// resetTree empties t for a new tree fitted with learning rate shrinkage,
// keeping its arrays' room for the next.
func resetTree(t *lightgbm.Tree, shrinkage float64) {
	if t.SplitFeature == nil {
		*t = newTree(shrinkage)
		return
	}
	*t = lightgbm.Tree{SplitFeature: t.SplitFeature[:0], SplitGain: t.SplitGain[:0], Threshold: t.Threshold[:0],
		DecisionType: t.DecisionType[:0], LeftChild: t.LeftChild[:0], RightChild: t.RightChild[:0],
		LeafValue: t.LeafValue[:0], LeafCount: t.LeafCount[:0],
		InternalValue: t.InternalValue[:0], InternalCount: t.InternalCount[:0], Shrinkage: shrinkage}
}

// cloneTree returns a copy of t that shares no array with it, each array
// at its length; an empty array stays empty, not nil, and a nil one nil.
func cloneTree(t *lightgbm.Tree) lightgbm.Tree {
	c := *t
	c.SplitFeature, c.SplitGain, c.Threshold = clone(t.SplitFeature), clone(t.SplitGain), clone(t.Threshold)
	c.DecisionType, c.LeftChild, c.RightChild = clone(t.DecisionType), clone(t.LeftChild), clone(t.RightChild)
	c.LeafValue, c.LeafCount = clone(t.LeafValue), clone(t.LeafCount)
	c.LeafWeight, c.InternalWeight = clone(t.LeafWeight), clone(t.InternalWeight)
	c.InternalValue, c.InternalCount = clone(t.InternalValue), clone(t.InternalCount)
	return c
}

// clone returns a copy of s of capacity len(s), nil for nil.
func clone[T any](s []T) []T {
	if s == nil {
		return nil
	}
	return append(make([]T, 0, len(s)), s...)
}

// addSplit appends an internal node to t, x[feature] <= threshold going
// left, links it under parent (on its left side when isLeft; no link for
// the root, parent -1) and returns its index; its children are set by
// the splits and leaves linked under it, or by the caller. Every split is
// numerical with default left and no missing-value rule (decision_type
// 2): a NaN counts as 0, as lightgbm.Tree.Leaf has it. value and count
// are the node's training statistics (internal_value, internal_count).
func addSplit(t *lightgbm.Tree, parent int32, isLeft bool, feature int, threshold, gain, value float64, count int) int32 {
	id := int32(len(t.SplitFeature))
	t.SplitFeature = append(t.SplitFeature, int32(feature))
	t.Threshold = append(t.Threshold, threshold)
	t.SplitGain = append(t.SplitGain, gain)
	t.DecisionType = append(t.DecisionType, 2)
	t.LeftChild = append(t.LeftChild, 0)
	t.RightChild = append(t.RightChild, 0)
	t.InternalValue = append(t.InternalValue, value)
	t.InternalCount = append(t.InternalCount, count)
	link(t, parent, isLeft, id)
	return id
}

// addLeaf appends a leaf of value and count rows to t, links it under
// parent as addSplit does, and returns its index.
func addLeaf(t *lightgbm.Tree, parent int32, isLeft bool, value float64, count int) int {
	leaf := len(t.LeafValue)
	t.LeafValue = append(t.LeafValue, value)
	t.LeafCount = append(t.LeafCount, count)
	t.NumLeaves = len(t.LeafValue)
	link(t, parent, isLeft, ^int32(leaf))
	return leaf
}

// link makes child (a node, or ^leaf) the left or right child of parent;
// nothing for the root (parent -1).
func link(t *lightgbm.Tree, parent int32, isLeft bool, child int32) {
	switch {
	case parent < 0:
	case isLeft:
		t.LeftChild[parent] = child
	default:
		t.RightChild[parent] = child
	}
}

// growOptions are what the tree grower needs from GBRTOptions or
// ForestOptions.
type growOptions struct {
	maxDepth, maxLeaves, minLeaf int
	l2                           float64
	// splitCols, when not 0, is the number of features drawn at random
	// for every split (a random forest's mtry); rng draws them.
	splitCols int
	rng       *rand.Rand
	// minHess and maxDelta guard Newton steps, with per-row hessians
	// only: a split leaves at least minHess of hessian on each side (as
	// LightGBM's min_sum_hessian_in_leaf), and a leaf's step before the
	// learning rate is at most maxDelta in size (max_delta_step; 0: no
	// bound).
	minHess, maxDelta float64
	// parallelRows, when not 0, replaces the builder's choice of the
	// fewest rows of a leaf that several goroutines work on (see
	// builder.parallelRows); tests set it to 1 to make every leaf take
	// the parallel paths.
	parallelRows int
	// onTargets grows the trees on the set's targets themselves, as a
	// forest does: the builder's residuals are the targets, read only,
	// and no residual buffer is made (a row's 8 bytes).
	onTargets bool
}

// histBin accumulates the residuals of the rows in one bin, and their
// hessians when the objective gives them (builder.hess). Its 16 bytes are
// what they were before hessians: a count fits 32 bits (at most
// math.MaxInt32 rows) and a hessian sum a float32, as LightGBM keeps its
// hessians.
type histBin struct {
	sum  float64
	n    int32
	hess float32
}

// leafState is a leaf of the tree being grown: its rows are
// builder.rows[start:end].
type leafState struct {
	start, end int
	sum        float64
	hess       float64   // the rows' hessian sum, with builder.hess only
	hist       []histBin // nil when the leaf will not be split
	best       split     // the best split, when hist is not nil
	depth      int
	parent     int32 // internal node above, -1 for the root
	isLeft     bool
}

// builder holds the binned training data and the buffers reused by every
// tree, so that fitting allocates little after the first tree.
//
// Only the features with two values or more on the rows are binned (a
// device's own model has every device feature constant): the builder's
// feature f is the data's feature cols[f], and everything the builder
// indexes by feature (bins, upper, offset, feats, perm, a split) uses
// the builder's numbering. A constant feature cannot split, so leaving it
// out changes no tree.
type builder struct {
	n     int
	nFeat int   // the binned features
	cols  []int // cols[f]: the data's feature of binned feature f
	g     growOptions
	// bins holds the rows' bins, row-major, stride bytes a row: the bins
	// of the plain features, in order, then the key of each keyGroup.
	bins   []uint8
	stride int
	// plain are the features whose bins a row holds, in increasing
	// order, and plainOff their offsets: plain[p]'s bin in row i is
	// bins[i*stride+p]. Every feature is plain but those of groups.
	plain, plainOff []int
	// groups are the features read through a key (keyGroup); feature f
	// is column at[f] of groups[group[f]], or, when group[f] < 0, byte
	// at[f] of a row.
	groups    []keyGroup
	at, group []int
	upper     [][]float64 // upper[f][b]: bin b holds values <= upper[f][b]; the last bin has no bound
	// offset[f]: first bin of feature f in a histogram
	offset []int
	// lo and hi are the range of each of the data's features.
	lo, hi []float64
	// sumRows is set when the data's first feature is constant: a
	// child's residual sum is then summed over its rows, as the first
	// feature's single bin summed it, and otherwise over the first
	// feature's bins, so that sums round as they always have.
	sumRows bool
	grad    []float64
	// hess holds each row's hessian when the objective gives them (a
	// Newton step: a leaf is sum(grad)/(sum(hess)+l2)); nil means 1 a
	// row, the squared error's, and the grower's sums are then the exact
	// ones it has always made.
	hess []float64
	// rows holds the row numbers of the tree being grown, a row appearing
	// once per time it was drawn; scratch has the same length.
	rows, scratch []int32
	// feats are the features a tree may split on, in increasing order;
	// perm is a permutation of the features with two values or more, to
	// draw them from: sampling a constant feature would waste the draw.
	// splitFeats are those drawn for one split, under growOptions.splitCols.
	feats, perm, splitFeats []int
	free                    [][]histBin
	leaves                  []leafState
	open                    []int // indexes of leaves that may be split
	// tree is the tree being grown, its arrays reused by every tree and
	// copied, at their size, into the tree grow returns.
	tree lightgbm.Tree
	// buf lends bins, grad, rows and scratch when not nil (fitBuffers).
	buf *fitBuffers
	// parallelRows is the fewest rows of a leaf whose histograms and
	// partition several goroutines share: parallelLeafRows in a fit of
	// parallelFitRows rows or more, none (math.MaxInt) in a smaller one,
	// or growOptions.parallelRows when set.
	parallelRows int
}

// newBuilder returns a builder for the rows of s, binned into at most
// maxBins bins a feature.
func newBuilder(s fitSet, maxBins int, g growOptions) *builder {
	n, nFeat := s.len(), s.nFeat
	b := &builder{n: n, g: g, lo: make([]float64, nFeat), hi: make([]float64, nFeat), buf: s.buf,
		rows: s.buf.rowsOf(n), scratch: s.buf.scratchOf(n), parallelRows: math.MaxInt}
	if g.onTargets {
		b.grad = slices.Clip(s.y)
	} else {
		b.grad = s.buf.gradOf(n)
	}
	switch {
	case g.parallelRows > 0:
		b.parallelRows = g.parallelRows
	case n >= parallelFitRows:
		b.parallelRows = parallelLeafRows
	}
	s.binInto(b, maxBins)
	return b
}

// keyGroup is a set of features that take one value a key (a task, a
// device or a configuration, as a Data's keyed columns do: see
// codedCol.keyBy): a row holds its key, not a bin of each feature, and
// the key's bins are a row of the group's table. At the fleet model, 37 of
// conv2d's 51 features are keyed, and a row's bins took 22 bytes instead
// of 50 (bench/RESULTS.md, session 17). A histogram pass adds a row's bins to the same histogram entries
// in the same order either way, so fits are the same, bit for bit.
type keyGroup struct {
	// feats are the group's features, in increasing order, and off their
	// offsets in a histogram.
	feats, off []int
	// table[k*len(feats)+q] is the bin of feats[q] for key k.
	table []uint8
	// keyAt is the key's first byte in a row; wide keys take two bytes,
	// little-endian, others one.
	keyAt int
	wide  bool
}

// key returns the group's key in row, a row of the builder's bins.
func (g *keyGroup) key(row []uint8) int {
	k := int(row[g.keyAt])
	if g.wide {
		k |= int(row[g.keyAt+1]) << 8
	}
	return k
}

// keyPlan says which of the data's features layout reads through keys:
// feature f's rows share a bin a key of by[f] (0: none, the feature is
// plain), keys[by[f]] keys in all. nil plans none.
type keyPlan struct {
	by   []sampleKey
	keys [keyConfig + 1]int
}

// layout chooses the features to bin from every feature's bin bounds
// (none for a constant one), lays a row's bins out (keyed features as
// plan says, where a group's key takes fewer bytes than its features'
// bins would) and makes room for the rows' bins.
func (b *builder) layout(up [][]float64, plan *keyPlan) {
	for f, u := range up {
		if len(u) > 0 {
			b.cols = append(b.cols, f)
		}
	}
	k := len(b.cols)
	b.nFeat, b.sumRows = k, len(up[0]) == 0
	b.upper, b.offset = make([][]float64, k), make([]int, k+1)
	b.feats, b.perm = make([]int, k), make([]int, k)
	for j, f := range b.cols {
		b.upper[j] = up[f]
		b.offset[j+1] = b.offset[j] + len(up[f]) + 1
		b.feats[j], b.perm[j] = j, j
	}
	// A group of keys by: the binned features it keys, when its key is
	// narrower than their bins and takes at most two bytes.
	var members [keyConfig + 1][]int
	if plan != nil {
		for j, f := range b.cols {
			if by := plan.by[f]; by != keyNone {
				members[by] = append(members[by], j)
			}
		}
	}
	b.at, b.group = make([]int, k), make([]int, k)
	for j := range b.group {
		b.group[j] = -1
	}
	for by, js := range members {
		if len(js) == 0 {
			continue
		}
		width := 1
		if plan.keys[by] > 1<<8 {
			width = 2
		}
		if len(js) <= width || plan.keys[by] > 1<<16 {
			continue
		}
		g := keyGroup{feats: js, wide: width == 2, table: make([]uint8, plan.keys[by]*len(js))}
		for q, j := range js {
			g.off = append(g.off, b.offset[j])
			b.at[j], b.group[j] = q, len(b.groups)
		}
		b.groups = append(b.groups, g)
	}
	for j := range b.group {
		if b.group[j] < 0 {
			b.at[j] = len(b.plain)
			b.plain, b.plainOff = append(b.plain, j), append(b.plainOff, b.offset[j])
		}
	}
	b.stride = len(b.plain)
	for i := range b.groups {
		g := &b.groups[i]
		g.keyAt = b.stride
		b.stride++
		if g.wide {
			b.stride++
		}
	}
	b.bins = b.buf.binsOf(b.n * b.stride)
}

// binBounds returns the upper bounds of at most maxBins bins over the
// values of col (which it sorts): see boundsOf.
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
	return boundsOf(distinct, counts, len(col), maxBins)
}

// boundsOf returns the upper bounds of at most maxBins bins over n values
// whose distinct values, sorted, are distinct, each counts[j] times:
// between every two distinct values when there are few, otherwise at
// quantiles, always midway between two neighbouring distinct values.
func boundsOf(distinct []float64, counts []int, n, maxBins int) []float64 {
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
	per := float64(n) / float64(maxBins)
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

// workers is the number of goroutines that share the work on a leaf of
// n rows: 1 below builder.parallelRows, else GOMAXPROCS, at most
// maxWorkers.
func (b *builder) workers(n int) int {
	if n < b.parallelRows {
		return 1
	}
	return min(runtime.GOMAXPROCS(0), maxWorkers)
}

// buildHist fills h with the residual sums and counts of rows, and their
// hessian sums when the objective gives them.
func (b *builder) buildHist(h []histBin, rows []int32) {
	clear(h)
	nf := b.nFeat
	w := min(b.workers(len(rows)), nf)
	if w < 2 {
		b.histFeatures(h, rows, 0, nf)
		return
	}
	// Each goroutine sums its own features over every row, in the rows'
	// order: the histograms are bit for bit the serial ones.
	var wg sync.WaitGroup
	for k := range w {
		lo, hi := k*nf/w, (k+1)*nf/w
		wg.Go(func() { b.histFeatures(h, rows, lo, hi) })
	}
	wg.Wait()
}

// A fit of parallelFitRows rows or more shares the histograms and the
// partition of each leaf of parallelLeafRows rows or more among up to
// maxWorkers goroutines (builder.parallelRows). Smaller fits stay on one
// goroutine: the selection and the cross-validation, whose fits are
// smaller (SelectOptions.MaxRows), already run two fits at a time.
const (
	parallelFitRows  = 1 << 16
	parallelLeafRows = 1 << 13
	maxWorkers       = 4
)

// aheadRows is the block of rows whose bins and residuals a histogram
// pass loads before it adds the block before them. The rows of a leaf
// deep in a large fit are scattered over memory that no cache holds, and
// one row's updates (about 700 instructions for 51 features) fill the
// CPU's window: one row at a time, each row's loads wait for memory in
// turn, while a block's loads, issued together, wait about once
// (BenchmarkBuildHistSparse; 16 did better than 8 or 32 in whole fits).
// The partition does not fetch ahead: its loop is a few instructions a
// row, so the CPU keeps many rows' loads in flight already, and fetching
// ahead there measured no faster.
const aheadRows = 16

// touchRows loads, and so brings into the cache, the bins of each of
// rows and its residual, and returns a value of them all that the caller
// keeps alive (runtime.KeepAlive), so that the loads are not dropped as
// unused.
func (b *builder) touchRows(rows []int32) uint64 {
	st, bins, grad := b.stride, b.bins, b.grad
	var t uint64
	for _, r := range rows {
		i := int(r) * st
		t += uint64(bins[i]) + uint64(bins[i+st-1]) + math.Float64bits(grad[r])
	}
	return t
}

// histSpan is the part of a row's bins one histogram pass adds: the
// plain features plain[pa:pb] and, of each group, the features
// feats[q[g][0]:q[g][1]].
type histSpan struct {
	pa, pb int
	q      [keyConfig][2]int
}

// span returns the histSpan of features lo to hi-1.
func (b *builder) span(lo, hi int) histSpan {
	if len(b.groups) == 0 {
		return histSpan{pa: lo, pb: hi} // every feature plain, in order
	}
	in := func(fs []int) [2]int {
		a, _ := slices.BinarySearch(fs, lo)
		c, _ := slices.BinarySearch(fs, hi)
		return [2]int{a, c}
	}
	p := in(b.plain)
	sp := histSpan{pa: p[0], pb: p[1]}
	for i := range b.groups {
		sp.q[i] = in(b.groups[i].feats)
	}
	return sp
}

// histFeatures adds rows into the histograms of features lo to hi-1, a
// block of aheadRows rows at a time, each block's rows fetched (touchRows)
// while the block before them is added.
func (b *builder) histFeatures(h []histBin, rows []int32, lo, hi int) {
	if b.stride == 0 {
		return // no feature is binned: nothing to add
	}
	sp := b.span(lo, hi)
	var touched uint64
	for start := 0; start < len(rows); start += aheadRows {
		end := min(start+aheadRows, len(rows))
		touched += b.touchRows(rows[end:min(end+aheadRows, len(rows))])
		b.histBlock(h, rows[start:end], &sp)
	}
	runtime.KeepAlive(touched)
}

// histBlock adds rows into the histograms of the features of sp: a row's
// plain features, then its groups' from their tables. A row's updates go
// together, so that two rows of one key, which add to the same entries,
// have the row's other updates between them to overlap with.
func (b *builder) histBlock(h []histBin, rows []int32, sp *histSpan) {
	st, pa, pb := b.stride, sp.pa, sp.pb
	off := b.plainOff[pa:pb]
	groups := b.groups
	hess := b.hess
	if len(groups) == 0 {
		// Every feature plain, as in every fit below keyedFitRows.
		if hess != nil {
			for _, r := range rows {
				addBins(h, off, b.bins[int(r)*st+pa:int(r)*st+pb], b.grad[r], float32(hess[r]), true)
			}
			return
		}
		for _, r := range rows {
			addBins(h, off, b.bins[int(r)*st+pa:int(r)*st+pb], b.grad[r], 0, false)
		}
		return
	}
	for _, r := range rows {
		g := b.grad[r]
		var hs float32
		if hess != nil {
			hs = float32(hess[r])
		}
		row := b.bins[int(r)*st : int(r)*st+st]
		addBins(h, off, row[pa:pb], g, hs, hess != nil)
		for i := range groups {
			kg := &groups[i]
			qa, qb := sp.q[i][0], sp.q[i][1]
			if qa == qb {
				continue
			}
			k := kg.key(row) * len(kg.feats)
			addBins(h, kg.off[qa:qb], kg.table[k+qa:k+qb], g, hs, hess != nil)
		}
	}
}

// addBins adds a row's residual g (and hessian hs, when withHess) to the
// histogram entries off[f]+bins[f].
func addBins(h []histBin, off []int, bins []uint8, g float64, hs float32, withHess bool) {
	off = off[:len(bins)]
	if withHess {
		for f, v := range bins {
			e := &h[off[f]+int(v)]
			e.sum += g
			e.n++
			e.hess += hs
		}
		return
	}
	for f, v := range bins {
		e := &h[off[f]+int(v)]
		e.sum += g
		e.n++
	}
}

// split is the best split of a leaf.
type split struct {
	feature int
	bin     int // rows with bin <= bin go left
	gain    float64
}

// bestSplit finds the split of leaf l that most reduces the (L2
// penalized) squared error, with at least minLeaf rows on each side, over
// the features the tree or this split may use. Ties go to the lowest
// feature and bin, which keeps fitting deterministic.
func (b *builder) bestSplit(l *leafState) (split, bool) {
	if b.hess != nil {
		return b.bestSplitNewton(l)
	}
	best := split{gain: 1e-12}
	found := false
	n := l.end - l.start
	s := l.sum
	minLeaf, l2 := b.g.minLeaf, b.g.l2
	parent := s * s / (float64(n) + l2)
	feats := b.feats
	if k := b.g.splitCols; k > 0 && k < len(b.perm) {
		b.splitFeats = pickFeatures(b.splitFeats[:0], b.perm, k, b.g.rng)
		feats = b.splitFeats
	}
	for _, f := range feats {
		hb := l.hist[b.offset[f]:b.offset[f+1]]
		var sl float64
		nl := 0
		for k := 0; k < len(hb)-1; k++ {
			sl += hb[k].sum
			nl += int(hb[k].n)
			if nl < minLeaf || hb[k].n == 0 {
				continue
			}
			nr := n - nl
			if nr < minLeaf {
				break
			}
			sr := s - sl
			gain := sl*sl/(float64(nl)+l2) + sr*sr/(float64(nr)+l2) - parent
			if gain > best.gain {
				best = split{feature: f, bin: k, gain: gain}
				found = true
			}
		}
	}
	return best, found
}

// bestSplitNewton is bestSplit with per-row hessians: a side's gain is
// sum(grad)^2/(sum(hess)+l2), as LightGBM's and XGBoost's, and each side
// keeps minLeaf rows and minHess of hessian.
func (b *builder) bestSplitNewton(l *leafState) (split, bool) {
	best := split{gain: 1e-12}
	found := false
	n := l.end - l.start
	s, hs := l.sum, l.hess
	minLeaf, l2, minHess := b.g.minLeaf, b.g.l2, b.g.minHess
	parent := s * s / (hs + l2)
	feats := b.feats
	if k := b.g.splitCols; k > 0 && k < len(b.perm) {
		b.splitFeats = pickFeatures(b.splitFeats[:0], b.perm, k, b.g.rng)
		feats = b.splitFeats
	}
	for _, f := range feats {
		hb := l.hist[b.offset[f]:b.offset[f+1]]
		var sl, hl float64
		nl := 0
		for k := 0; k < len(hb)-1; k++ {
			sl += hb[k].sum
			hl += float64(hb[k].hess)
			nl += int(hb[k].n)
			if nl < minLeaf || hb[k].n == 0 || hl < minHess {
				continue
			}
			nr := n - nl
			if nr < minLeaf {
				break
			}
			sr, hr := s-sl, hs-hl
			if hr < minHess {
				continue
			}
			gain := sl*sl/(hl+l2) + sr*sr/(hr+l2) - parent
			if gain > best.gain {
				best = split{feature: f, bin: k, gain: gain}
				found = true
			}
		}
	}
	return best, found
}

// newtonValue is a leaf's value less the base from its rows' gradient
// sum s and hessian sum h: lr*s/(h+l2) (computed in the order the
// squared-error path computes lr*s/(n+l2), so that unit hessians give the
// same bits), 0 when h+l2 is not positive, and at most lr*maxDelta in
// size when maxDelta is set.
func (b *builder) newtonValue(lr, s, h float64) float64 {
	d := h + b.g.l2
	if !(d > 0) {
		return 0
	}
	if m := b.g.maxDelta; m > 0 && math.Abs(s) > m*d {
		return lr * math.Copysign(m, s)
	}
	return lr * s / d
}

// grow fits one tree to the residuals in b.grad of the rows b.rows[:m] and
// returns it; b.leaves then holds its leaves' rows. Leaf values are lr
// times the (L2 shrunk) mean residual, plus base.
//
// Without maxLeaves the tree grows depth first, so that only the
// histograms of the leaves on the path to the current one are alive, and
// every leaf is split until maxDepth or minLeaf stops it. With maxLeaves
// it grows best first, as LightGBM does.
func (b *builder) grow(m int, lr, base float64) lightgbm.Tree {
	t := &b.tree
	resetTree(t, lr)
	l2 := b.g.l2
	var sum, hess float64
	for _, r := range b.rows[:m] {
		sum += b.grad[r]
	}
	if b.hess != nil {
		for _, r := range b.rows[:m] {
			hess += b.hess[r]
		}
	}
	leaves := append(b.leaves[:0], leafState{start: 0, end: m, sum: sum, hess: hess, parent: -1})
	open := b.open[:0]
	if b.needsHist(0, m) {
		leaves[0].hist = b.getHist()
		b.buildHist(leaves[0].hist, b.rows[:m])
		if b.findSplit(&leaves[0]) {
			open = append(open, 0)
		}
	}
	for len(open) > 0 && (b.g.maxLeaves == 0 || len(leaves) < b.g.maxLeaves) {
		k := len(open) - 1
		if b.g.maxLeaves > 0 {
			for j := range open {
				if leaves[open[j]].best.gain > leaves[open[k]].best.gain {
					k = j
				}
			}
		}
		li := open[k]
		open = slices.Delete(open, k, k+1)
		l := leaves[li]
		sp := l.best
		mid := b.partition(l.start, l.end, sp)
		n := l.end - l.start
		value := base + lr*l.sum/(float64(n)+l2)
		if b.hess != nil {
			value = base + b.newtonValue(lr, l.sum, l.hess)
		}
		node := addSplit(t, l.parent, l.isLeft, b.cols[sp.feature], b.upper[sp.feature][sp.bin], sp.gain, value, n)
		// The left child keeps the leaf's number and the right one takes
		// the next, as LightGBM numbers them.
		t.LeftChild[node] = ^int32(li)
		t.RightChild[node] = ^int32(len(leaves))
		left := leafState{start: l.start, end: mid, depth: l.depth + 1, parent: node, isLeft: true}
		right := leafState{start: mid, end: l.end, depth: l.depth + 1, parent: node}
		b.childHists(&l, &left, &right)
		leaves[li] = left
		leaves = append(leaves, right)
		if b.findSplit(&leaves[li]) {
			open = append(open, li)
		}
		if b.findSplit(&leaves[len(leaves)-1]) {
			open = append(open, len(leaves)-1)
		}
	}
	leafValue := make([]float64, len(leaves))
	leafCount := make([]int, len(leaves))
	for li := range leaves {
		l := &leaves[li]
		b.putHist(l.hist)
		l.hist = nil
		rows := b.rows[l.start:l.end]
		var s float64
		for _, r := range rows {
			s += b.grad[r]
		}
		leafValue[li] = base + lr*s/(float64(len(rows))+l2)
		if b.hess != nil {
			var h float64
			for _, r := range rows {
				h += b.hess[r]
			}
			leafValue[li] = base + b.newtonValue(lr, s, h)
		}
		leafCount[li] = len(rows)
	}
	b.leaves, b.open = leaves, open
	out := cloneTree(t)
	out.NumLeaves, out.LeafValue, out.LeafCount = len(leaves), leafValue, leafCount
	return out
}

// findSplit sets l.best and reports whether l can be split; when it
// cannot, l's histogram goes back to the pool.
func (b *builder) findSplit(l *leafState) bool {
	if l.hist == nil {
		return false
	}
	sp, ok := b.bestSplit(l)
	if !ok {
		b.putHist(l.hist)
		l.hist = nil
		return false
	}
	l.best = sp
	return true
}

// addLeafValues adds the leaf values of t, just grown, to pred of the rows
// in each leaf: the fast way to update the predictions when the tree was
// grown on every row once.
func (b *builder) addLeafValues(t *lightgbm.Tree, pred []float64) {
	for li, l := range b.leaves {
		v := t.LeafValue[li]
		for _, r := range b.rows[l.start:l.end] {
			pred[r] += v
		}
	}
}

// needsHist reports whether a leaf at depth with n rows may still be split.
func (b *builder) needsHist(depth, n int) bool {
	return depth < b.g.maxDepth && n >= 2*b.g.minLeaf
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
	if !needSmall && !needLarge {
		// Neither child will be split, so nothing reads their sums (a
		// leaf's value is summed over its rows in grow): building the
		// smaller child's histogram only to sum it is a pass over its
		// rows for nothing, at the last level of every tree.
		b.putHist(parent.hist)
		parent.hist = nil
		return
	}
	h := b.getHist()
	b.buildHist(h, b.rows[small.start:small.end])
	if b.sumRows {
		var s float64
		for _, r := range b.rows[small.start:small.end] {
			s += b.grad[r]
		}
		small.sum = 0
		small.sum += s // as histSum adds a single bin to 0
	} else {
		small.sum = histSum(h, b.offset[1])
	}
	large.sum = parent.sum - small.sum
	if b.hess != nil {
		small.hess = 0
		for _, e := range h[:b.offset[1]] {
			small.hess += float64(e.hess)
		}
		large.hess = parent.hess - small.hess
	}
	if needLarge {
		p := parent.hist
		for i := range p {
			p[i].sum -= h[i].sum
			p[i].n -= h[i].n
			p[i].hess -= h[i].hess
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
// starts. Keeping the order keeps histogram passes walking memory forwards,
// and makes the children's rows, and so their sums, the same whether one
// goroutine partitions or several.
func (b *builder) partition(start, end int, sp split) int {
	w := b.workers(end - start)
	if w < 2 {
		return start + b.partitionChunk(b.rows[start:end], b.scratch[start:end], sp)
	}
	// Each goroutine partitions its own chunk in place; then each copies
	// its chunk's left rows and right rows to where they go in scratch,
	// after the left rows of the chunks before it, and copies its share
	// of scratch back.
	var bounds [maxWorkers + 1]int
	var nl [maxWorkers]int
	for k := range w + 1 {
		bounds[k] = start + k*(end-start)/w
	}
	var wg sync.WaitGroup
	for k := range w {
		lo, hi := bounds[k], bounds[k+1]
		wg.Go(func() { nl[k] = b.partitionChunk(b.rows[lo:hi], b.scratch[lo:hi], sp) })
	}
	wg.Wait()
	left := 0
	for k := range w {
		left += nl[k]
	}
	l, r := start, start+left
	for k := range w {
		lo, hi, n := bounds[k], bounds[k+1], nl[k]
		dl, dr := l, r
		wg.Go(func() {
			copy(b.scratch[dl:], b.rows[lo:lo+n])
			copy(b.scratch[dr:], b.rows[lo+n:hi])
		})
		l, r = l+n, r+hi-lo-n
	}
	wg.Wait()
	for k := range w {
		lo, hi := bounds[k], bounds[k+1]
		wg.Go(func() { copy(b.rows[lo:hi], b.scratch[lo:hi]) })
	}
	wg.Wait()
	return start + left
}

// partitionChunk reorders rows as partition does, with scratch (as long
// as rows) to hold the right side meanwhile, and returns the number of
// rows that go left.
func (b *builder) partitionChunk(rows, scratch []int32, sp split) int {
	f, k := sp.feature, uint8(sp.bin)
	if gi := b.group[f]; gi >= 0 {
		return b.partitionKeyed(rows, scratch, &b.groups[gi], b.at[f], k)
	}
	st, at := b.stride, b.at[f]
	nl, nr := 0, 0
	for _, r := range rows {
		if b.bins[int(r)*st+at] <= k {
			rows[nl] = r
			nl++
		} else {
			scratch[nr] = r
			nr++
		}
	}
	copy(rows[nl:], scratch[:nr])
	return nl
}

// partitionKeyed is partitionChunk by column q of group g: a row goes
// left when its key's bin is at most k.
func (b *builder) partitionKeyed(rows, scratch []int32, g *keyGroup, q int, k uint8) int {
	st, m := b.stride, len(g.feats)
	nl, nr := 0, 0
	for _, r := range rows {
		key := int(b.bins[int(r)*st+g.keyAt])
		if g.wide {
			key |= int(b.bins[int(r)*st+g.keyAt+1]) << 8
		}
		if g.table[key*m+q] <= k {
			rows[nl] = r
			nl++
		} else {
			scratch[nr] = r
			nr++
		}
	}
	copy(rows[nl:], scratch[:nr])
	return nl
}
