package predict

import (
	"math"
	"math/rand/v2"
	"slices"

	"github.com/augur-tuning/augur/predict/lightgbm"
)

// The hot path of Choose scores about two dozen configurations per new
// shape (13 starting points, then 10-13 neighbours, on
// testdata/conv2d-h200.augur), and Candidates every known one.
// leaves evaluates a tree through a general decision function (categorical
// splits, missing values), about 17 ns a tree here; augur's own models use
// only numerical splits without missing values, so predict also compiles
// each model into flat arrays and, per shape, folds away every split on a
// task or platform feature (they are fixed while a shape is tuned). leaves
// stays the loader of record: the flat copy is checked against it at load
// time and is only used when the two agree exactly.

// flatNode is an internal node; a child < 0 is leaf ^child.
type flatNode struct {
	feature     int32
	left, right int32
	threshold   float64
}

type flatTree struct {
	nodes  []flatNode // empty for a single-leaf tree
	leaves []float64
}

func (t *flatTree) predict(x []float64) float64 {
	if len(t.nodes) == 0 {
		return t.leaves[0]
	}
	i := int32(0)
	for {
		n := &t.nodes[i]
		if x[n.feature] <= n.threshold {
			i = n.left
		} else {
			i = n.right
		}
		if i < 0 {
			return t.leaves[^i]
		}
	}
}

// flatModel is a whole ensemble in flat form.
type flatModel struct {
	trees []flatTree
	coef  float64 // 1, or 1/len(trees) for an averaged forest
}

func (m *flatModel) predict(x []float64) float64 {
	sum := 0.0
	for i := range m.trees {
		sum += m.trees[i].predict(x) * m.coef
	}
	return sum
}

// flatFrom copies a model that lightgbm.Parse checked (indices in range,
// every node reached once, numerical splits only) into flat form.
func flatFrom(lgm *lightgbm.Model) *flatModel {
	m := &flatModel{coef: 1}
	for _, t := range lgm.Trees {
		ft := flatTree{leaves: slices.Clone(t.LeafValue)}
		for k := range t.SplitFeature {
			ft.nodes = append(ft.nodes, flatNode{feature: t.SplitFeature[k], left: t.LeftChild[k], right: t.RightChild[k], threshold: t.Threshold[k]})
		}
		m.trees = append(m.trees, ft)
	}
	if lgm.Average && len(m.trees) > 0 {
		m.coef = 1 / float64(len(m.trees))
	}
	return m
}

// agrees reports whether the flat model and leaves predict the same on
// vectors built around the model's own thresholds, so that every branch is
// taken both ways.
func (m *flatModel) agrees(leavesPredict func([]float64) float64, nFeatures int) bool {
	cuts := make([][]float64, nFeatures)
	for _, t := range m.trees {
		for _, n := range t.nodes {
			if int(n.feature) >= nFeatures {
				return false
			}
			cuts[n.feature] = append(cuts[n.feature], n.threshold)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	x := make([]float64, nFeatures)
	for range 256 {
		for f := range x {
			x[f] = 0
			if c := cuts[f]; len(c) > 0 {
				x[f] = c[rng.IntN(len(c))] + []float64{-1e-9, 0, 1e-9, 1}[rng.IntN(4)]
			}
		}
		a, b := m.predict(x), leavesPredict(x)
		if math.Abs(a-b) > 1e-12*math.Max(1, math.Abs(b)) {
			return false
		}
	}
	return true
}

// specialized is a model folded for one shape: every tree in one pair of
// arrays, so that scoring walks contiguous memory. Node features index a
// Config; a child < 0 is leaf ^child; roots[i] < 0 is a one-leaf tree.
type specialized struct {
	nodes    []flatNode
	leaves   []float64
	roots    []int32
	constant float64
}

// specialize folds every split on a feature other than params (the fixed
// task and platform features, taken from x) and returns trees over the
// parameter columns only, renumbered to index a Config directly; trees
// that become constant are summed into constant.
func (m *flatModel) specialize(x []float64, paramStart, nParams int) specialized {
	size := 0
	for i := range m.trees {
		size += len(m.trees[i].nodes)
	}
	sp := specialized{nodes: make([]flatNode, 0, size), leaves: make([]float64, 0, size+len(m.trees))}
	for ti := range m.trees {
		t := &m.trees[ti]
		if len(t.nodes) == 0 {
			sp.constant += t.leaves[0] * m.coef
			continue
		}
		if root := sp.fold(t, 0, x, paramStart, nParams, m.coef); root >= 0 {
			sp.roots = append(sp.roots, root)
		} else {
			sp.constant += sp.leaves[^root]
			sp.leaves = sp.leaves[:len(sp.leaves)-1]
		}
	}
	return sp
}

// fold copies the subtree of t at i into sp, resolving fixed features, and
// returns its index (or ^leaf).
func (sp *specialized) fold(t *flatTree, i int32, x []float64, paramStart, nParams int, coef float64) int32 {
	for {
		if i < 0 {
			sp.leaves = append(sp.leaves, t.leaves[^i]*coef)
			return ^int32(len(sp.leaves) - 1)
		}
		n := t.nodes[i]
		f := int(n.feature)
		if f >= paramStart && f < paramStart+nParams {
			at := int32(len(sp.nodes))
			sp.nodes = append(sp.nodes, flatNode{feature: int32(f - paramStart), threshold: n.threshold})
			l := sp.fold(t, n.left, x, paramStart, nParams, coef)
			r := sp.fold(t, n.right, x, paramStart, nParams, coef)
			sp.nodes[at].left, sp.nodes[at].right = l, r
			return at
		}
		if x[f] <= n.threshold {
			i = n.left
		} else {
			i = n.right
		}
	}
}

// unified is a specialized model laid out for batches: leaves are nodes
// too, that point to themselves and never go right (threshold +Inf), so a
// descent is exactly depth steps with no branch on the path taken, and
// several configurations descend one tree side by side.
type unified struct {
	nodes    []flatNode
	value    []float64 // a leaf node's value; 0 for internal nodes
	roots    []int32
	depth    []int32 // steps from each root to its deepest leaf
	constant float64
}

func (sp *specialized) unify() unified {
	u := unified{constant: sp.constant}
	u.nodes = make([]flatNode, 0, len(sp.nodes)+len(sp.leaves))
	u.value = make([]float64, 0, len(sp.nodes)+len(sp.leaves))
	// Internal nodes keep their positions; leaf l becomes node
	// len(sp.nodes)+l.
	off := int32(len(sp.nodes))
	child := func(c int32) int32 {
		if c < 0 {
			return off + ^c
		}
		return c
	}
	for _, n := range sp.nodes {
		u.nodes = append(u.nodes, flatNode{feature: n.feature, threshold: n.threshold, left: child(n.left), right: child(n.right)})
		u.value = append(u.value, 0)
	}
	for l, v := range sp.leaves {
		self := off + int32(l)
		u.nodes = append(u.nodes, flatNode{feature: 0, threshold: math.Inf(1), left: self, right: self})
		u.value = append(u.value, v)
	}
	var depth func(i int32) int32
	depth = func(i int32) int32 {
		if i < 0 {
			return 0
		}
		n := sp.nodes[i]
		return 1 + max(depth(n.left), depth(n.right))
	}
	for _, r := range sp.roots {
		u.roots = append(u.roots, child(r))
		u.depth = append(u.depth, depth(r))
	}
	return u
}

// add4 adds every tree's value for four feature vectors of width w at xs
// (xs holds 4*w values) into out.
func (u *unified) add4(xs []float64, w int, out *[4]float64) {
	x0, x1, x2, x3 := xs[:w:w], xs[w:2*w:2*w], xs[2*w:3*w:3*w], xs[3*w:4*w:4*w]
	nodes := u.nodes
	var s0, s1, s2, s3 float64
	for t, r := range u.roots {
		i0, i1, i2, i3 := r, r, r, r
		for d := u.depth[t]; d > 0; d-- {
			n0, n1, n2, n3 := &nodes[i0], &nodes[i1], &nodes[i2], &nodes[i3]
			i0 = n0.left + b2i(x0[n0.feature] > n0.threshold)*(n0.right-n0.left)
			i1 = n1.left + b2i(x1[n1.feature] > n1.threshold)*(n1.right-n1.left)
			i2 = n2.left + b2i(x2[n2.feature] > n2.threshold)*(n2.right-n2.left)
			i3 = n3.left + b2i(x3[n3.feature] > n3.threshold)*(n3.right-n3.left)
		}
		s0 += u.value[i0]
		s1 += u.value[i1]
		s2 += u.value[i2]
		s3 += u.value[i3]
	}
	out[0], out[1], out[2], out[3] = s0+u.constant, s1+u.constant, s2+u.constant, s3+u.constant
}

func b2i(b bool) int32 {
	if b {
		return 1
	}
	return 0
}

// heapModel is a model laid out for batches as complete binary trees in heap
// order: node i of a tree has its children at 2i+1 and 2i+2, so a descent
// loads no child index, only a feature number and a threshold, and a
// tree of depth D takes exactly D steps. A leaf above depth D is padded
// down the left side with nodes whose threshold is +Inf (every value,
// NaN too, goes left), so it is reached at its leftmost descendant.
// Node feature numbers and thresholds sit in two arrays (9 bytes a node,
// where unified takes 32 with its leaves): a batch walks each tree while
// it is in the first-level cache (addBatch), and the whole model is read
// once every heapBlock configurations rather than once every four.
//
// heapModel sums exactly what unified.add4 sums, in the same order (the
// trees' values in turn from 0, then the constant): its scores equal
// add4's bit for bit.
type heapModel struct {
	feature   []uint8 // < maxFeatures
	threshold []float64
	leaves    []float64
	trees     []heapTree
	constant  float64
	// rest[i] is the sum of the largest leaf of every tree from i on:
	// what the trees not yet walked can add at most (addBatchAbove).
	rest []float64
}

type heapTree struct {
	node, leaf int32 // offsets of the tree's nodes and leaves
	depth      int32
}

// heapMaxDepth bounds the depth of a tree laid out in heap order (4,095
// nodes). heapSlack bounds the layout's bytes (17 a leaf slot: a node's
// feature and threshold, a leaf's value) against unified's (32 a node or
// leaf) for the same model: padding sparse trees must not multiply the
// model's memory. The repository's conv2d models and those `augur train`
// selects on the H200, H100 and Xeon sets need 0.3-1.9 times.
const (
	heapMaxDepth = 12
	heapSlack    = 2
)

// heapFrom lays sp out in heap order; ok is false when a tree is deeper
// than heapMaxDepth or the padding would take more than heapSlack times
// unified's memory, and unified serves instead.
func heapFrom(sp *specialized) (heapModel, bool) {
	var depth func(i int32) int32
	depth = func(i int32) int32 {
		if i < 0 {
			return 0
		}
		n := &sp.nodes[i]
		return 1 + max(depth(n.left), depth(n.right))
	}
	// The depths first, so that each array is allocated once.
	h := heapModel{constant: sp.constant, trees: make([]heapTree, len(sp.roots))}
	nodes, slots := 0, 0
	for i, r := range sp.roots {
		d := depth(r)
		if d > heapMaxDepth {
			return heapModel{}, false
		}
		h.trees[i] = heapTree{node: int32(nodes), leaf: int32(slots), depth: d}
		nodes += 1<<d - 1
		slots += 1 << d
	}
	if 17*slots > heapSlack*32*(len(sp.nodes)+len(sp.leaves)) {
		return heapModel{}, false
	}
	h.feature = make([]uint8, nodes)
	h.threshold = make([]float64, nodes)
	for k := range h.threshold {
		h.threshold[k] = math.Inf(1)
	}
	h.leaves = make([]float64, slots)
	for i, r := range sp.roots {
		h.place(sp, r, 0, h.trees[i].depth, h.trees[i])
	}
	h.rest = make([]float64, len(h.trees)+1)
	for i := len(h.trees) - 1; i >= 0; i-- {
		t := h.trees[i]
		h.rest[i] = h.rest[i+1] + slices.Max(h.leaves[t.leaf:int(t.leaf)+1<<t.depth])
	}
	return h, true
}

// place copies the subtree of sp at c to heap position i of tree t.
func (h *heapModel) place(sp *specialized, c int32, i int, d int32, t heapTree) {
	inner := 1<<d - 1
	for c < 0 && i < inner {
		i = 2*i + 1 // padding: the leaf is reached going left
	}
	if c < 0 {
		h.leaves[int(t.leaf)+i-inner] = sp.leaves[^c]
		return
	}
	n := &sp.nodes[c]
	h.feature[int(t.node)+i] = uint8(n.feature)
	h.threshold[int(t.node)+i] = n.threshold
	h.place(sp, n.left, 2*i+1, d, t)
	h.place(sp, n.right, 2*i+2, d, t)
}

// heapBlock is how many configurations addBatch walks through a tree
// before it moves to the next: their vectors (a few hundred bytes each)
// and one tree then share the first-level cache.
const heapBlock = 32

// addBatch scores the n feature vectors of width w at xs into out (n
// values). xs must hold a multiple of four vectors, at least n; those
// beyond n are read, not scored. Eight configurations descend a tree side
// by side, then four for the rest: a descent is a chain of dependent
// loads, and eight chains keep the core busier than four (20,000 batches
// of 16 on the Xeon's model: 0.54-0.57 s of CPU time against 0.66-0.71 s
// with four lanes, loading included; 2-core dev VM, 2026-11-26).
func (h *heapModel) addBatch(xs []float64, w, n int, out []float64) {
	for b := 0; b < n; b += heapBlock {
		e := min(b+heapBlock, n)
		sums := out[b:e]
		clear(sums)
		for _, t := range h.trees {
			nodes := 1<<t.depth - 1
			feature := h.feature[t.node : int(t.node)+nodes]
			threshold := h.threshold[t.node : int(t.node)+nodes]
			leaves := h.leaves[t.leaf : int(t.leaf)+nodes+1]
			k := b
			for ; k+8 <= e; k += 8 {
				var ii [8]int
				walk8(xs[k*w:(k+8)*w], w, feature, threshold, t.depth, &ii)
				s := sums[k-b : k-b+8]
				for j := range s {
					s[j] += leaves[ii[j]-nodes]
				}
			}
			for ; k < e; k += 4 {
				var ii [4]int
				walk4(xs[k*w:(k+4)*w], w, feature, threshold, t.depth, &ii)
				s := sums[k-b : min(k-b+4, len(sums))]
				for j := range s {
					s[j] += leaves[ii[j]-nodes]
				}
			}
		}
		for k := range sums {
			sums[k] += h.constant
		}
	}
}

// heapChunk is how many trees addBatchAbove walks between two looks at
// which configurations can still reach its floor.
const heapChunk = 16

// addBatchAbove is addBatch for a caller that needs only the scores of at
// least floor: a configuration whose sum so far plus the most the
// remaining trees can add (rest) falls below floor is dropped, and its
// score is -Inf. Every other score is addBatch's, bit for bit: the same
// sums in the same order. floor has a margin far above the rounding of
// the bound's own sum, so that no configuration that reaches floor is
// dropped. xs is scratch: the vectors still scored are moved forward in
// it as others drop.
func (h *heapModel) addBatchAbove(xs []float64, w, n int, out []float64, floor float64) {
	floor -= 1e-6 * (1 + math.Abs(floor) + math.Abs(h.rest[0]) + math.Abs(h.constant))
	var idx [heapBlock]int
	var sums [heapBlock]float64
	for b := 0; b < n; b += heapBlock {
		alive := min(heapBlock, n-b)
		for j := range alive {
			idx[j], sums[j] = b+j, 0
		}
		block := xs[b*w:]
		for c := 0; c < len(h.trees) && alive > 0; c += heapChunk {
			for _, t := range h.trees[c:min(c+heapChunk, len(h.trees))] {
				nodes := 1<<t.depth - 1
				feature := h.feature[t.node : int(t.node)+nodes]
				threshold := h.threshold[t.node : int(t.node)+nodes]
				leaves := h.leaves[t.leaf : int(t.leaf)+nodes+1]
				k := 0
				for ; k+8 <= alive; k += 8 {
					var ii [8]int
					walk8(block[k*w:(k+8)*w], w, feature, threshold, t.depth, &ii)
					for j := range 8 {
						sums[k+j] += leaves[ii[j]-nodes]
					}
				}
				for ; k < alive; k += 4 {
					var ii [4]int
					walk4(block[k*w:(k+4)*w], w, feature, threshold, t.depth, &ii)
					for j := range min(4, alive-k) {
						sums[k+j] += leaves[ii[j]-nodes]
					}
				}
			}
			rest := h.rest[min(c+heapChunk, len(h.trees))] + h.constant
			kept := 0
			for j := range alive {
				if sums[j]+rest < floor {
					out[idx[j]] = math.Inf(-1)
					continue
				}
				if kept != j {
					idx[kept], sums[kept] = idx[j], sums[j]
					copy(block[kept*w:(kept+1)*w], block[j*w:(j+1)*w])
				}
				kept++
			}
			alive = kept
		}
		for j := range alive {
			out[idx[j]] = sums[j] + h.constant
		}
	}
}

// walk4 descends one tree of depth d for the four vectors of width w at
// xs and returns the heap index of each one's leaf in ii.
func walk4(xs []float64, w int, feature []uint8, threshold []float64, d int32, ii *[4]int) {
	x0, x1, x2, x3 := xs[:w:w], xs[w:2*w:2*w], xs[2*w:3*w:3*w], xs[3*w:4*w:4*w]
	i0, i1, i2, i3 := 0, 0, 0, 0
	for range d {
		i0 = 2*i0 + 1 + b2int(x0[feature[i0]] > threshold[i0])
		i1 = 2*i1 + 1 + b2int(x1[feature[i1]] > threshold[i1])
		i2 = 2*i2 + 1 + b2int(x2[feature[i2]] > threshold[i2])
		i3 = 2*i3 + 1 + b2int(x3[feature[i3]] > threshold[i3])
	}
	*ii = [4]int{i0, i1, i2, i3}
}

// walk8 is walk4 for eight vectors.
func walk8(xs []float64, w int, feature []uint8, threshold []float64, d int32, ii *[8]int) {
	x0, x1, x2, x3 := xs[:w:w], xs[w:2*w:2*w], xs[2*w:3*w:3*w], xs[3*w:4*w:4*w]
	x4, x5, x6, x7 := xs[4*w:5*w:5*w], xs[5*w:6*w:6*w], xs[6*w:7*w:7*w], xs[7*w:8*w:8*w]
	i0, i1, i2, i3, i4, i5, i6, i7 := 0, 0, 0, 0, 0, 0, 0, 0
	for range d {
		i0 = 2*i0 + 1 + b2int(x0[feature[i0]] > threshold[i0])
		i1 = 2*i1 + 1 + b2int(x1[feature[i1]] > threshold[i1])
		i2 = 2*i2 + 1 + b2int(x2[feature[i2]] > threshold[i2])
		i3 = 2*i3 + 1 + b2int(x3[feature[i3]] > threshold[i3])
		i4 = 2*i4 + 1 + b2int(x4[feature[i4]] > threshold[i4])
		i5 = 2*i5 + 1 + b2int(x5[feature[i5]] > threshold[i5])
		i6 = 2*i6 + 1 + b2int(x6[feature[i6]] > threshold[i6])
		i7 = 2*i7 + 1 + b2int(x7[feature[i7]] > threshold[i7])
	}
	*ii = [8]int{i0, i1, i2, i3, i4, i5, i6, i7}
}

func b2int(b bool) int {
	if b {
		return 1
	}
	return 0
}
