// Command subsample writes what a sampled collection would have measured,
// taken from a dataset directory that holds whole spaces: N
// configurations for each shape, either the same N for every shape (as
// 'augur collect --sample random:N' draws them) or N drawn anew for each
// shape (as '--sample random-each:N' does), each shape keeping its
// reference row; with --refine K, also what a following '--sample
// refine:K' would have measured (collect.RefineSet). bench/sample-each.sh
// and bench/refine.sh train on them and compare the picks; nothing in it
// is synthetic, only left out. It prints the number of distinct
// configurations built (not pruned) on some shape. A row keeps what its
// file recorded, its timed runs (times_ns) too.
//
// Usage:
//
//	subsample --data DIR --kernel NAME --out DIR --n N [--each] [--refine K] [--seed S]
package main

import (
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/augur-tuning/augur/collect"
	"github.com/augur-tuning/augur/collect/record"
	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/features"
)

func main() {
	data := flag.String("data", "", "dataset directory with whole spaces")
	kernel := flag.String("kernel", "", "kernel family")
	out := flag.String("out", "", "dataset directory to write (refuses to overwrite)")
	n := flag.Int("n", 600, "configurations a shape")
	each := flag.Bool("each", false, "draw anew for each shape")
	refine := flag.Int("refine", 0, "then add what 'collect --sample refine:K' would measure")
	seed := flag.Uint64("seed", 1, "seed")
	flag.Parse()
	if err := run(os.Stdout, *data, *kernel, *out, *n, *each, *refine, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "subsample:", err)
		os.Exit(1)
	}
}

// run writes the subsample of data to out and prints the number of
// configurations built to stdout.
func run(stdout io.Writer, data, kernel, out string, n int, each bool, refine int, seed uint64) error {
	if data == "" || kernel == "" || out == "" || n < 1 {
		return fmt.Errorf("--data, --kernel, --out and --n >= 1 are required")
	}
	if _, err := os.Stat(out); err == nil {
		return fmt.Errorf("%s exists; give a new directory", out)
	}
	// The runs are read too, so that the rows written keep them (eval's
	// noise ceiling splits them).
	files, err := record.ReadDirWith(filepath.Join(data, kernel), record.ReadOptions{Runs: true})
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return fmt.Errorf("no %s files under %s", kernel, data)
	}
	rng := rand.New(rand.NewPCG(seed, 0x5ab))
	type shape struct {
		meta record.Meta
		rows map[string]record.Row
		keys []string
	}
	var order []string
	shapes := map[string]*shape{}
	for _, f := range files {
		for _, r := range f.Rows {
			id := f.Meta.Platform.Slug() + fmt.Sprint(r.Task)
			s := shapes[id]
			if s == nil {
				s = &shape{meta: f.Meta, rows: map[string]record.Row{}}
				shapes[id] = s
				order = append(order, id)
			}
			k := fmt.Sprint(r.Config)
			if _, dup := s.rows[k]; !dup {
				s.keys = append(s.keys, k)
			}
			s.rows[k] = r
		}
	}
	var shared []string
	built := map[string]bool{} // configurations compiled on some shape
	for i, id := range order {
		s := shapes[id]
		pick := shared
		if each || shared == nil {
			pick = append([]string(nil), s.keys...)
			rng.Shuffle(len(pick), func(i, j int) { pick[i], pick[j] = pick[j], pick[i] })
			pick = pick[:min(n, len(pick))]
			if !each {
				shared = pick
			}
		}
		dir := filepath.Join(out, kernel, s.meta.Platform.Slug())
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		path := filepath.Join(dir, fmt.Sprintf("sub-%d.arrow", i))
		w, err := record.NewWriter(path, s.meta, 1024)
		if err != nil {
			return err
		}
		keep := map[string]bool{fmt.Sprint(s.meta.Reference): true}
		for _, k := range pick {
			keep[k] = true
		}
		if refine > 0 {
			k, err := datasets.Lookup(kernel)
			if err != nil {
				return err
			}
			var sampled []record.Row
			var task features.Task
			for _, key := range s.keys {
				task = s.rows[key].Task
				if keep[key] {
					sampled = append(sampled, s.rows[key])
				}
			}
			configs, _ := collect.RefineSet(k.Space, sampled, []features.Task{task}, refine)
			for _, c := range configs {
				keep[fmt.Sprint(c)] = true
			}
		}
		for _, k := range s.keys {
			if r := s.rows[k]; keep[k] {
				if err := w.Write(r); err != nil {
					return err
				}
				if r.Status != record.StatusPruned {
					built[k] = true
				}
			}
		}
		if err := w.Close(); err != nil {
			return err
		}
	}
	_, err = fmt.Fprintln(stdout, len(built))
	return err
}
