package train

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"

	"github.com/augur-tuning/augur/predict/lightgbm"
)

// ClassLearner fits a ClassForest to the n rows of x (row-major, nFeatures
// values a row) and their classes y, each in [0, nClasses).
// ClassForestOptions and GolearnOptions are ClassLearners.
type ClassLearner interface {
	FitClasses(x []float64, nFeatures int, y []int, nClasses int) (*ClassForest, error)
}

var (
	_ ClassLearner = ClassForestOptions{}
	_ ClassLearner = GolearnOptions{}
)

// ClassForestOptions configure augur's random-forest classifier (Breiman
// 2001): gini splits, bootstrap samples, a random subset of the features
// at every split. The zero value of each field means the default in its
// comment.
type ClassForestOptions struct {
	// Trees is the number of trees; 0 means 100, at most 100000.
	Trees int
	// MaxDepth is the depth of each tree; 0 means 32 (in effect
	// unlimited: the training sets have a few hundred groups), at most
	// 32.
	MaxDepth int
	// MinLeaf is the least number of drawn rows in a leaf; 0 means 4.
	// scikit-learn's and Weka's forests grow to 1, which let the one or
	// two groups of a rare class carve leaves of their own: on conv2d's
	// leave-one-filter-out folds, 1 was the least accurate of 1, 2 and 4
	// (bench/RESULTS.md).
	MinLeaf int
	// ColSample is the fraction of the features drawn for every split,
	// counting only features that vary in the data, at least one; 0
	// means 1, all of them; else in (0, 1]. scikit-learn's square root
	// was less accurate on conv2d's folds (bench/RESULTS.md): the task
	// features are few, and a split that sees one or two of them is
	// mostly a poor one.
	ColSample float64
	// Seed draws the bootstrap samples and the features of each split.
	Seed uint64
}

func (o ClassForestOptions) withDefaults() (ClassForestOptions, error) {
	if o.Trees == 0 {
		o.Trees = 100
	}
	if o.MaxDepth == 0 {
		o.MaxDepth = 32
	}
	if o.MinLeaf == 0 {
		o.MinLeaf = 4
	}
	if o.ColSample == 0 {
		o.ColSample = 1
	}
	switch {
	case o.Trees < 1 || o.Trees > 100_000:
		return o, fmt.Errorf("train: ClassForestOptions.Trees must be in [1, 100000], got %d", o.Trees)
	case o.MaxDepth < 1 || o.MaxDepth > 32:
		return o, fmt.Errorf("train: ClassForestOptions.MaxDepth must be in [1, 32], got %d", o.MaxDepth)
	case o.MinLeaf < 1:
		return o, fmt.Errorf("train: ClassForestOptions.MinLeaf must be >= 1, got %d", o.MinLeaf)
	case !(o.ColSample > 0 && o.ColSample <= 1):
		return o, fmt.Errorf("train: ClassForestOptions.ColSample must be in (0, 1], got %g", o.ColSample)
	}
	return o, nil
}

// options returns the resolved options by name, for the bundle.
func (o ClassForestOptions) options() map[string]float64 {
	return map[string]float64{"trees": float64(o.Trees), "max_depth": float64(o.MaxDepth),
		"min_leaf": float64(o.MinLeaf), "colsample": o.ColSample}
}

// ClassForest is a fitted forest of classification trees: the probability
// of class k is the mean over the trees of the share of class k in the
// leaf the vector falls in, and the predicted class is the most probable,
// the lowest on a tie.
type ClassForest struct {
	// model holds the forest as it is written (see WriteLightGBM): K
	// trees an iteration sharing one forest tree's splits, class k's
	// leaf values its shares.
	model lightgbm.Model
}

// classTree is a tree being grown whose leaves hold class shares.
type classTree struct {
	lightgbm.Tree
	// share[leaf][k] is the share of class k among the leaf's rows, over
	// the number of trees: what the tree adds to class k's probability.
	share [][]float64
}

// newClassForest returns the forest of trees, over features of the
// ranges lo and hi, as a multiclass model of nClasses outputs.
func newClassForest(trees []classTree, nClasses int, lo, hi []float64, params []param) *ClassForest {
	k := nClasses
	out := make([]lightgbm.Tree, 0, len(trees)*k)
	for i := range trees {
		ct := &trees[i]
		for c := range k {
			t := ct.Tree
			t.LeafValue = make([]float64, len(ct.share))
			for l, s := range ct.share {
				t.LeafValue[l] = s[c]
			}
			out = append(out, t)
		}
	}
	m := newModel(out, lo, hi, false, params)
	m.NumClass, m.NumTreePerIteration = k, k
	m.Objective = "multiclass num_class:" + strconv.Itoa(k)
	return &ClassForest{model: m}
}

// FitClasses fits a random-forest classifier with options o; see
// ClassForestOptions.
func (o ClassForestOptions) FitClasses(x []float64, nFeatures int, y []int, nClasses int) (*ClassForest, error) {
	o, err := o.withDefaults()
	if err != nil {
		return nil, err
	}
	if err := checkClasses(x, nFeatures, y, nClasses); err != nil {
		return nil, err
	}
	n := len(y)
	lo, hi, varying := featureRanges(x, nFeatures, n)
	mtry := max(sampleSize(len(varying), o.ColSample), 1)
	params := []param{{"boosting", "rf"}, {"objective", "multiclass"}, {"num_class", strconv.Itoa(nClasses)},
		{"num_iterations", strconv.Itoa(o.Trees)}, {"max_depth", strconv.Itoa(o.MaxDepth)},
		{"min_data_in_leaf", strconv.Itoa(o.MinLeaf)}, {"bagging_fraction", "1"}, {"bagging_freq", "1"},
		{"feature_fraction_bynode", ftoa(float64(mtry) / float64(max(len(varying), 1)))}}
	rng := rand.New(rand.NewPCG(o.Seed, 0x3c6ef372fe94f82b))
	g := &classGrower{x: x, nf: nFeatures, y: y, k: nClasses, o: o, rng: rng, varying: varying, mtry: mtry,
		scale: 1 / float64(o.Trees)}
	count := make([]int32, n)
	rows := make([]int32, n)
	trees := make([]classTree, 0, o.Trees)
	for range o.Trees {
		bootstrap(rows, count, rng)
		trees = append(trees, g.grow(rows))
	}
	return newClassForest(trees, nClasses, lo, hi, params), nil
}

// checkClasses checks the shapes of a classifier's training data.
func checkClasses(x []float64, nFeatures int, y []int, nClasses int) error {
	switch {
	case nFeatures < 1:
		return fmt.Errorf("train: %d features, want >= 1", nFeatures)
	case len(y) == 0:
		return fmt.Errorf("train: no rows to fit")
	case len(x) != len(y)*nFeatures:
		return fmt.Errorf("train: %d values for %d rows of %d features", len(x), len(y), nFeatures)
	case nClasses < 2:
		return fmt.Errorf("train: %d classes, want >= 2", nClasses)
	}
	for i, c := range y {
		if c < 0 || c >= nClasses {
			return fmt.Errorf("train: row %d has class %d, not in [0, %d)", i, c, nClasses)
		}
	}
	for i, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("train: row %d feature %d is %v", i/nFeatures, i%nFeatures, v)
		}
	}
	return nil
}

// featureRanges returns every feature's least and largest value and the
// features that take two values or more.
func featureRanges(x []float64, nf, n int) (lo, hi []float64, varying []int) {
	lo, hi = make([]float64, nf), make([]float64, nf)
	for f := range nf {
		lo[f], hi[f] = math.Inf(1), math.Inf(-1)
		for i := range n {
			v := x[i*nf+f]
			lo[f], hi[f] = min(lo[f], v), max(hi[f], v)
		}
		if lo[f] < hi[f] {
			varying = append(varying, f)
		}
	}
	return lo, hi, varying
}

// classGrower grows the trees of a ClassForest. The training sets are a
// few hundred groups, so every split is found exactly, by sorting, rather
// than on histograms as the regression trees are.
type classGrower struct {
	x       []float64
	nf, k   int
	y       []int
	o       ClassForestOptions
	rng     *rand.Rand
	varying []int
	mtry    int
	scale   float64
	// buffers reused across nodes
	feats []int
	order []int32
	left  []float64
}

// grow grows one tree on rows (a bootstrap sample, a row once per draw).
func (g *classGrower) grow(rows []int32) classTree {
	t := classTree{Tree: newTree(1)}
	rows = slices.Clone(rows)
	g.node(&t, rows, 0, -1, false)
	return t
}

// node grows the subtree of rows at depth and links it under parent (-1
// for the root).
func (g *classGrower) node(t *classTree, rows []int32, depth int, parent int32, isLeft bool) {
	counts := make([]float64, g.k)
	for _, r := range rows {
		counts[g.y[r]]++
	}
	f, thr, ok := -1, 0.0, false
	if depth < g.o.MaxDepth && len(rows) >= 2*g.o.MinLeaf && !pure(counts) {
		f, thr, ok = g.bestSplit(rows, counts)
	}
	if !ok {
		share := make([]float64, g.k)
		for c, n := range counts {
			share[c] = n / float64(len(rows)) * g.scale
		}
		t.share = append(t.share, share)
		addLeaf(&t.Tree, parent, isLeft, 0, len(rows))
		return
	}
	id := addSplit(&t.Tree, parent, isLeft, f, thr, 0, 0, len(rows))
	// Partition in place: rows going left first.
	nl := 0
	for i, r := range rows {
		if g.x[int(r)*g.nf+f] <= thr {
			rows[i], rows[nl] = rows[nl], rows[i]
			nl++
		}
	}
	g.node(t, rows[:nl], depth+1, id, true)
	g.node(t, rows[nl:], depth+1, id, false)
}

func pure(counts []float64) bool {
	nz := 0
	for _, c := range counts {
		if c > 0 {
			nz++
		}
	}
	return nz <= 1
}

// bestSplit returns the feature and threshold among mtry features drawn at
// random that most reduce the gini impurity of rows, with at least MinLeaf
// rows on each side. Thresholds lie midway between neighbouring values.
// When none of the drawn features splits rows, the others are tried, as
// scikit-learn does, so that a node stops only when no feature can split.
func (g *classGrower) bestSplit(rows []int32, counts []float64) (int, float64, bool) {
	g.feats = append(g.feats[:0], g.varying...)
	g.rng.Shuffle(len(g.feats), func(i, j int) { g.feats[i], g.feats[j] = g.feats[j], g.feats[i] })
	n := float64(len(rows))
	parent := giniSum(counts, n)
	bestF, bestT, bestGain := -1, 0.0, 1e-12
	if cap(g.left) < g.k {
		g.left = make([]float64, g.k)
	}
	for tried, f := range g.feats {
		if tried >= g.mtry && bestF >= 0 {
			break
		}
		g.order = append(g.order[:0], rows...)
		order := g.order
		slices.SortFunc(order, func(a, b int32) int {
			va, vb := g.x[int(a)*g.nf+f], g.x[int(b)*g.nf+f]
			switch {
			case va < vb:
				return -1
			case va > vb:
				return 1
			}
			return int(a) - int(b)
		})
		left := g.left[:g.k]
		clear(left)
		for i := 0; i+1 < len(order); i++ {
			left[g.y[order[i]]]++
			a, b := g.x[int(order[i])*g.nf+f], g.x[int(order[i+1])*g.nf+f]
			nl := i + 1
			if a == b || nl < g.o.MinLeaf || len(order)-nl < g.o.MinLeaf {
				continue
			}
			var gl, gr float64
			nr := n - float64(nl)
			for c := range g.k {
				l := left[c]
				r := counts[c] - l
				gl += l * l
				gr += r * r
			}
			// The decrease of n * gini impurity: sum over sides of
			// (n_side - sum_c n_c^2 / n_side).
			gain := parent - (float64(nl) - gl/float64(nl)) - (nr - gr/nr)
			if gain > bestGain {
				m := a + (b-a)/2
				if m >= b {
					m = a
				}
				bestF, bestT, bestGain = f, m, gain
			}
		}
	}
	return bestF, bestT, bestF >= 0
}

// giniSum is n times the gini impurity of counts.
func giniSum(counts []float64, n float64) float64 {
	var s float64
	for _, c := range counts {
		s += c * c
	}
	return n - s/n
}

// NumClasses is the number of classes.
func (f *ClassForest) NumClasses() int { return f.model.NumClass }

// NumFeatures is the length of the vectors Probabilities takes.
func (f *ClassForest) NumFeatures() int { return f.model.NumFeatures() }

// NumTrees is the number of trees.
func (f *ClassForest) NumTrees() int { return len(f.model.Trees) / f.model.NumClass }

// Probabilities writes the probability of every class for x into dst,
// which must have NumClasses values, summed in the order leaves sums the
// written model so that both agree to the last bit. The K trees of an
// iteration share their splits, so one descent finds the leaf of all.
func (f *ClassForest) Probabilities(dst, x []float64) {
	clear(dst)
	trees, k := f.model.Trees, f.model.NumClass
	for i := 0; i < len(trees); i += k {
		leaf := trees[i].Leaf(x)
		for c := range dst {
			dst[c] += trees[i+c].LeafValue[leaf]
		}
	}
}

// Class returns the most probable class of x, the lowest on a tie.
func (f *ClassForest) Class(x []float64) int {
	p := make([]float64, f.NumClasses())
	f.Probabilities(p, x)
	return argmax(p)
}

// argmax returns the index of the largest value, the first on a tie.
func argmax(p []float64) int {
	b := 0
	for k, v := range p {
		if v > p[b] {
			b = k
		}
	}
	return b
}

// WriteLightGBM writes f in LightGBM's text format, version v3, as a
// multiclass model: num_class=K and K trees an iteration, class k's tree
// of iteration i at index i*K+k, all K trees of an iteration sharing one
// forest tree's splits. A leaf's value is its share of class k over the
// number of trees, so that the raw score of class k (leaves with
// loadTransformation false, or predict.Classifier) is f's probability of
// class k.
func (f *ClassForest) WriteLightGBM(w io.Writer, featureNames []string) error {
	return writeModel(w, &f.model, featureNames)
}
