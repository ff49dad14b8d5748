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
//
// The text streams into w a tree at a time: the header's tree_sizes are
// measured by formatting each tree once beforehand into one reused
// buffer, so that Write holds one tree's text, never the model's (a
// million-node forest writes tens of megabytes). A w with a Grow(int)
// method (strings.Builder, bytes.Buffer) is grown to the text's exact
// size first, so that the caller's copy is made once, without the slack
// of repeated growth.
func (m *Model) Write(w io.Writer) error {
	if err := m.check(); err != nil {
		return err
	}
	var blk []byte
	sizes := make([]byte, 0, 8*len(m.Trees))
	total := 0
	for i := range m.Trees {
		blk = m.Trees[i].appendBlock(blk[:0], i)
		if i > 0 {
			sizes = append(sizes, ' ')
		}
		sizes = strconv.AppendInt(sizes, int64(len(blk)), 10)
		total += len(blk)
	}

	var head bytes.Buffer
	fmt.Fprintf(&head, "tree\nversion=%s\nnum_class=%d\nnum_tree_per_iteration=%d\nlabel_index=%d\nmax_feature_idx=%d\n",
		m.Version, m.NumClass, m.NumTreePerIteration, m.LabelIndex, m.MaxFeatureIdx)
	if m.Objective != "" {
		fmt.Fprintf(&head, "objective=%s\n", m.Objective)
	}
	if m.Average {
		head.WriteString("average_output\n")
	}
	fmt.Fprintf(&head, "feature_names=%s\n", strings.Join(m.FeatureNames, " "))
	if m.MonotoneConstraints != nil {
		fmt.Fprintf(&head, "monotone_constraints=%s\n", strings.Join(join(m.MonotoneConstraints, func(v int8) string { return strconv.Itoa(int(v)) }), " "))
	}
	fmt.Fprintf(&head, "feature_infos=%s\ntree_sizes=%s\n\n", strings.Join(m.FeatureInfos, " "), sizes)

	var tail bytes.Buffer
	tail.WriteString("end of trees\n\nfeature_importances:\n")
	m.writeImportances(&tail)
	tail.WriteString("\n")
	if m.Params != nil {
		tail.WriteString("parameters:\n")
		for _, p := range m.Params {
			fmt.Fprintf(&tail, "[%s: %s]\n", p.Key, p.Value)
		}
		tail.WriteString("\nend of parameters\n\n")
	}
	tail.WriteString("pandas_categorical:null\n")

	if g, ok := w.(interface{ Grow(int) }); ok {
		g.Grow(head.Len() + total + tail.Len())
	}
	bw := bufio.NewWriter(w)
	bw.Write(head.Bytes())
	for i := range m.Trees {
		blk = m.Trees[i].appendBlock(blk[:0], i)
		bw.Write(blk)
	}
	bw.Write(tail.Bytes())
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
func (m *Model) writeImportances(bw *bytes.Buffer) {
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

// appendBlock appends the "Tree=i" block of t, with the two blank lines
// that end it, to b and returns the extended slice; tree_sizes counts
// these bytes.
func (t *Tree) appendBlock(b []byte, i int) []byte {
	b = append(b, "Tree="...)
	b = strconv.AppendInt(b, int64(i), 10)
	b = append(b, "\nnum_leaves="...)
	b = strconv.AppendInt(b, int64(t.NumLeaves), 10)
	b = append(b, "\nnum_cat=0\n"...)
	if t.SplitFeature != nil {
		b = appendLine(b, "split_feature", t.SplitFeature, appendInt)
	}
	if t.SplitGain != nil {
		b = appendLine(b, "split_gain", t.SplitGain, appendFloat)
	}
	if t.Threshold != nil {
		b = appendLine(b, "threshold", t.Threshold, appendFloat)
	}
	if t.DecisionType != nil {
		b = appendLine(b, "decision_type", t.DecisionType, appendInt)
	}
	if t.LeftChild != nil {
		b = appendLine(b, "left_child", t.LeftChild, appendInt)
	}
	if t.RightChild != nil {
		b = appendLine(b, "right_child", t.RightChild, appendInt)
	}
	b = appendLine(b, "leaf_value", t.LeafValue, appendFloat) // written even when empty
	if t.LeafWeight != nil {
		b = appendLine(b, "leaf_weight", t.LeafWeight, appendFloat)
	}
	if t.LeafCount != nil {
		b = appendLine(b, "leaf_count", t.LeafCount, appendInt)
	}
	if t.InternalValue != nil {
		b = appendLine(b, "internal_value", t.InternalValue, appendFloat)
	}
	if t.InternalWeight != nil {
		b = appendLine(b, "internal_weight", t.InternalWeight, appendFloat)
	}
	if t.InternalCount != nil {
		b = appendLine(b, "internal_count", t.InternalCount, appendInt)
	}
	b = append(b, "shrinkage="...)
	b = appendFloat(b, t.Shrinkage)
	return append(b, "\n\n\n"...)
}

// appendLine appends "key=v0 v1 ...\n" to b, each value by app.
func appendLine[T any](b []byte, key string, vals []T, app func([]byte, T) []byte) []byte {
	b = append(b, key...)
	b = append(b, '=')
	for k, v := range vals {
		if k > 0 {
			b = append(b, ' ')
		}
		b = app(b, v)
	}
	return append(b, '\n')
}

// appendInt appends v in decimal.
func appendInt[T int | int8 | int32](b []byte, v T) []byte { return strconv.AppendInt(b, int64(v), 10) }

// appendFloat appends v in the shortest form that parses back to v.
func appendFloat(b []byte, v float64) []byte { return strconv.AppendFloat(b, v, 'g', -1, 64) }

func join[T any](vs []T, f func(T) string) []string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = f(v)
	}
	return s
}
