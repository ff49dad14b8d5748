package eval

import (
	"fmt"
	"slices"

	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/train"
)

// LeaveOneOut is a Classifier for Table3 that never saw the kernel it
// picks for: asked about a shape, it fits the learner on the groups of cd
// that disagree with the shape on the task features FoldBy names (for
// stencils, every array size of the same stencil is left out) and returns
// the most probable class. Garvey and Abdelrahman evaluate their
// classifier the same way, one kernel held out at a time (section 8.2).
// Fits are kept per held-out key, so each kernel costs one fit whatever the
// number of heuristics and devices. It is not safe for concurrent use.
type LeaveOneOut struct {
	data    *train.ClassData
	learner train.ClassLearner
	foldBy  []int
	fitted  map[features.TaskKey]*train.ClassForest
	prob    []float64
	row     []float64
}

// NewLeaveOneOut returns a LeaveOneOut over cd. foldBy empty means every
// task feature (leave one shape out).
func NewLeaveOneOut(cd *train.ClassData, learner train.ClassLearner, foldBy []string) (*LeaveOneOut, error) {
	l := &LeaveOneOut{data: cd, learner: learner, fitted: map[features.TaskKey]*train.ClassForest{},
		prob: make([]float64, len(cd.Classes)), row: make([]float64, 0, len(cd.Features))}
	for _, n := range foldBy {
		i := slices.Index(cd.TaskNames, n)
		if i < 0 {
			return nil, fmt.Errorf("eval: fold key %q is not a task feature of the classifier's data (%v)", n, cd.TaskNames)
		}
		l.foldBy = append(l.foldBy, i)
	}
	if len(l.foldBy) == 0 {
		for i := range cd.TaskNames {
			l.foldBy = append(l.foldBy, i)
		}
	}
	return l, nil
}

// LoadLeaveOneOut returns a LeaveOneOut of the technique of kernel (see
// KernelRoles), over the groups of the data under dir, with the kernel's
// derived features that depend on the task alone, folded by the kernel's
// Roles.FoldBy, fitting augur's forest classifier seeded with seed.
func LoadLeaveOneOut(dir, kernel string, seed uint64) (*LeaveOneOut, error) {
	roles, err := KernelRoles(kernel)
	if err != nil {
		return nil, err
	}
	var lo train.LoadOptions
	if k, err := datasets.Lookup(kernel); err == nil {
		lo.Derived = k.Derived
	}
	d, err := train.LoadWith(dir, kernel, lo)
	if err != nil {
		return nil, err
	}
	cd, err := train.Classes(d, roles.Technique)
	if err != nil {
		return nil, err
	}
	return NewLeaveOneOut(cd, train.ClassForestOptions{Seed: seed}, roles.FoldBy)
}

// Groups is the number of (shape, device) groups it trains on, all
// folds together.
func (l *LeaveOneOut) Groups() int { return l.data.Len() }

// key is the fold key of task t.
func (l *LeaveOneOut) key(t features.Task) features.TaskKey {
	var k features.TaskKey
	for j, i := range l.foldBy {
		k[j] = t[i]
	}
	return k
}

// Technique implements Classifier. The heuristic is ignored: one
// classifier of the fastest configuration's class serves every heuristic.
func (l *LeaveOneOut) Technique(_ string, p features.Platform, t features.Task) (int, error) {
	if len(t) != len(l.data.TaskNames) {
		return 0, fmt.Errorf("eval: shape %v has %d task features, the classifier's data %d", t, len(t), len(l.data.TaskNames))
	}
	k := l.key(t)
	f, ok := l.fitted[k]
	if !ok {
		nf := len(l.data.Features)
		var x []float64
		var y []int
		for i, g := range l.data.Groups {
			if l.key(g.Task) != k {
				x = append(x, l.data.Row(i)...)
				y = append(y, l.data.Y[i])
			}
		}
		if len(y) == 0 {
			return 0, fmt.Errorf("eval: the classifier's data holds only the kernel of shape %v; nothing to train on", t)
		}
		var err error
		if f, err = l.learner.FitClasses(x, nf, y, len(l.data.Classes)); err != nil {
			return 0, fmt.Errorf("eval: classifier without shape %v: %w", t, err)
		}
		l.fitted[k] = f
	}
	l.row = l.data.AppendFeatures(l.row[:0], t, p)
	if len(l.row) != len(l.data.Features) {
		return 0, fmt.Errorf("eval: classifier row has %d features, its data %d", len(l.row), len(l.data.Features))
	}
	f.Probabilities(l.prob, l.row)
	best := 0
	for c, v := range l.prob {
		if v > l.prob[best] {
			best = c
		}
	}
	return l.data.Classes[best], nil
}
