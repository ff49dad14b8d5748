package lightgbm

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Bounds on what Read accepts, checked as soon as the text declares the
// size (tree_sizes, num_leaves, max_feature_idx) and before the trees are
// evaluated, so that hostile text cannot make a loader allocate, loop or
// predict without end: 100,000 chained trees took 19 s to load (issue 26).
// features/limits.go lists them with the bundle's limits. Each sits about
// 20 times (or more) above the largest legitimate model measured
// (2026-11-26, testdata/*.augur: 350 trees, 605 leaves, depth 10, 47
// features, 44,268 nodes and 2.0 MB of text, parsed in 19 ms).
const (
	// MaxTrees is the most trees a model may have (350 measured).
	MaxTrees = 10_000
	// MaxLeaves is the most leaves a tree may have (605 measured); it is
	// also train.GBRTOptions.MaxLeaves's bound.
	MaxLeaves = 1 << 16
	// MaxDepth is the most splits on a path from a tree's root to a leaf
	// (10 measured; train grows forests at most 32 deep).
	MaxDepth = 256
	// MaxNodes is the most nodes, internal and leaves, of all the trees
	// of a model together: it bounds the load time. It must admit what
	// augur's own trainer makes: its default settings reach 1,638,350
	// nodes (a forest of 50 trees 14 deep) plus 102,350 (a boosted
	// blend partner of 50 trees 10 deep), and a blend of the two
	// selected on 1M rows had 1,109,676 (bench/RESULTS.md); the largest
	// shipped model has 44,268. A model at the limit (1,024 trees of 2,048
	// leaves, 42.8 MB) parses in 359 ms (TestNodesAtTheLimit, 2-core dev
	// VM).
	MaxNodes = 1 << 22
	// MaxFeatures is the most features (max_feature_idx+1) a model may have
	// (47 measured; a bundle lists at most features.MaxBundleFeatures).
	MaxFeatures = 4096
	// maxInput bounds the bytes Read takes, in bytes.
	maxInput = 1 << 30
)

// Model is a tree ensemble in LightGBM's text format. Read and Parse return
// only valid models; Write refuses invalid ones.
type Model struct {
	// Version is the format version; only "v3" is read and written.
	Version string
	// NumClass is the number of classes, 1 for regression.
	NumClass int
	// NumTreePerIteration is the number of trees each boosting iteration
	// adds: 1 for regression, NumClass for multiclass. Tree i belongs to
	// output i % NumTreePerIteration.
	NumTreePerIteration int
	// LabelIndex is the label's column in LightGBM's training data.
	LabelIndex int
	// MaxFeatureIdx is the index of the last feature: vectors given to
	// Predict hold MaxFeatureIdx+1 values.
	MaxFeatureIdx int
	// Objective is LightGBM's objective string, such as "regression" or
	// "multiclass num_class:4"; empty when the text has none.
	Objective string
	// Average is average_output: the model predicts the mean of its trees
	// (a random forest) rather than their sum.
	Average bool
	// FeatureNames name the features, MaxFeatureIdx+1 of them, none empty
	// or holding a space or '='.
	FeatureNames []string
	// MonotoneConstraints, when not nil, holds -1, 0 or 1 for every
	// feature.
	MonotoneConstraints []int8
	// FeatureInfos describe every feature's range, as LightGBM writes
	// them: "[lo:hi]", or "none" for a feature it cannot split.
	FeatureInfos []string
	// Trees are the trees, interleaved by output when NumTreePerIteration
	// is more than 1.
	Trees []Tree
	// Params is the parameters section in order, nil when the text has
	// none.
	Params []Param
}

// Param is one line, "[Key: Value]", of the parameters section.
type Param struct {
	Key, Value string
}

// Tree is one regression tree. Its NumLeaves-1 internal nodes are numbered
// from the root, 0; a child index c >= 0 is an internal node and c < 0 is
// leaf ^c. Arrays marked optional are nil when the text lacks their line,
// and are then not written; the others hold one value per internal node
// (NumLeaves-1) or per leaf (NumLeaves). A one-leaf tree may have the
// per-node arrays nil or empty.
type Tree struct {
	NumLeaves    int
	SplitFeature []int32
	// SplitGain is optional.
	SplitGain []float64
	// Threshold: a value x <= Threshold[i] goes to LeftChild[i].
	Threshold []float64
	// DecisionType is 2 (numerical, default left) or 0 (numerical) for
	// every node: the only kinds Read accepts, and in both a NaN counts
	// as 0.
	DecisionType []int8
	LeftChild    []int32
	RightChild   []int32
	// LeafValue holds the leaves' values, learning rate included.
	LeafValue []float64
	// LeafWeight, LeafCount, InternalValue, InternalWeight and
	// InternalCount are optional training statistics.
	LeafWeight     []float64
	LeafCount      []int
	InternalValue  []float64
	InternalWeight []float64
	InternalCount  []int
	// Shrinkage is the learning rate the tree was fitted with, 1 when the
	// text has none. It is informational: LeafValue carries it already.
	Shrinkage float64
}

// NumFeatures returns the length of the vectors Predict takes,
// MaxFeatureIdx+1.
func (m *Model) NumFeatures() int { return m.MaxFeatureIdx + 1 }

// Regression returns an error wrapping ErrNotRegression unless m has one
// output whose raw value is the prediction: one class, one tree per
// iteration and a regression objective (regression, regression_l1, huber,
// fair, quantile or mape, not on sqrt of the label).
func (m *Model) Regression() error {
	if m.NumClass != 1 || m.NumTreePerIteration != 1 {
		return fmt.Errorf("%w: num_class=%d, num_tree_per_iteration=%d", ErrNotRegression, m.NumClass, m.NumTreePerIteration)
	}
	words := strings.Fields(m.Objective)
	// LightGBM marks a model trained on sqrt(label) "regression sqrt": its
	// output must be squared.
	if len(words) == 0 || slices.Contains(words, "sqrt") {
		return fmt.Errorf("%w: objective %q", ErrNotRegression, m.Objective)
	}
	switch words[0] {
	case "regression", "regression_l2", "l2", "mean_squared_error", "mse",
		"regression_l1", "l1", "mean_absolute_error", "mae",
		"huber", "fair", "quantile", "mape", "mean_absolute_percentage_error":
		return nil
	}
	return fmt.Errorf("%w: objective %q", ErrNotRegression, m.Objective)
}

// Multiclass returns an error wrapping ErrNotMulticlass unless m is a
// multiclass model of k classes whose raw scores rank the classes: num_class
// and num_tree_per_iteration both k (k >= 2), and objective "multiclass
// num_class:k" or "multiclassova num_class:k ...". Pass k 0 to accept any
// number of classes.
func (m *Model) Multiclass(k int) error {
	words := strings.Fields(m.Objective)
	if len(words) < 2 || (words[0] != "multiclass" && words[0] != "multiclassova") {
		return fmt.Errorf("%w: objective %q", ErrNotMulticlass, m.Objective)
	}
	if m.NumClass < 2 || m.NumTreePerIteration != m.NumClass || words[1] != "num_class:"+strconv.Itoa(m.NumClass) {
		return fmt.Errorf("%w: num_class=%d, num_tree_per_iteration=%d, objective %q", ErrNotMulticlass, m.NumClass, m.NumTreePerIteration, m.Objective)
	}
	if k != 0 && m.NumClass != k {
		return fmt.Errorf("%w: %d classes, want %d", ErrNotMulticlass, m.NumClass, k)
	}
	return nil
}

// PredictRaw writes the raw score of every output for x into dst, which
// must have NumTreePerIteration values: the sum of each output's trees
// (tree i adds to output i % NumTreePerIteration), or their mean over the
// iterations when m.Average is set, summed as leaves sums them. For a
// multiclass model written by augur the raw scores are the class
// probabilities; for LightGBM's own, the softmax of them is. x must hold
// NumFeatures values.
func (m *Model) PredictRaw(dst, x []float64) {
	k := m.NumTreePerIteration
	clear(dst[:k])
	coef := 1.0
	if m.Average && len(m.Trees) > 0 {
		coef = 1 / float64(len(m.Trees)/k)
	}
	for i := range m.Trees {
		dst[i%k] += m.Trees[i].Predict(x) * coef
	}
}

// Predict returns the sum of the trees' values for x, or their mean when
// m.Average is set. It is meaningful for a model that passes Regression;
// for several outputs it mixes them. x must hold NumFeatures values; a
// model from Read indexes nothing beyond that. A NaN feature counts as 0.
func (m *Model) Predict(x []float64) float64 {
	// The same arithmetic as leaves (each tree scaled, then summed), so
	// that the two agree to the last bit on averaged forests too.
	coef := 1.0
	if m.Average && len(m.Trees) > 0 {
		coef = 1 / float64(len(m.Trees))
	}
	sum := 0.0
	for i := range m.Trees {
		sum += m.Trees[i].Predict(x) * coef
	}
	return sum
}

// Predict returns the value of the leaf x falls in (Leaf). t must be
// valid, as Read returns it.
func (t *Tree) Predict(x []float64) float64 { return t.LeafValue[t.Leaf(x)] }

// Leaf returns the index of the leaf x falls in: at every node, x goes
// left when x[SplitFeature] <= Threshold, and a NaN counts as 0 (as in
// LightGBM and leaves for splits without a missing-value rule). It is the
// one descent of a tree: the trainers use it too, so that a model predicts
// in training what it predicts when loaded. t must be valid, as Read
// returns it and the trainers grow it.
func (t *Tree) Leaf(x []float64) int {
	if len(t.LeftChild) == 0 {
		return 0
	}
	i := int32(0)
	for {
		v := x[t.SplitFeature[i]]
		if v != v {
			v = 0
		}
		if v <= t.Threshold[i] {
			i = t.LeftChild[i]
		} else {
			i = t.RightChild[i]
		}
		if i < 0 {
			return int(^i)
		}
	}
}

// fieldError is a problem with one key of the header or of a tree; the
// reader turns it into a SyntaxError at the key's line, the writer into an
// ErrInvalidModel.
type fieldError struct {
	key string // the key whose line is wrong
	msg string
}

func errorf(key, format string, args ...any) *fieldError {
	return &fieldError{key: key, msg: fmt.Sprintf(format, args...)}
}

// checkHeader checks everything in m but its trees and parameters.
func (m *Model) checkHeader() *fieldError {
	switch {
	case m.Version != "v3":
		return errorf("version", "version %q: only v3 is supported", m.Version)
	case m.NumClass < 1 || m.NumClass > MaxTrees:
		return errorf("num_class", "num_class %d is not in [1, %d]", m.NumClass, MaxTrees)
	case m.NumTreePerIteration < 1 || m.NumTreePerIteration > MaxTrees:
		return errorf("num_tree_per_iteration", "num_tree_per_iteration %d is not in [1, %d]", m.NumTreePerIteration, MaxTrees)
	case m.LabelIndex < 0:
		return errorf("label_index", "label_index %d is negative", m.LabelIndex)
	case m.MaxFeatureIdx < 0 || m.MaxFeatureIdx >= MaxFeatures:
		return errorf("max_feature_idx", "max_feature_idx %d is not in [0, %d]", m.MaxFeatureIdx, MaxFeatures-1)
	case strings.ContainsAny(m.Objective, "\r\n"):
		return errorf("objective", "objective %q holds a line break", m.Objective)
	}
	n := m.NumFeatures()
	if len(m.FeatureNames) != n {
		return errorf("feature_names", "%d feature names for max_feature_idx=%d", len(m.FeatureNames), m.MaxFeatureIdx)
	}
	for _, s := range m.FeatureNames {
		if !isToken(s) {
			return errorf("feature_names", "feature name %q is empty or holds a space or '='", s)
		}
	}
	if len(m.FeatureInfos) != n {
		return errorf("feature_infos", "%d feature infos for max_feature_idx=%d", len(m.FeatureInfos), m.MaxFeatureIdx)
	}
	for _, s := range m.FeatureInfos {
		if !isToken(s) {
			return errorf("feature_infos", "feature info %q is empty or holds a space or '='", s)
		}
	}
	if m.MonotoneConstraints != nil {
		if len(m.MonotoneConstraints) != n {
			return errorf("monotone_constraints", "%d monotone constraints for max_feature_idx=%d", len(m.MonotoneConstraints), m.MaxFeatureIdx)
		}
		for _, c := range m.MonotoneConstraints {
			if c < -1 || c > 1 {
				return errorf("monotone_constraints", "monotone constraint %d is not -1, 0 or 1", c)
			}
		}
	}
	return nil
}

// checkTrees checks the number of trees against the header's layout.
func (m *Model) checkTrees() string {
	switch {
	case len(m.Trees) == 0:
		return "model has no trees"
	case len(m.Trees) > MaxTrees:
		return fmt.Sprintf("model has %d trees, at most %d supported", len(m.Trees), MaxTrees)
	case countNodes(m.Trees) > MaxNodes:
		return fmt.Sprintf("model has %d nodes, at most %d supported", countNodes(m.Trees), MaxNodes)
	case len(m.Trees)%m.NumTreePerIteration != 0:
		return fmt.Sprintf("%d trees is not a whole number of iterations of num_tree_per_iteration=%d", len(m.Trees), m.NumTreePerIteration)
	}
	return ""
}

// countNodes counts the nodes, internal and leaves, of trees.
func countNodes(trees []Tree) int {
	n := 0
	for i := range trees {
		n += treeNodes(trees[i].NumLeaves)
	}
	return n
}

// treeNodes is the number of nodes of a tree of leaves leaves.
func treeNodes(leaves int) int { return 2*max(leaves, 1) - 1 }

// checkParam checks that p writes as one line that reads back as p.
func checkParam(p Param) string {
	if p.Key == "" || strings.Contains(p.Key, ": ") || strings.ContainsAny(p.Key+p.Value, "\r\n") {
		return fmt.Sprintf("parameter [%s: %s]: the key is empty or holds \": \", or a line break", p.Key, p.Value)
	}
	if p.Key == ParamTargetRange {
		if _, _, err := parseRange(p.Value); err != nil {
			return fmt.Sprintf("parameter %s: %v", ParamTargetRange, err)
		}
	}
	return ""
}

// isToken reports whether s is one space-separated word of a key=value
// line: not empty, no white space, no '='.
func isToken(s string) bool {
	return s != "" && !strings.ContainsAny(s, " =\t\r\n\v\f")
}

// check checks t for a model whose features are 0..maxFeature: array
// lengths, indices, a tree shape (every node reached from the root exactly
// once) and finite numbers.
func (t *Tree) check(maxFeature int) *fieldError {
	if t.NumLeaves < 1 || t.NumLeaves > MaxLeaves {
		return errorf("num_leaves", "num_leaves %d is not in [1, %d]", t.NumLeaves, MaxLeaves)
	}
	nodes, leaves := t.NumLeaves-1, t.NumLeaves
	if len(t.LeafValue) != leaves {
		return errorf("leaf_value", "%d leaf values for num_leaves=%d", len(t.LeafValue), t.NumLeaves)
	}
	required := nodes > 0
	for _, a := range []struct {
		key       string
		n, want   int
		isNil     bool
		mandatory bool
	}{
		{"split_feature", len(t.SplitFeature), nodes, t.SplitFeature == nil, required},
		{"split_gain", len(t.SplitGain), nodes, t.SplitGain == nil, false},
		{"threshold", len(t.Threshold), nodes, t.Threshold == nil, required},
		{"decision_type", len(t.DecisionType), nodes, t.DecisionType == nil, required},
		{"left_child", len(t.LeftChild), nodes, t.LeftChild == nil, required},
		{"right_child", len(t.RightChild), nodes, t.RightChild == nil, required},
		{"leaf_weight", len(t.LeafWeight), leaves, t.LeafWeight == nil, false},
		{"leaf_count", len(t.LeafCount), leaves, t.LeafCount == nil, false},
		{"internal_value", len(t.InternalValue), nodes, t.InternalValue == nil, false},
		{"internal_weight", len(t.InternalWeight), nodes, t.InternalWeight == nil, false},
		{"internal_count", len(t.InternalCount), nodes, t.InternalCount == nil, false},
	} {
		if a.isNil && a.mandatory {
			return errorf(a.key, "no %s for a tree of %d leaves", a.key, t.NumLeaves)
		}
		if !a.isNil && a.n != a.want {
			return errorf(a.key, "%d values in %s, want %d for num_leaves=%d", a.n, a.key, a.want, t.NumLeaves)
		}
	}
	for _, a := range []struct {
		key string
		v   []float64
	}{
		{"split_gain", t.SplitGain}, {"threshold", t.Threshold}, {"leaf_value", t.LeafValue},
		{"leaf_weight", t.LeafWeight}, {"internal_value", t.InternalValue}, {"internal_weight", t.InternalWeight},
	} {
		for i, v := range a.v {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return errorf(a.key, "%s[%d] is %v, not a finite number", a.key, i, v)
			}
		}
	}
	if math.IsNaN(t.Shrinkage) || math.IsInf(t.Shrinkage, 0) {
		return errorf("shrinkage", "shrinkage is %v, not a finite number", t.Shrinkage)
	}
	for _, a := range []struct {
		key string
		v   []int
	}{{"leaf_count", t.LeafCount}, {"internal_count", t.InternalCount}} {
		for i, v := range a.v {
			if v < 0 {
				return errorf(a.key, "%s[%d] is %d, a negative count", a.key, i, v)
			}
		}
	}
	for i, f := range t.SplitFeature {
		if f < 0 || int(f) > maxFeature {
			return errorf("split_feature", "split_feature[%d] is %d, not a feature in [0, %d]", i, f, maxFeature)
		}
	}
	for i, d := range t.DecisionType {
		// Bit 0 is a categorical split, bits 2-3 a missing-value rule
		// (zero or NaN) that sends such values to the default side; bit
		// 1 (default left) matters only with such a rule. Neither Predict
		// nor predict's flat evaluator implements them.
		if d != 0 && d != 2 {
			return errorf("decision_type", "decision_type[%d] is %d: only numerical splits without a missing-value rule (0 or 2) are supported", i, d)
		}
	}
	return t.checkShape()
}

// checkShape checks that the children form one binary tree rooted at node
// 0: every child index in range and every node and leaf reached from the
// root exactly once, which rules out cycles, shared subtrees and
// unreachable nodes. It visits every node at most once, so a cycle in the
// text cannot make it loop.
func (t *Tree) checkShape() *fieldError {
	nodes := t.NumLeaves - 1
	if nodes == 0 {
		return nil
	}
	seenNode := make([]bool, nodes)
	seenLeaf := make([]bool, t.NumLeaves)
	seenNode[0] = true
	type visit struct{ node, depth int32 }
	stack := []visit{{0, 1}}
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		i := v.node
		stack = stack[:len(stack)-1]
		if v.depth > MaxDepth {
			return errorf("left_child", "node %d is %d splits deep, at most %d supported", i, v.depth, MaxDepth)
		}
		for _, side := range []struct {
			key string
			c   int32
		}{{"left_child", t.LeftChild[i]}, {"right_child", t.RightChild[i]}} {
			c := side.c
			switch {
			case c >= 0 && int(c) >= nodes:
				return errorf(side.key, "%s[%d] is %d, not a node of a tree of %d internal nodes", side.key, i, c, nodes)
			case c < 0 && int(^c) >= t.NumLeaves:
				return errorf(side.key, "%s[%d] is %d, leaf %d of a tree of %d leaves", side.key, i, c, ^c, t.NumLeaves)
			case c >= 0 && seenNode[c]:
				return errorf(side.key, "%s[%d] is %d: node %d is reached twice (a cycle or a shared subtree)", side.key, i, c, c)
			case c < 0 && seenLeaf[^c]:
				return errorf(side.key, "%s[%d] is %d: leaf %d is reached twice", side.key, i, c, ^c)
			case c >= 0:
				seenNode[c] = true
				stack = append(stack, visit{c, v.depth + 1})
			default:
				seenLeaf[^c] = true
			}
		}
	}
	for i, ok := range seenNode {
		if !ok {
			return errorf("left_child", "node %d is not reached from the root", i)
		}
	}
	// With every internal node reached once, its 2*nodes child slots hold
	// nodes-1 internal nodes and so exactly nodes+1 = NumLeaves distinct
	// leaves: every leaf is reached.
	return nil
}

// ParamTargetRange is the parameter, "[augur_target_range: lo hi]", in
// which a trainer records the least and the greatest target value it saw
// in training, so that predictions beyond them can be clamped and flagged
// (Clamp): a model extrapolates worst where it saw nothing, and a damaged
// or hostile model can predict anything (e^99 from 100,000 chained trees,
// issue 26).
const ParamTargetRange = "augur_target_range"

// TargetRange returns the range of the targets the model was trained on,
// from its ParamTargetRange parameter; ok is false when the text has none
// (LightGBM's own models, and augur's written before it existed).
func (m *Model) TargetRange() (lo, hi float64, ok bool) {
	for _, p := range m.Params {
		if p.Key == ParamTargetRange {
			lo, hi, err := parseRange(p.Value)
			return lo, hi, err == nil
		}
	}
	return 0, 0, false
}

// SetTargetRange records [lo, hi] as the range of the training targets
// (ParamTargetRange), replacing any range recorded before.
func (m *Model) SetTargetRange(lo, hi float64) error {
	if !(lo <= hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		return fmt.Errorf("%w: target range [%g, %g] is not two finite numbers in order", ErrInvalidModel, lo, hi)
	}
	v := strconv.FormatFloat(lo, 'g', -1, 64) + " " + strconv.FormatFloat(hi, 'g', -1, 64)
	for i := range m.Params {
		if m.Params[i].Key == ParamTargetRange {
			m.Params[i].Value = v
			return nil
		}
	}
	m.Params = append(m.Params, Param{Key: ParamTargetRange, Value: v})
	return nil
}

// Clamp returns v limited to the training targets' range (TargetRange),
// and whether it had to be: a prediction beyond what the model saw is
// extrapolation at best. Without a recorded range v comes back as is.
func (m *Model) Clamp(v float64) (float64, bool) {
	lo, hi, ok := m.TargetRange()
	switch {
	case !ok:
		return v, false
	case v < lo:
		return lo, true
	case v > hi:
		return hi, true
	}
	return v, false
}

// PredictClamped is Predict limited to the training targets' range
// (Clamp); clamped says the raw prediction lay outside it.
func (m *Model) PredictClamped(x []float64) (v float64, clamped bool) {
	return m.Clamp(m.Predict(x))
}

// parseRange parses "lo hi", two finite numbers with lo <= hi.
func parseRange(s string) (lo, hi float64, err error) {
	a, b, ok := strings.Cut(s, " ")
	if !ok {
		return 0, 0, fmt.Errorf("%q is not two numbers", s)
	}
	if lo, err = strconv.ParseFloat(a, 64); err != nil {
		return 0, 0, err
	}
	if hi, err = strconv.ParseFloat(b, 64); err != nil {
		return 0, 0, err
	}
	if !(lo <= hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		return 0, 0, fmt.Errorf("[%g, %g] is not two finite numbers in order", lo, hi)
	}
	return lo, hi, nil
}
