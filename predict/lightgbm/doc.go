// Package lightgbm reads and writes tree ensembles in LightGBM's text model
// format, version v3, the version github.com/dmitryikh/leaves loads.
//
// It is the one owner of that format in augur: train writes its models
// through Model.Write, and readers (predict, train.Importances) go through
// Read or Parse. The reader is strict, because a bundle is input from
// outside: it accepts only what Model.Predict evaluates exactly
// (numerical splits, x <= threshold goes left, a NaN counts as 0), checks
// every index and the shape of every tree, and reports the first problem as
// a *SyntaxError that names the line. It never panics and never loops, and
// what it allocates is bounded by the size of the input.
//
// A complete use, from text to a prediction:
//
//	m, err := lightgbm.Parse(text)
//	if err != nil {
//		return err // *lightgbm.SyntaxError: "lightgbm: line 12: ..."
//	}
//	if err := m.Regression(); err != nil {
//		return err // a classifier or a ranker: its raw sum means nothing here
//	}
//	x := make([]float64, m.NumFeatures())
//	// ... fill x in the order of m.FeatureNames ...
//	y := m.Predict(x)
//
// The layout, as LightGBM writes it and leaves reads it: a header of
// key=value lines (version, num_class, num_tree_per_iteration,
// max_feature_idx, objective, average_output, feature_names,
// feature_infos, tree_sizes), a blank line, one "Tree=i" block per tree
// (num_leaves-1 internal nodes numbered from the root 0; a child c >= 0 is
// an internal node, c < 0 is leaf ^c; leaf values already carry the
// learning rate), "end of trees", then the feature_importances and
// parameters sections. tree_sizes holds the exact byte size of every
// block, which lets LightGBM itself load the trees in parallel. For a model
// of several classes the trees interleave: tree i belongs to class
// i % num_tree_per_iteration.
package lightgbm
