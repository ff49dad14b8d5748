package train

import (
	"fmt"
	"math"
	"strconv"

	"github.com/sjwhitworth/golearn/base"
	"github.com/sjwhitworth/golearn/meta"
	"github.com/sjwhitworth/golearn/trees"
)

// GolearnOptions configure golearn's random forest
// (github.com/sjwhitworth/golearn ensemble.RandomForest), offered beside
// augur's own ClassForestOptions. FitClasses fits golearn's forest and
// walks its trees into a ClassForest, so that it is written, loaded and
// evaluated exactly as augur's own, without golearn at run time.
//
// What golearn does, as read in its source and measured (bench/RESULTS.md):
// every tree is an ID3 tree on a bootstrap sample and on Features features
// drawn once for the whole tree, not at every split; a numeric feature is
// split in two at the midpoint of the threshold of least entropy, and is
// then dropped from both subtrees, so a path tests each feature at most
// once; a tree votes the majority class of its leaf, and the forest the
// majority vote, its ties broken by map order. Its randomness comes from
// math/rand's global source, which no seed reaches: two fits differ.
// Package ensemble also holds golearn's liblinear binding, which needs
// cgo; FitClasses builds the same forest from golearn's meta and trees
// packages, which do not.
type GolearnOptions struct {
	// Trees is the number of trees; 0 means 100.
	Trees int
	// Features is the number of features drawn for each tree, among those
	// that vary in the data; 0 means all of them (golearn's own 0), at
	// most their number.
	Features int
}

// options returns the resolved options by name, for the bundle.
func (o GolearnOptions) options() map[string]float64 {
	if o.Trees == 0 {
		o.Trees = 100
	}
	return map[string]float64{"trees": float64(o.Trees), "features": float64(o.Features)}
}

// FitClasses fits golearn's random forest to the rows; see GolearnOptions.
// Features that take one value in the data are not given to golearn: a
// tree drawn only constant features would be a single leaf.
func (o GolearnOptions) FitClasses(x []float64, nFeatures int, y []int, nClasses int) (*ClassForest, error) {
	f, _, _, err := o.fit(x, nFeatures, y, nClasses)
	return f, err
}

// fit fits golearn's forest and returns it beside its ClassForest, with
// the golearn attributes of the features it was given (nil for the
// others), so that tests can ask golearn itself.
func (o GolearnOptions) fit(x []float64, nFeatures int, y []int, nClasses int) (*ClassForest, *meta.BaggedModel, []*base.FloatAttribute, error) {
	if o.Trees == 0 {
		o.Trees = 100
	}
	if o.Trees < 1 || o.Trees > 100_000 {
		return nil, nil, nil, fmt.Errorf("train: GolearnOptions.Trees must be in [1, 100000], got %d", o.Trees)
	}
	if err := checkClasses(x, nFeatures, y, nClasses); err != nil {
		return nil, nil, nil, err
	}
	n := len(y)
	lo, hi, varying := featureRanges(x, nFeatures, n)
	if o.Features < 0 || o.Features > len(varying) {
		return nil, nil, nil, fmt.Errorf("train: GolearnOptions.Features must be in [0, %d] (the features that vary), got %d", len(varying), o.Features)
	}
	if len(varying) == 0 {
		return nil, nil, nil, fmt.Errorf("train: golearn: every feature is constant")
	}
	attrs := make([]*base.FloatAttribute, nFeatures)
	for _, f := range varying {
		attrs[f] = base.NewFloatAttribute("f" + strconv.Itoa(f))
	}
	inst, _, err := golearnGridWith(x, nFeatures, y, nClasses, attrs)
	if err != nil {
		return nil, nil, nil, err
	}
	rf := randomForest(o.Trees, o.Features)
	rf.Fit(inst)
	params := []param{{"boosting", "rf"}, {"objective", "multiclass"}, {"num_class", strconv.Itoa(nClasses)},
		{"num_iterations", strconv.Itoa(o.Trees)}, {"learner", "golearn"}}
	index := map[string]int{}
	for f, a := range attrs {
		if a != nil {
			index[a.GetName()] = f
		}
	}
	scale := 1 / float64(o.Trees)
	var forest []classTree
	for i, m := range rf.Models {
		id3, ok := m.(*trees.ID3DecisionTree)
		if !ok || id3.Root == nil {
			return nil, nil, nil, fmt.Errorf("train: golearn: tree %d is a %T, want a fitted *trees.ID3DecisionTree", i, m)
		}
		t := classTree{Tree: newTree(1)}
		if err := walkGolearn(&t, id3.Root, index, nClasses, scale, -1, false); err != nil {
			return nil, nil, nil, fmt.Errorf("train: golearn: tree %d: %w", i, err)
		}
		forest = append(forest, t)
	}
	return newClassForest(forest, nClasses, lo, hi, params), rf, attrs, nil
}

// randomForest returns golearn's random forest as
// ensemble.RandomForest.Fit builds it: a meta.BaggedModel of forestSize ID3
// trees without pruning, each on features random features. Package
// ensemble itself is not imported: it also holds golearn's liblinear
// binding, which needs cgo, and train builds without it.
func randomForest(forestSize, features int) *meta.BaggedModel {
	m := &meta.BaggedModel{RandomFeatures: features}
	for range forestSize {
		m.AddModel(trees.NewID3DecisionTree(0))
	}
	return m
}

// golearnGridWith lays the rows out as golearn's FixedDataGrid: the float
// attribute attrs[f] for every feature f in use (nil for the others) and a
// categorical class attribute whose values are the class indices.
func golearnGridWith(x []float64, nf int, y []int, nClasses int, attrs []*base.FloatAttribute) (*base.DenseInstances, *base.CategoricalAttribute, error) {
	inst := base.NewDenseInstances()
	specs := make([]base.AttributeSpec, nf)
	var use []int
	for f, a := range attrs {
		if a != nil {
			specs[f] = inst.AddAttribute(a)
			use = append(use, f)
		}
	}
	class := base.NewCategoricalAttribute()
	class.SetName("class")
	// Register the classes in order, so that the class attribute's values
	// are the indices whatever rows come first.
	for k := range nClasses {
		class.GetSysValFromString(strconv.Itoa(k))
	}
	cs := inst.AddAttribute(class)
	if err := inst.AddClassAttribute(class); err != nil {
		return nil, nil, fmt.Errorf("train: golearn: %w", err)
	}
	if err := inst.Extend(len(y)); err != nil {
		return nil, nil, fmt.Errorf("train: golearn: %w", err)
	}
	for i, c := range y {
		for _, f := range use {
			inst.Set(specs[f], i, base.PackFloatToBytes(x[i*nf+f]))
		}
		inst.Set(cs, i, class.GetSysValFromString(strconv.Itoa(c)))
	}
	return inst, class, nil
}

// walkGolearn appends golearn node d to t under parent. golearn sends a
// value v of a numeric split to child "1" when v > SplitVal and to "0"
// otherwise, LightGBM's v <= threshold going left; a node with a single
// child sends every value there (golearn's Predict falls back to the only
// child), so it is inlined. A leaf votes its majority class (d.Class).
func walkGolearn(t *classTree, d *trees.DecisionTreeNode, index map[string]int, k int, scale float64, parent int32, isLeft bool) error {
	if d.Children != nil {
		lo, hi := d.Children["0"], d.Children["1"]
		switch {
		case len(d.Children) > 2 || (lo == nil && hi == nil):
			return fmt.Errorf("a node of %d children %v, want a numeric split", len(d.Children), keys(d.Children))
		case lo == nil:
			return walkGolearn(t, hi, index, k, scale, parent, isLeft)
		case hi == nil:
			return walkGolearn(t, lo, index, k, scale, parent, isLeft)
		}
		if d.SplitRule == nil || d.SplitRule.SplitAttr == nil {
			return fmt.Errorf("a node with children and no split rule")
		}
		f, ok := index[d.SplitRule.SplitAttr.GetName()]
		if !ok {
			return fmt.Errorf("a split on attribute %q, not a feature", d.SplitRule.SplitAttr.GetName())
		}
		thr := d.SplitRule.SplitVal
		if math.IsNaN(thr) || math.IsInf(thr, 0) {
			return fmt.Errorf("a split of %s at %v", d.SplitRule.SplitAttr.GetName(), thr)
		}
		id := addSplit(&t.Tree, parent, isLeft, f, thr, 0, 0, classCount(d))
		if err := walkGolearn(t, lo, index, k, scale, id, true); err != nil {
			return err
		}
		return walkGolearn(t, hi, index, k, scale, id, false)
	}
	c, err := strconv.Atoi(d.Class)
	if err != nil || c < 0 || c >= k {
		return fmt.Errorf("a leaf of class %q, not one of the %d classes", d.Class, k)
	}
	share := make([]float64, k)
	share[c] = scale
	t.share = append(t.share, share)
	addLeaf(&t.Tree, parent, isLeft, 0, classCount(d))
	return nil
}

// classCount is the number of training rows at golearn node d.
func classCount(d *trees.DecisionTreeNode) int {
	n := 0
	for _, c := range d.ClassDist {
		n += c
	}
	return n
}

func keys(m map[string]*trees.DecisionTreeNode) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
