// Command trainbench measures what training costs at a given number of
// rows: it loads a kernel's datasets as 'augur train' does, takes the first
// --rows rows or, when there are fewer, repeats the real rows until there
// are that many (a load test: repeated rows carry no new information), and
// trains as 'augur train' would with the default learner selection, or
// fits one GBRT model (--learner gbrt) with the given depth, trees and
// learning rate; --learner none only loads (and writes --csv). Run it
// under /usr/bin/time -v for the peak memory. As augur train, it sets
// train.MemoryLimit of the rows as the Go runtime's soft memory limit
// unless GOMEMLIMIT is set (GOMEMLIMIT=off trains with none).
//
// Usage:
//
//	trainbench --data DIR --kernel conv2d [--rows N] [--learner auto|gbrt|none]
//	           [--trees N] [--depth D] [--lr R] [--min-leaf M] [--folds K]
//	           [--select-rows N] [--select-budget D]
//	           [--csv OUT.csv] [--cpuprofile FILE] [--memprofile FILE]
//	           [--peakprofile FILE]
//
// --select-rows and --select-budget set the selection's
// train.SelectOptions.MaxRows and Budget (0: their defaults, as augur
// train uses).
//
// Stdout gets one line: the rows, the features, the seconds of loading and
// of training, the Go heap's peak-ish figures (runtime.MemStats after
// training), the soft memory limit in MiB (none: GOMEMLIMIT was set) and
// the bytes a row of the training set (train.Data.Bytes over its rows).
// --peakprofile writes the heap profile of the collection that found the
// most live heap, to see what the peak holds (go tool pprof
// -sample_index=inuse_space). --csv writes the same rows (features, then
// log_speedup) for bench/xgbfit.py to fit XGBoost's hist on them.
package main
