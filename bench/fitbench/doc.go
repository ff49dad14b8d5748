// Command fitbench fits augur's learners on the rows of a CSV written by
// 'augur export', following splits made outside Go, and writes the
// predictions, so that bench/compare.py can score augur on exactly the
// splits it gives XGBoost and scikit-learn.
//
// Usage:
//
//	fitbench --csv DATA.csv --splits SPLITS.csv --out PRED.csv [--model gbrt|rf] [--threads N]
//	         [--trees N] [--depth D] [--min-leaf M] [--lr R] [--colsample F] [--seed S]
//
// SPLITS.csv has one line per data row (no header) and one column per
// split; each value is a bit mask: 1 fits the split's model on the row, 2
// predicts the row with it, 3 does both, 0 neither. PRED.csv gets the same
// shape, the prediction where the mask has bit 2 and empty elsewhere.
// Stdout gets one line per split, "split K rows N fit_s SECONDS", the time
// of the Fit call alone.
//
// --threads sets GOMAXPROCS (0: all CPUs; the default 1 fits on one
// goroutine). A fit of 65,536 rows or more shares the histograms and the
// partition of each leaf of 8,192 rows or more among up to GOMAXPROCS
// goroutines (at most 4); smaller fits use one whatever --threads says.
package main
