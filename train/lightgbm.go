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
	if len(featureNames) != e.nFeatures {
		return fmt.Errorf("train: %d feature names for a model of %d features", len(featureNames), e.nFeatures)
	}
	for _, n := range featureNames {
		if n == "" || strings.ContainsAny(n, " =\t\r\n") {
			return fmt.Errorf("train: feature name %q is empty or holds a space or '='", n)
		}
	}
	trees := make([][]byte, len(e.trees))
	sizes := make([]string, len(e.trees))
	for i := range e.trees {
		trees[i] = e.trees[i].lightGBM(i, e.opts.LearningRate)
		sizes[i] = strconv.Itoa(len(trees[i]))
	}
	infos := make([]string, e.nFeatures)
	for f := range infos {
		if e.lo[f] == e.hi[f] {
			infos[f] = "none" // LightGBM's mark for a feature it cannot split
		} else {
			infos[f] = "[" + ftoa(e.lo[f]) + ":" + ftoa(e.hi[f]) + "]"
		}
	}

	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "tree\nversion=v3\nnum_class=1\nnum_tree_per_iteration=1\nlabel_index=0\n"+
		"max_feature_idx=%d\nobjective=regression\nfeature_names=%s\nfeature_infos=%s\ntree_sizes=%s\n\n",
		e.nFeatures-1, strings.Join(featureNames, " "), strings.Join(infos, " "), strings.Join(sizes, " "))
	for _, t := range trees {
		bw.Write(t)
	}
	bw.WriteString("end of trees\n\nfeature_importances:\n")
	// LightGBM lists the features used, by number of splits, most first.
	splits := make([]int, e.nFeatures)
	for i := range e.trees {
		for _, f := range e.trees[i].feature {
			splits[f]++
		}
	}
	order := make([]int, 0, e.nFeatures)
	for f, c := range splits {
		if c > 0 {
			order = append(order, f)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(splits[b], splits[a]) })
	for _, f := range order {
		fmt.Fprintf(bw, "%s=%d\n", featureNames[f], splits[f])
	}
	fmt.Fprintf(bw, "\nparameters:\n[boosting: gbdt]\n[objective: regression]\n[num_iterations: %d]\n"+
		"[learning_rate: %s]\n[max_depth: %d]\n[num_leaves: %d]\n[min_data_in_leaf: %d]\n[max_bin: %d]\n\n"+
		"end of parameters\n\npandas_categorical:null\n",
		e.opts.Trees, ftoa(e.opts.LearningRate), e.opts.MaxDepth, 1<<e.opts.MaxDepth, e.opts.MinLeaf, e.opts.MaxBins)
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
