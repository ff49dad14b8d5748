package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/runtime"
	"github.com/augur-tuning/augur/train"
	"github.com/augur-tuning/augur/tune"
)

// chooseDevice resolves --device NAME for bundle b into opt
// (runtime.ResolveDevice), with the device table of --platforms FILE, or
// the one augur ships.
func chooseDevice(b *features.Bundle, name, platforms string, opt *runtime.Options) error {
	var table *datasets.DeviceTable
	if platforms != "" {
		f, err := os.Open(platforms)
		if err != nil {
			return fmt.Errorf("choose: --platforms: %w", err)
		}
		table, err = datasets.ReadDevices(f)
		f.Close()
		if err != nil {
			return fmt.Errorf("choose: --platforms %s: %w", platforms, err)
		}
	}
	if err := runtime.ResolveDevice(b, name, table, opt); err != nil {
		return fmt.Errorf("choose: %w", err)
	}
	return nil
}

// planJSON is a launch plan as `augur choose --json` prints it.
type planJSON struct {
	BuildOptions  string `json:"build_options"`
	Dims          int    `json:"dims"`
	Global        []int  `json:"global"`
	Local         []int  `json:"local"`
	LocalMemBytes int    `json:"local_mem_bytes"`
	// Values are a spec kernel's configuration-dependent arguments.
	Values map[string]float64 `json:"values,omitempty"`
}

// pickJSON is one answer of `augur choose --json`: the pick's report, the
// shape asked, the plan (absent for a kernel augur does not know) and,
// with --top, the candidates.
type pickJSON struct {
	Shape string `json:"shape"`
	runtime.PickReport
	Plan       *planJSON  `json:"plan,omitempty"`
	Candidates []pickJSON `json:"candidates,omitempty"`
}

func newPickJSON(shape string, p runtime.Pick, took time.Duration) pickJSON {
	out := pickJSON{Shape: shape, PickReport: p.Report(took)}
	if d := p.Plan.Dims; d > 0 {
		out.Plan = &planJSON{p.Plan.BuildOptions, d, p.Plan.Global[:d], p.Plan.Local[:d], p.Plan.LocalMemBytes, p.Plan.Values}
	}
	return out
}

// chooseOne answers one shape: the pick and, with top > 0, the top
// candidates, as JSON or as text.
func chooseOne(w io.Writer, ch *runtime.Chooser, text string, top int, asJSON bool) error {
	// A spec kernel's problem sizes answer to problem_size_I too.
	names := ch.TaskNames()
	task, err := features.ParseTask(names, features.AliasProblemSizes(names, text))
	if err != nil && strings.Contains(text, ";") {
		return usagef("choose: --shape takes one shape, name=value separated by ','; --shapes takes several, separated by ';'")
	}
	if err != nil {
		return usagef("choose: --shape: %w", err) // how it was called, as collect's --shapes
	}
	start := time.Now()
	p, err := ch.ChoosePick(task)
	took := time.Since(start)
	if err != nil {
		return fmt.Errorf("choose: %w", err)
	}
	var cands []runtime.Pick
	var candTook time.Duration
	if top > 0 {
		start := time.Now()
		if cands, err = ch.Candidates(task, top); err != nil {
			return fmt.Errorf("choose: %w", err)
		}
		candTook = time.Since(start)
	}
	if asJSON {
		out := newPickJSON(features.FormatTask(ch.TaskNames(), task), p, took)
		for _, c := range cands {
			cj := newPickJSON("", c, candTook)
			cj.Shape = out.Shape
			out.Candidates = append(out.Candidates, cj)
		}
		return json.NewEncoder(w).Encode(out)
	}
	if err := ch.WritePick(w, p, took); err != nil {
		return err
	}
	if len(cands) > 0 {
		fmt.Fprintf(w, "top %d candidates (in %s), the pick first, each to measure once:\n", len(cands), candTook)
		for i, c := range cands {
			fmt.Fprintf(w, "  %d. %s  predicted %.3fx  %s\n", i+1, ch.Format(c.Config), c.Report(0).PredictedSpeedup, c.Source)
		}
	}
	return nil
}

// chooseMany answers every shape of shapes ("a;b;c", or "-": one a line
// of r) with one JSON line each; a shape that fails answers
// {"shape": ..., "error": ...} and the others go on.
func chooseMany(w io.Writer, r io.Reader, ch *runtime.Chooser, shapes string, top int) error {
	var texts []string
	if shapes != "-" {
		texts = strings.Split(shapes, ";")
	}
	sc := bufio.NewScanner(r)
	next := func() (string, bool) {
		if shapes != "-" {
			if len(texts) == 0 {
				return "", false
			}
			t := texts[0]
			texts = texts[1:]
			return t, true
		}
		if !sc.Scan() {
			return "", false
		}
		return sc.Text(), true
	}
	bw := bufio.NewWriter(w)
	failed, total := 0, 0
	for {
		text, ok := next()
		if !ok {
			break
		}
		text = strings.TrimSpace(text)
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		total++
		if err := chooseOne(bw, ch, text, top, true); err != nil {
			failed++
			json.NewEncoder(bw).Encode(struct {
				Shape string `json:"shape"`
				Error string `json:"error"`
			}{text, err.Error()})
		}
		if shapes == "-" {
			// A caller on a pipe waits for each answer.
			if err := bw.Flush(); err != nil {
				return err
			}
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("choose: reading shapes: %w", err)
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	switch {
	case total == 0:
		return errors.New("choose: --shapes: no shapes")
	case failed > 0:
		return fmt.Errorf("choose: %d of %d shapes failed", failed, total)
	}
	return nil
}

// runTuneTop is `augur tune --top K --model BUNDLE --wisdom FILE`.
func runTuneTop(ctx context.Context, k *datasets.Kernel, t features.Task, model, wisdom string, opt tune.TopOptions, progress, stdout io.Writer, asJSON bool) error {
	switch {
	case model == "" || wisdom == "" || opt.K == 0:
		return usagef("tune: measuring a model's candidates needs --model BUNDLE, --top K and --wisdom FILE together")
	case opt.K < 1:
		return usagef("tune: --top must be >= 1, got %d", opt.K)
	}
	b, err := features.ReadBundleFile(model)
	if err != nil {
		return fmt.Errorf("tune: %w", err)
	}
	opt.Wisdom, opt.Progress = wisdom, progress
	res, err := tune.TuneTop(ctx, k, b, t, opt)
	if res != nil && asJSON {
		return errors.Join(writeTopJSON(stdout, res), err)
	}
	if res != nil {
		fmt.Fprintln(stdout, res)
	}
	if err != nil {
		return err // it names its package
	}
	return nil
}

// addWisdom adds the records of the comma-separated wisdom files to d
// (`augur train --wisdom`) and reports what it added and skipped on
// stderr.
func addWisdom(d *train.Data, files string, stderr io.Writer) error {
	if files == "" {
		return nil
	}
	for _, path := range strings.Split(files, ",") {
		recs, damaged, err := train.ReadWisdomFile(path)
		if err != nil {
			return err // it names its package
		}
		rep, err := d.AddWisdom(recs)
		if err != nil {
			return err
		}
		rep.Damaged = damaged
		fmt.Fprintf(stderr, "train: %s: %s\n", path, rep)
	}
	return nil
}
