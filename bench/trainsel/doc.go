// Command trainsel scores learner settings by the picks they make on
// shapes held out of training, as train.Select does, with every shape its
// own fold and no cost bound, and prints every candidate and blend, best
// first: the geometric mean over shapes of the top-1 pick among a shape's
// measured configurations as % of its best, the worst shape, the spread
// over deals (--repeats), the mean rank correlation, the cost and the
// fitting seconds. It is the experiment behind bench/RESULTS.md's
// "Trainer objectives (issue 25)"; the conv2d data is loaded as 'augur
// eval' loads it.
//
// Usage:
//
//	trainsel --data DIR [--set all|default|new|rank|rankdef] [--extra] [--workers N]
//	         [--folds K] [--repeats R]
//
// --set default is train.DefaultCandidates; new adds the ranking,
// top-weighted and bagged settings of the issue; rank tries LambdaMART
// settings (Newton steps, calibrated scores) and rankdef the defaults
// and those ranking settings together. --extra adds CPU-minded derived features (extra.go) to
// conv2d's, an experiment for issue 25 item 3.
package main
