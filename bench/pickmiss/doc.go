// Command pickmiss shows why held-out picks miss: for every shape of one
// device in a data directory, a model is trained on the device's other
// shapes as 'augur eval --holdout shapes' trains it (train.FitBundle with
// the default selection), the runtime's Chooser picks a configuration for
// the shape with no measurement, and pickmiss prints, beside the shape's
// fastest recorded configuration, the pick's parameters, its measured
// share of the best, both configurations' predicted log-speedups and
// ranks among the shape's recorded configurations, the Spearman
// correlation of predicted and measured speed over those, and the
// derived features whose values differ between the pick and the best
// (what the model would need to tell them apart). The experiment behind
// bench/RESULTS.md's "fbcorr's picks, session 19".
//
// Usage:
//
//	pickmiss --data DIR --kernel NAME [--seed N] [--learner auto|gbrt|rf]
//
// The figures are those of one run of the selection: eval's seeds and
// two-stage replays do not enter, so a shape's pick may differ from
// eval's where the selection is close.
package main
