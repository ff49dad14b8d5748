package record_test

import (
	"fmt"
	"log"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/augur-tuning/augur/collect/record"
	"github.com/augur-tuning/augur/features"
)

// Example writes a small dataset file and reads it back.
func Example() {
	dir, err := os.MkdirTemp("", "record-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "run.arrow")

	meta := record.Meta{
		Kernel:    "conv2d",
		Created:   time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC),
		TaskNames: []string{"width", "height"},
		Params:    []features.Param{{Name: "wg", Values: []int{8, 16}}},
		Reference: features.Config{8},
		Source:    "collect",
	}
	w, err := record.NewWriter(path, meta, 0)
	if err != nil {
		log.Fatal(err)
	}
	rows := []record.Row{
		{Task: features.Task{256, 256}, Config: features.Config{16}, Status: record.StatusOK,
			TimeNs: 500, RefTimeNs: 1000, LogSpeedup: math.Log(1000.0 / 500), Repeats: 5},
		{Task: features.Task{256, 256}, Config: features.Config{8}, Status: record.StatusResourceLimit,
			LogSpeedup: math.NaN(), Error: "CL_OUT_OF_RESOURCES"},
	}
	for _, r := range rows {
		if err := w.Write(r); err != nil {
			log.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}

	got, back, err := record.ReadFile(path)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(got.Kernel, got.TaskNames, got.Created.Format(time.RFC3339))
	for _, r := range back {
		fmt.Printf("%v %v %s speedup=%.2f %q\n", r.Task, r.Config, r.Status, math.Exp(r.LogSpeedup), r.Error)
	}
	// Output:
	// conv2d [width height] 2025-01-02T03:04:05Z
	// [256 256] [16] ok speedup=2.00 ""
	// [256 256] [8] resource_limit speedup=NaN "CL_OUT_OF_RESOURCES"
}

// ExampleReadFileWith keeps a row's timed runs and reads them back: the
// reader leaves them unread unless ReadOptions.Runs asks.
func ExampleReadFileWith() {
	dir, err := os.MkdirTemp("", "record-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "run.arrow")

	meta := record.Meta{Kernel: "conv2d", TaskNames: []string{"width"},
		Params: []features.Param{{Name: "wg", Values: []int{8, 16}}}, Source: "collect"}
	w, err := record.Create(path, meta, record.WriterOptions{})
	if err != nil {
		log.Fatal(err)
	}
	runs := []int64{530, 498, 502, 507, 500} // in the order they ran
	xs := make([]float64, len(runs))
	for i, ns := range runs {
		xs[i] = float64(ns)
	}
	median, minimum, cv := record.Summarize(xs)
	r := record.Row{Task: features.Task{256}, Config: features.Config{16}, Status: record.StatusOK,
		TimeNs: median, TimeMinNs: minimum, TimeCV: cv, Repeats: len(runs), LogSpeedup: math.NaN(), Runs: runs}
	if err := w.Write(r); err != nil {
		log.Fatal(err)
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}

	for _, opt := range []record.ReadOptions{{}, {Runs: true}} {
		_, rows, err := record.ReadFileWith(path, opt)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("Runs %v: median %g ns of %d runs %v\n", opt.Runs, rows[0].TimeNs, rows[0].Repeats, rows[0].Runs)
	}
	// Output:
	// Runs false: median 502 ns of 5 runs []
	// Runs true: median 502 ns of 5 runs [530 498 502 507 500]
}
