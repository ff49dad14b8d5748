package main

import (
	"encoding/json"
	"io"
	"maps"
	"math"

	"github.com/augur-tuning/augur/eval"
	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/train"
)

// trainJSON is what 'augur train --json' prints: the report's figures under
// the names a bundle's Stats use, with no text to parse.
type trainJSON struct {
	Kernel        string             `json:"kernel"`
	KernelVersion string             `json:"kernel_version"`
	Rows          int                `json:"rows"`
	Shapes        int                `json:"shapes"`
	Platforms     []string           `json:"platforms"`
	Models        []trainModelJSON   `json:"models"`
	Classifier    *trainClassJSON    `json:"classifier,omitempty"`
	Unseen        *eval.UnseenReport `json:"unseen,omitempty"`
	Out           string             `json:"out"`
}

type trainModelJSON struct {
	Name       string             `json:"name"`
	Rows       int                `json:"rows"`
	Trees      int                `json:"trees"`
	FitSeconds float64            `json:"fit_seconds"`
	CV         map[string]float64 `json:"cv,omitempty"`
	Selection  *train.Selection   `json:"selection,omitempty"`
	// Pool is the choice between a device's own model and the fleet
	// model (features.Model.Pool); absent for the fleet model and with one
	// device.
	Pool *features.PoolChoice `json:"pool,omitempty"`
}

type trainClassJSON struct {
	Target    string             `json:"target"`
	Classes   []int              `json:"classes"`
	Groups    int                `json:"groups"`
	MedianRan int                `json:"median_ran"`
	Chosen    string             `json:"chosen"`
	Scores    map[string]float64 `json:"penalty_weighted_accuracy"`
}

// writeTrainJSON writes rep, the choices recorded in bundle b, unseen (nil
// when no policy was chosen) and the bundle's path as one JSON object.
func writeTrainJSON(w io.Writer, rep *train.Report, b *features.Bundle, unseen *eval.UnseenReport, out string) error {
	j := trainJSON{Kernel: rep.Kernel, KernelVersion: rep.KernelVersion, Rows: rep.Rows, Shapes: rep.Shapes,
		Platforms: rep.Platforms, Unseen: unseen, Out: out}
	for _, m := range rep.Models {
		mj := trainModelJSON{Name: m.Name, Rows: m.Rows, Trees: m.Trees, FitSeconds: m.FitSeconds, Selection: m.Selection}
		for _, bm := range b.Models {
			if bm.Name == m.Name {
				mj.Pool = bm.Pool
			}
		}
		if m.CV.Folds > 1 {
			mj.CV = finite(m.CV.Stats())
		}
		j.Models = append(j.Models, mj)
	}
	if c := rep.Classifier; c != nil {
		cj := &trainClassJSON{Target: c.Target, Classes: c.Classes, Groups: c.Groups, MedianRan: c.MedianRan,
			Chosen: c.Chosen, Scores: map[string]float64{}}
		for _, s := range c.Scores {
			cj.Scores[s.Learner] = s.CV.PenaltyWeighted
		}
		cj.Scores = finite(cj.Scores)
		j.Classifier = cj
	}
	return json.NewEncoder(w).Encode(j)
}

// finite drops the figures JSON cannot hold (NaN, infinities): a figure
// that could not be computed is absent.
func finite(m map[string]float64) map[string]float64 {
	out := maps.Clone(m)
	maps.DeleteFunc(out, func(_ string, v float64) bool { return math.IsNaN(v) || math.IsInf(v, 0) })
	return out
}
