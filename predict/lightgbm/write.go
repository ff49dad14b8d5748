package lightgbm

import (
	"bufio"
	"bytes"
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// Write writes m in LightGBM's text format, version v3, as LightGBM lays it
// out: the header with exact tree_sizes, the trees, feature_importances
// (the number of splits on every used feature, most first, derived from
// the trees), the parameters section when m.Params is not nil, and
// pandas_categorical:null. Numbers are written in the shortest form that
// reads back to the same float64, so that Read returns a model equal to m
// and leaves predicts exactly what m.Predict does. Write returns an error
// wrapping ErrInvalidModel, and writes nothing, for a model Read would
// refuse.
func (m *Model) Write(w io.Writer) error {
	if err := m.check(); err != nil {
		return err
	}
	blocks := make([][]byte, len(m.Trees))
	sizes := make([]string, len(m.Trees))
	for i := range m.Trees {
		blocks[i] = m.Trees[i].block(i)
		sizes[i] = strconv.Itoa(len(blocks[i]))
	}

	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "tree\nversion=%s\nnum_class=%d\nnum_tree_per_iteration=%d\nlabel_index=%d\nmax_feature_idx=%d\n",
		m.Version, m.NumClass, m.NumTreePerIteration, m.LabelIndex, m.MaxFeatureIdx)
	if m.Objective != "" {
		fmt.Fprintf(bw, "objective=%s\n", m.Objective)
	}
	if m.Average {
		bw.WriteString("average_output\n")
	}
	fmt.Fprintf(bw, "feature_names=%s\n", strings.Join(m.FeatureNames, " "))
	if m.MonotoneConstraints != nil {
		fmt.Fprintf(bw, "monotone_constraints=%s\n", strings.Join(join(m.MonotoneConstraints, func(v int8) string { return strconv.Itoa(int(v)) }), " "))
	}
	fmt.Fprintf(bw, "feature_infos=%s\ntree_sizes=%s\n\n", strings.Join(m.FeatureInfos, " "), strings.Join(sizes, " "))
	for _, b := range blocks {
		bw.Write(b)
	}
	bw.WriteString("end of trees\n\nfeature_importances:\n")
	m.writeImportances(bw)
	bw.WriteString("\n")
	if m.Params != nil {
		bw.WriteString("parameters:\n")
		for _, p := range m.Params {
			fmt.Fprintf(bw, "[%s: %s]\n", p.Key, p.Value)
		}
		bw.WriteString("\nend of parameters\n\n")
	}
	bw.WriteString("pandas_categorical:null\n")
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("lightgbm: write model: %w", err)
	}
	return nil
}

// check returns an error wrapping ErrInvalidModel when Read would refuse
// the text of m.
func (m *Model) check() error {
	if fe := m.checkHeader(); fe != nil {
		return fmt.Errorf("%w: %s", ErrInvalidModel, fe.msg)
	}
	if msg := m.checkTrees(); msg != "" {
		return fmt.Errorf("%w: %s", ErrInvalidModel, msg)
	}
	for i := range m.Trees {
		if fe := m.Trees[i].check(m.MaxFeatureIdx); fe != nil {
			return fmt.Errorf("%w: tree %d: %s", ErrInvalidModel, i, fe.msg)
		}
	}
	for _, p := range m.Params {
		if msg := checkParam(p); msg != "" {
			return fmt.Errorf("%w: %s", ErrInvalidModel, msg)
		}
	}
	return nil
}

// writeImportances writes LightGBM's split-count importances: every
// feature used by a split, with its number of splits, most first; ties
// keep column order.
func (m *Model) writeImportances(bw *bufio.Writer) {
	splits := make([]int, m.NumFeatures())
	for i := range m.Trees {
		for _, f := range m.Trees[i].SplitFeature {
			splits[f]++
		}
	}
	var order []int
	for f, c := range splits {
		if c > 0 {
			order = append(order, f)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(splits[b], splits[a]) })
	for _, f := range order {
		fmt.Fprintf(bw, "%s=%d\n", m.FeatureNames[f], splits[f])
	}
}

// block returns the "Tree=i" block of t with the two blank lines that end
// it; tree_sizes counts these bytes.
func (t *Tree) block(i int) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "Tree=%d\nnum_leaves=%d\nnum_cat=0\n", i, t.NumLeaves)
	line := func(key string, vals []string, present bool) {
		if !present {
			return
		}
		b.WriteString(key)
		b.WriteByte('=')
		b.WriteString(strings.Join(vals, " "))
		b.WriteByte('\n')
	}
	i32 := func(v int32) string { return strconv.Itoa(int(v)) }
	line("split_feature", join(t.SplitFeature, i32), t.SplitFeature != nil)
	line("split_gain", join(t.SplitGain, ftoa), t.SplitGain != nil)
	line("threshold", join(t.Threshold, ftoa), t.Threshold != nil)
	line("decision_type", join(t.DecisionType, func(v int8) string { return strconv.Itoa(int(v)) }), t.DecisionType != nil)
	line("left_child", join(t.LeftChild, i32), t.LeftChild != nil)
	line("right_child", join(t.RightChild, i32), t.RightChild != nil)
	line("leaf_value", join(t.LeafValue, ftoa), true)
	line("leaf_weight", join(t.LeafWeight, ftoa), t.LeafWeight != nil)
	line("leaf_count", join(t.LeafCount, strconv.Itoa), t.LeafCount != nil)
	line("internal_value", join(t.InternalValue, ftoa), t.InternalValue != nil)
	line("internal_weight", join(t.InternalWeight, ftoa), t.InternalWeight != nil)
	line("internal_count", join(t.InternalCount, strconv.Itoa), t.InternalCount != nil)
	fmt.Fprintf(&b, "shrinkage=%s\n\n\n", ftoa(t.Shrinkage))
	return b.Bytes()
}

// ftoa writes v in the shortest form that parses back to v.
func ftoa(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

func join[T any](vs []T, f func(T) string) []string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = f(v)
	}
	return s
}
