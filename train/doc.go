// Package train turns dataset files into a model bundle.
//
// Load reads the Arrow files of one kernel (see package collect/record) and
// lays every measured (task, config, platform) out as a feature vector with
// features.Encoder, with the target y = ln(t_ref/t), the log-speedup over
// the kernel's reference configuration (Bergstra et al., eq. 1). Invalid
// configurations (failed, timed out or pruned) are left out, or, with
// LoadOptions.Invalid set to InvalidZeta, kept with a stand-in target.
//
// Two learners fit such data, both Learners: FitGBRT fits gradient-boosted
// regression trees with squared loss (GBRTOptions: depth- or leaf-wise
// growth, row and feature subsampling, L2, early stopping), and FitForest
// fits a random forest (ForestOptions), whose trees' spread is a measure
// of uncertainty (Forest.PredictSpread). Both write LightGBM's text format
// (v3), which the runtime loads with github.com/dmitryikh/leaves; a forest
// is marked average_output. Importances ranks a written model's features,
// and WriteSummary describes a bundle's models with them.
//
// A Data holds its feature vectors coded, about a byte a value (each
// feature's distinct values and each row's index into them), not as a
// float64 matrix; Row decodes one and Append adds one. FitRows fits a
// Learner on rows of a Data: GBRTOptions, ForestOptions and their blends
// bin those rows straight from the codes into the bins, thresholds and
// trees that a float64 copy of the same rows gets, so that the folds and
// candidates of a selection share one Data instead of copying its rows.
//
// CrossValidate estimates a model's error on configurations it has not
// seen. Train does all of it: one model per platform, a "fleet" model over
// all platforms when there are several, their cross-validated errors and
// the options they were fitted with, in one features.Bundle.
// FitFleetBundle fits the fleet model alone. RefitFleetBundle fits another
// fleet model with the learner a ModelReport records, which is how package
// eval chooses Bundle.Unseen (eval.ChooseUnseen) by leaving each platform
// out in turn: train chooses nothing through the runtime, which lies
// downstream of it.
//
// Select chooses a model's learner by its picks on held-out shapes, then
// scores the nearest-shape rule (DefaultConsensus, features.Consensus) with
// the chosen learner's held-out predictions, at no fit more: of each
// held-out shape's first configurations, the one the nearest training
// shapes of the fold ran fastest. Train's model carries the rule, with
// every training shape's fastest configurations and their speeds, only
// when it picked better there (Selection.Consensus).
//
// A classifier predicts, before any search, the best value of one
// categorical parameter from the shape and the device (Garvey and
// Abdelrahman 2018: the data-loading technique of a stencil). Classes makes
// its training set, one row a (shape, device) whose label is the value in
// the fastest measured configuration; ClassForestOptions (augur's random
// forest, gini splits) and GolearnOptions (golearn's forest, walked into
// the same form) are ClassLearners; CrossValidateClasses scores one on
// leave-one-out folds (leave one kernel out, by the task features that
// name a kernel) by absolute and penalty-weighted accuracy. A ClassForest
// is written as a LightGBM multiclass model whose raw scores are the class
// probabilities, which predict.Classifier evaluates without any training
// library. Options.Classify adds one to Train's bundle.
//
// Data.WriteCSV and ClassData.WriteCSV export the rows and the groups for
// tools outside Go, WriteCSVFile to a new file.
package train
