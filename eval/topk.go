package eval

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/runtime"
)

// topKs are the k of the best-of-top-k figures: how far measuring the
// runtime's first k candidates once (runtime.Chooser.Candidates) lifts the
// zero-measurement pick. 8 is where NVIDIA's matmul heuristics stop.
var topKs = [...]int{2, 3, 5, 8}

// TopK is the best of the runtime's first K candidates measured, over the
// held-out shapes.
type TopK struct {
	K int `json:"k"`
	// Pct is the geometric mean over shapes of the fastest candidate's
	// % of the shape's best, Worst the lowest shape's. A candidate that
	// failed on the device is passed over (a library measuring it sees it
	// fail); a shape whose candidates all failed counts as the reference.
	Pct   float64 `json:"pct_of_best"`
	Worst float64 `json:"worst_pct_of_best"`
	// Shapes counts the shapes in Pct; Unrecorded those left out because
	// none of their K candidates was recorded and one was not.
	Shapes     int `json:"shapes"`
	Unrecorded int `json:"unrecorded"`
}

// TopKShape is one shape's best of its first K candidates.
type TopKShape struct {
	K int `json:"k"`
	// Pct is 0 when Status is "unrecorded".
	Pct    float64 `json:"pct_of_best"`
	Status string  `json:"status"` // ok, failed (every candidate failed), unrecorded
}

// topK scores the first k of ch's candidates for g, for every k of topKs,
// and returns the candidates (space.Format), in the runtime's order.
func topK(ch *runtime.Chooser, g *group, space *features.Space) ([]TopKShape, []string, error) {
	cands, err := ch.Candidates(g.task, topKs[len(topKs)-1])
	if err != nil {
		return nil, nil, fmt.Errorf("eval: %w", err)
	}
	names := make([]string, len(cands))
	for i, c := range cands {
		names[i] = space.Format(c.Config)
	}
	out := make([]TopKShape, 0, len(topKs))
	for _, k := range topKs {
		best, failed, unrecorded := 0.0, false, false
		for _, name := range names[:min(k, len(names))] {
			switch status, pct := g.score(name); status {
			case "ok":
				best = max(best, pct)
			case "failed":
				failed = true
			default:
				unrecorded = true
			}
		}
		switch {
		case best > 0:
			out = append(out, TopKShape{k, best, "ok"})
		case unrecorded:
			// An unrecorded candidate might have been the fastest.
			out = append(out, TopKShape{k, 0, "unrecorded"})
		case failed:
			out = append(out, TopKShape{k, 100 * g.bestNs / g.refNs, "failed"})
		}
	}
	return out, names, nil
}

// summarizeTopK sums the shapes' best-of-top-k up per k.
func summarizeTopK(shapes []HoldoutShape) []TopK {
	var out []TopK
	for i, k := range topKs {
		r := TopK{K: k}
		var logs []float64
		for _, s := range shapes {
			if i >= len(s.TopK) {
				continue
			}
			if s.TopK[i].Status == "unrecorded" {
				r.Unrecorded++
				continue
			}
			logs = append(logs, math.Log(s.TopK[i].Pct))
			if r.Worst == 0 || s.TopK[i].Pct < r.Worst {
				r.Worst = s.TopK[i].Pct
			}
		}
		if len(logs) == 0 && r.Unrecorded == 0 {
			continue
		}
		r.Pct, r.Shapes = geomean(logs), len(logs)
		out = append(out, r)
	}
	return out
}

// Judged returns, for the held-out shapes of h on platform (a slug), the
// configurations the report judged: each shape's pick and candidates, in
// that order, parsed with taskNames and space. A second collection pass
// (collect.ConfirmOptions.Also) times them again, so that they are
// judged by timings as good as the optimum's. It fails on a shape or
// configuration that does not parse, and when no shape is on platform.
func (h *HoldoutReport) Judged(platform string, k *datasets.Kernel) (map[features.TaskKey][]features.Config, error) {
	out := map[features.TaskKey][]features.Config{}
	var others []string
	for _, s := range h.Shapes {
		if s.Platform != platform {
			if !slices.Contains(others, s.Platform) {
				others = append(others, s.Platform)
			}
			continue
		}
		t, err := features.ParseTask(k.TaskNames, s.Shape)
		if err != nil {
			return nil, fmt.Errorf("eval: held-out shape %q: %w", s.Shape, err)
		}
		for _, name := range append([]string{s.Chosen}, s.Candidates...) {
			if name == "" {
				continue
			}
			c, err := k.ParseConfig(name)
			if err != nil {
				return nil, fmt.Errorf("eval: held-out shape %s: configuration %q: %w", s.Shape, name, err)
			}
			if !slices.ContainsFunc(out[t.Key()], c.Equal) {
				out[t.Key()] = append(out[t.Key()], c)
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("eval: no held-out shape of %s in the report (its shapes are of %s)", platform, strings.Join(others, ", "))
	}
	return out, nil
}

// ReadJudged reads the JSON report of 'augur eval --holdout shapes --json'
// at path and returns what its held-out shapes on platform judged
// (HoldoutReport.Judged).
func ReadJudged(path, platform string, k *datasets.Kernel) (map[features.TaskKey][]features.Config, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("eval: %w", err)
	}
	var rep Report
	if err := json.Unmarshal(b, &rep); err != nil {
		return nil, fmt.Errorf("eval: %s is not the JSON of 'augur eval --holdout shapes --json': %w", path, err)
	}
	if rep.Holdout == nil {
		return nil, fmt.Errorf("eval: %s holds no held-out shapes: write it with 'augur eval --holdout shapes --json'", path)
	}
	return rep.Holdout.Judged(platform, k)
}

// relabel writes, for a spec kernel with string or float parameters, the
// configurations of the report's held-out shapes by their values' texts
// (datasets.Kernel.FormatConfig, "MODE=fast"), as a user reads them and
// Judged reads them back; they are written by their numbers until the
// report is whole, since the noise ceiling looks the picks up by them.
func (h *HoldoutReport) relabel(k *datasets.Kernel, space *features.Space) {
	if h == nil || k == nil {
		return
	}
	text := func(name string) string {
		if c, err := space.Parse(name); err == nil {
			return k.FormatConfig(c)
		}
		return name
	}
	for i := range h.Shapes {
		s := &h.Shapes[i]
		if s.Chosen != "" {
			s.Chosen = text(s.Chosen)
		}
		for j := range s.Candidates {
			s.Candidates[j] = text(s.Candidates[j])
		}
		for j := range s.Copies {
			s.Copies[j].Config = text(s.Copies[j].Config)
		}
	}
}
