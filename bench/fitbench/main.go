package main

import (
	"bufio"
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strconv"
	"time"

	"github.com/augur-tuning/augur/train"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return
		}
		fmt.Fprintln(os.Stderr, "fitbench:", err)
		os.Exit(1)
	}
}

// Bits of a split mask.
const (
	fitRow     = 1
	predictRow = 2
)

func run(args []string, stdout, stderr io.Writer) error {
	var (
		dataPath, splitPath, outPath, model string
		threads                             int
		g                                   train.GBRTOptions
	)
	fs := flag.NewFlagSet("fitbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&dataPath, "csv", "", "data written by 'augur export'")
	fs.StringVar(&splitPath, "splits", "", "split masks, one line per data row, one column per split")
	fs.StringVar(&outPath, "out", "", "predictions to write, shaped as --splits")
	fs.StringVar(&model, "model", "gbrt", "learner: gbrt or rf")
	fs.IntVar(&threads, "threads", 1, "GOMAXPROCS; 0: all CPUs")
	fs.IntVar(&g.Trees, "trees", 0, "trees; 0: the learner's default")
	fs.IntVar(&g.MaxDepth, "depth", 0, "tree depth; 0: the learner's default")
	fs.IntVar(&g.MinLeaf, "min-leaf", 0, "least rows in a leaf; 0: the learner's default")
	fs.Float64Var(&g.LearningRate, "lr", 0, "gbrt learning rate; 0: the default")
	fs.Float64Var(&g.ColSample, "colsample", 0, "fraction of features (gbrt: per tree, rf: per split); 0: the learner's default")
	fs.Uint64Var(&g.Seed, "seed", 1, "learner seed")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if dataPath == "" || splitPath == "" || outPath == "" {
		return errors.New("--csv, --splits and --out are required")
	}
	var learner train.Learner
	switch model {
	case "gbrt":
		learner = g
	case "rf":
		if g.LearningRate != 0 {
			return errors.New("--lr applies to --model gbrt only")
		}
		learner = train.ForestOptions{Trees: g.Trees, MaxDepth: g.MaxDepth, MinLeaf: g.MinLeaf,
			ColSample: g.ColSample, Seed: g.Seed}
	default:
		return fmt.Errorf("--model must be gbrt or rf, got %q", model)
	}
	if threads < 0 {
		return fmt.Errorf("--threads must be >= 0, got %d", threads)
	}
	if threads > 0 {
		runtime.GOMAXPROCS(threads)
	}

	x, y, nf, err := readData(dataPath)
	if err != nil {
		return err
	}
	masks, err := readInts(splitPath)
	if err != nil {
		return err
	}
	if len(masks) != len(y) {
		return fmt.Errorf("%s has %d lines, %s has %d rows", splitPath, len(masks), dataPath, len(y))
	}
	nSplits := len(masks[0])
	pred := make([][]string, len(y))
	for i := range pred {
		pred[i] = make([]string, nSplits)
	}
	var xs, ys []float64
	for k := range nSplits {
		xs, ys = xs[:0], ys[:0]
		for i, m := range masks {
			if m[k]&fitRow != 0 {
				xs = append(xs, x[i*nf:(i+1)*nf]...)
				ys = append(ys, y[i])
			}
		}
		start := time.Now()
		r, err := learner.Fit(xs, nf, ys)
		fit := time.Since(start)
		if err != nil {
			return fmt.Errorf("split %d: %w", k, err)
		}
		for i, m := range masks {
			if m[k]&predictRow != 0 {
				pred[i][k] = strconv.FormatFloat(r.Predict(x[i*nf:(i+1)*nf]), 'g', -1, 64)
			}
		}
		fmt.Fprintf(stdout, "split %d rows %d fit_s %.6f\n", k, len(ys), fit.Seconds())
	}
	return writeRows(outPath, pred)
}

// readData returns the feature vectors (row-major), the log_speedup
// targets and the number of features of an 'augur export' CSV: every
// column before log_speedup is a feature.
func readData(path string) (x, y []float64, nf int, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, 0, err
	}
	defer f.Close()
	r := csv.NewReader(bufio.NewReader(f))
	r.ReuseRecord = true
	head, err := r.Read()
	if err != nil {
		return nil, nil, 0, fmt.Errorf("%s: header: %w", path, err)
	}
	nf = slices.Index(head, "log_speedup")
	if nf < 1 {
		return nil, nil, 0, fmt.Errorf("%s: no feature columns before log_speedup in the header", path)
	}
	for line := 2; ; line++ {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, 0, fmt.Errorf("%s: %w", path, err)
		}
		for j := 0; j <= nf; j++ {
			v, err := strconv.ParseFloat(rec[j], 64)
			if err != nil {
				return nil, nil, 0, fmt.Errorf("%s:%d: column %s: %w", path, line, head[j], err)
			}
			if j < nf {
				x = append(x, v)
			} else {
				y = append(y, v)
			}
		}
	}
	if len(y) == 0 {
		return nil, nil, 0, fmt.Errorf("%s: no rows", path)
	}
	return x, y, nf, nil
}

// readInts reads a headerless CSV of integers with the same number of
// columns on every line.
func readInts(path string) ([][]int, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	recs, err := csv.NewReader(bufio.NewReader(f)).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("%s: no lines", path)
	}
	out := make([][]int, len(recs))
	for i, rec := range recs {
		out[i] = make([]int, len(rec))
		for j, s := range rec {
			v, err := strconv.Atoi(s)
			if err != nil || v < 0 || v > fitRow|predictRow {
				return nil, fmt.Errorf("%s:%d: column %d is %q, want 0, 1, 2 or 3", path, i+1, j+1, s)
			}
			out[i][j] = v
		}
	}
	return out, nil
}

// writeRows writes rows as CSV to a new file at path.
func writeRows(path string, rows [][]string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := csv.NewWriter(f)
	if err := w.WriteAll(rows); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
