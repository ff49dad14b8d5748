// Command cpufeat screens conv2d's derived features on one data directory:
// for every shape, two fixed top-weighted settings of the default selection
// (train.TopOptions, anchored; depth 10 x 50 trees and depth 8 x 150 trees)
// are fitted on the other shapes, and the configuration they score highest
// among the held-out shape's recorded ones is its pick, as % of the
// shape's best. It prints the geometric mean over shapes, the worst shape
// and each shape's figure. It is a quick screen, not the held-out picks
// that 'augur eval --holdout shapes' reports (no selection, no blends); the
// experiment behind bench/RESULTS.md's "The CPU, session 14".
//
// Usage:
//
//	cpufeat --data DIR [--v1] [--drop name,name] [--picks] [--learner 0|1]
//
// --v1 uses conv2d's derived features of version 1 ("conv2d/1") instead
// of the latest; --drop leaves the named ones out.
package main
