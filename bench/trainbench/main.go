package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"time"

	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/train"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return
		}
		fmt.Fprintln(os.Stderr, "trainbench:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout, stderr io.Writer) error {
	var (
		dir, kernel, learner, csvPath string
		rows, folds, selectRows       int
		selectBudget                  time.Duration
		g                             train.GBRTOptions
	)
	fs := flag.NewFlagSet("trainbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&dir, "data", "", "dataset directory, as augur train's --data")
	fs.StringVar(&kernel, "kernel", "conv2d", "kernel family")
	fs.IntVar(&rows, "rows", 0, "rows to train on: the first N, or the real rows repeated up to N; 0: as loaded")
	fs.StringVar(&learner, "learner", "auto", "auto (the default selection, as augur train), gbrt (one fit) or none (load, and write --csv, only)")
	fs.IntVar(&folds, "folds", 0, "cross-validation folds of --learner auto (augur train's --folds); 0: 5")
	fs.IntVar(&selectRows, "select-rows", 0, "rows the selection of --learner auto scores candidates on (train.SelectOptions.MaxRows); 0: train.DefaultSelectRows, -1: every row")
	fs.DurationVar(&selectBudget, "select-budget", 0, "fitting time the selection of --learner auto may spend (train.SelectOptions.Budget); 0: 2m")
	fs.IntVar(&g.Trees, "trees", 100, "gbrt trees")
	fs.IntVar(&g.MaxDepth, "depth", 4, "gbrt depth")
	fs.Float64Var(&g.LearningRate, "lr", 0.1, "gbrt learning rate")
	fs.IntVar(&g.MinLeaf, "min-leaf", 10, "gbrt least rows a leaf")
	fs.StringVar(&csvPath, "csv", "", "also write the rows (features, log_speedup) to this CSV")
	var cpuProfile, memProfile, peakProfile string
	fs.StringVar(&cpuProfile, "cpuprofile", "", "write a CPU profile of the training to this file")
	fs.StringVar(&memProfile, "memprofile", "", "write a heap profile (allocations of the whole run) to this file")
	fs.StringVar(&peakProfile, "peakprofile", "", "write the heap profile of the collection that found the most live heap during training to this file")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if dir == "" {
		return errors.New("--data is required")
	}
	if rows < 0 {
		return fmt.Errorf("--rows must be >= 0, got %d", rows)
	}
	lo := train.LoadOptions{Specs: datasets.Devices().Devices}
	if k, err := datasets.Lookup(kernel); err == nil && k.Derived != nil {
		lo.Derived = k.Derived
	}
	t0 := time.Now()
	d, err := train.LoadWith(dir, kernel, lo)
	if err != nil {
		return err
	}
	d = resize(d, rows)
	load := time.Since(t0)
	// As augur train: a soft memory limit from the data's size, unless
	// the environment sets one (GOMEMLIMIT=off for none).
	limit := int64(-1)
	if os.Getenv("GOMEMLIMIT") == "" {
		limit = train.MemoryLimit(d)
		debug.SetMemoryLimit(limit)
	}
	if csvPath != "" {
		if err := writeCSV(csvPath, d); err != nil {
			return err
		}
	}
	opt := train.Options{Kernel: kernel, Folds: folds,
		Select: train.SelectOptions{MaxRows: selectRows, Budget: selectBudget}}
	switch learner {
	case "auto":
	case "none":
		fmt.Fprintf(stdout, "rows %d features %d load_s %.2f\n", d.Len(), len(d.Features), load.Seconds())
		return nil
	case "gbrt":
		opt.Model, opt.GBRT, opt.Folds = "gbrt", g, 1
	default:
		return fmt.Errorf("--learner must be auto, gbrt or none, got %q", learner)
	}
	if cpuProfile != "" {
		f, err := os.Create(cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	var peak *peakWatch
	if peakProfile != "" {
		peak = startPeakWatch(20 * time.Millisecond)
	}
	t1 := time.Now()
	if learner == "gbrt" {
		// One fit, as XGBoost is timed: no bundle, no cross-validation.
		_, _, err = train.FitRegressor(d, opt)
	} else {
		_, _, err = train.TrainData(d, opt)
	}
	if err != nil {
		return err
	}
	fit := time.Since(t1)
	if peak != nil {
		f, err := os.Create(peakProfile)
		if err != nil {
			return err
		}
		err = peak.Stop(f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
		fmt.Fprintf(stderr, "peak live heap after a collection: %.0f MB\n", float64(peak.liveBytes)/(1<<20))
	}
	if memProfile != "" {
		f, err := os.Create(memProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.WriteHeapProfile(f); err != nil {
			return err
		}
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	limitMB := "none"
	if limit > 0 {
		limitMB = strconv.FormatInt(limit>>20, 10)
	}
	fmt.Fprintf(stdout, "rows %d features %d load_s %.2f train_s %.2f heap_sys_mb %.0f mem_limit_mb %s data_bytes_per_row %.1f\n",
		d.Len(), len(d.Features), load.Seconds(), fit.Seconds(), float64(ms.HeapSys)/(1<<20), limitMB,
		float64(d.Bytes())/float64(d.Len()))
	return nil
}

// resize returns d cut to its first n rows, or with its rows repeated in
// order until there are n; n == 0 leaves d as it is.
func resize(d *train.Data, n int) *train.Data {
	if n == 0 || n == d.Len() {
		return d
	}
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i % d.Len()
	}
	return d.Subset(idx)
}

// writeCSV writes d's features and targets, one row a line, with a header.
func writeCSV(path string, d *train.Data) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	for _, name := range d.Features {
		w.WriteString(name)
		w.WriteByte(',')
	}
	w.WriteString("log_speedup\n")
	var buf []byte
	var x []float64
	for i := range d.Len() {
		x = d.AppendRow(x[:0], i)
		for _, v := range x {
			buf = strconv.AppendFloat(buf[:0], v, 'g', -1, 64)
			w.Write(buf)
			w.WriteByte(',')
		}
		buf = strconv.AppendFloat(buf[:0], d.Y[i], 'g', -1, 64)
		w.Write(buf)
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
