package train

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

// WriteLightGBM writes e in LightGBM's text model format, version v3, which
// github.com/dmitryikh/leaves loads (LGEnsembleFromReader) and LightGBM
// itself reads. featureNames name the columns of the vectors Predict takes;
// they may hold neither spaces nor '='.
//
// Numbers are written in the shortest form that reads back to the same
// float64, so that leaves predicts exactly what Predict does.
func (e *Ensemble) WriteLightGBM(w io.Writer, featureNames []string) error {
	o := e.opts
	leaves := o.MaxLeaves
	if leaves == 0 {
		leaves = 1 << o.MaxDepth
	}
	params := []param{{"boosting", "gbdt"}, {"objective", "regression"},
		{"num_iterations", strconv.Itoa(o.Trees)}, {"learning_rate", ftoa(o.LearningRate)},
		{"max_depth", strconv.Itoa(o.MaxDepth)}, {"num_leaves", strconv.Itoa(leaves)},
		{"min_data_in_leaf", strconv.Itoa(o.MinLeaf)}, {"max_bin", strconv.Itoa(o.MaxBins)},
		{"bagging_fraction", ftoa(o.Subsample)}, {"feature_fraction", ftoa(o.ColSample)},
		{"lambda_l2", ftoa(o.L2)}, {"early_stopping_round", strconv.Itoa(o.EarlyStop)}}
	return writeLightGBM(w, featureNames, e.trees, e.lo, e.hi, o.LearningRate, false, params)
}

// param is one line of the parameters section.
type param struct{ key, value string }

// writeLightGBM writes trees in LightGBM's text format. A forest
// (average) is marked average_output, which makes leaves and LightGBM
// average the trees instead of summing them.
func writeLightGBM(w io.Writer, featureNames []string, trees []tree, lo, hi []float64, shrinkage float64, average bool, params []param) error {
	nf := len(lo)
	if len(featureNames) != nf {
		return fmt.Errorf("train: %d feature names for a model of %d features", len(featureNames), nf)
	}
	for _, n := range featureNames {
		if n == "" || strings.ContainsAny(n, " =\t\r\n") {
			return fmt.Errorf("train: feature name %q is empty or holds a space or '='", n)
		}
	}
	blocks := make([][]byte, len(trees))
	sizes := make([]string, len(trees))
	for i := range trees {
		blocks[i] = trees[i].lightGBM(i, shrinkage)
		sizes[i] = strconv.Itoa(len(blocks[i]))
	}
	infos := make([]string, nf)
	for f := range infos {
		if lo[f] == hi[f] {
			infos[f] = "none" // LightGBM's mark for a feature it cannot split
		} else {
			infos[f] = "[" + ftoa(lo[f]) + ":" + ftoa(hi[f]) + "]"
		}
	}

	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "tree\nversion=v3\nnum_class=1\nnum_tree_per_iteration=1\nlabel_index=0\n"+
		"max_feature_idx=%d\nobjective=regression\n", nf-1)
	if average {
		bw.WriteString("average_output\n")
	}
	fmt.Fprintf(bw, "feature_names=%s\nfeature_infos=%s\ntree_sizes=%s\n\n",
		strings.Join(featureNames, " "), strings.Join(infos, " "), strings.Join(sizes, " "))
	for _, t := range blocks {
		bw.Write(t)
	}
	// LightGBM lists the features used, by number of splits, most first;
	// the gains are in every tree's split_gain, which Importances adds up.
	bw.WriteString("end of trees\n\nfeature_importances:\n")
	splits := make([]int, nf)
	for i := range trees {
		for _, f := range trees[i].feature {
			splits[f]++
		}
	}
	order := make([]int, 0, nf)
	for f, c := range splits {
		if c > 0 {
			order = append(order, f)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(splits[b], splits[a]) })
	for _, f := range order {
		fmt.Fprintf(bw, "%s=%d\n", featureNames[f], splits[f])
	}
	bw.WriteString("\nparameters:\n")
	for _, p := range params {
		fmt.Fprintf(bw, "[%s: %s]\n", p.key, p.value)
	}
	bw.WriteString("\nend of parameters\n\npandas_categorical:null\n")
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("train: write LightGBM model: %w", err)
	}
	return nil
}

// lightGBM returns the "Tree=i" block of t, with the two blank lines that
// end it; tree_sizes counts these bytes.
func (t *tree) lightGBM(i int, shrinkage float64) []byte {
	var b bytes.Buffer
	decision := make([]int, len(t.feature))
	for k := range decision {
		decision[k] = 2 // numerical, default left, no missing values
	}
	fmt.Fprintf(&b, "Tree=%d\nnum_leaves=%d\nnum_cat=0\n", i, len(t.leafValue))
	line := func(key, vals string) {
		b.WriteString(key)
		b.WriteByte('=')
		b.WriteString(vals)
		b.WriteByte('\n')
	}
	line("split_feature", join(t.feature, func(v int32) string { return strconv.Itoa(int(v)) }))
	line("split_gain", join(t.gain, ftoa))
	line("threshold", join(t.threshold, ftoa))
	line("decision_type", join(decision, strconv.Itoa))
	line("left_child", join(t.left, func(v int32) string { return strconv.Itoa(int(v)) }))
	line("right_child", join(t.right, func(v int32) string { return strconv.Itoa(int(v)) }))
	line("leaf_value", join(t.leafValue, ftoa))
	line("leaf_count", join(t.leafCount, strconv.Itoa))
	line("internal_value", join(t.internalValue, ftoa))
	line("internal_count", join(t.internalCount, strconv.Itoa))
	line("shrinkage", ftoa(shrinkage))
	b.WriteString("\n\n")
	return b.Bytes()
}

// ftoa writes v in the shortest form that parses back to v.
func ftoa(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

func join[T any](vs []T, f func(T) string) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = f(v)
	}
	return strings.Join(s, " ")
}
