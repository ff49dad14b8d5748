package main

import (
	"encoding/json"
	"io"

	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/tune"
)

// tuneJSON is what 'augur tune --json' prints.
type tuneJSON struct {
	Shape  string `json:"shape"`
	Device string `json:"device"`
	// Config holds each parameter's value, a spec's string and float
	// parameters' by their texts (datasets.Kernel.NamedConfig).
	Config map[string]any `json:"config,omitempty"`
	// BestNs and RefNs are the best configuration's and the reference's
	// median times in nanoseconds, timed in one session; BestIsReference
	// says no configuration measured beat the reference.
	BestNs          float64 `json:"best_ns"`
	RefNs           float64 `json:"ref_ns"`
	BestIsReference bool    `json:"best_is_reference,omitempty"`
	FirstStage      int     `json:"first_stage"`
	SecondStage     int     `json:"second_stage"`
	SpaceSize       int     `json:"space_size"`
	// Learner is the two-stage tuner's first-stage model (the setting
	// train's selection chose on its measurements).
	Learner     string  `json:"learner,omitempty"`
	Prior       string  `json:"prior,omitempty"`
	Stopped     bool    `json:"stopped,omitempty"`
	Path        string  `json:"path,omitempty"`
	WallSeconds float64 `json:"wall_seconds"`
}

// writeTuneJSON writes r as one JSON object.
func writeTuneJSON(w io.Writer, r *tune.TuneResult) error {
	j := tuneJSON{Shape: features.FormatTask(r.TaskNames, r.Task), Device: r.PlatformSlug, BestNs: r.BestNs, RefNs: r.RefNs, BestIsReference: r.BestIsReference,
		FirstStage: r.FirstStage, SecondStage: r.SecondStage, SpaceSize: r.SpaceSize, Learner: r.Learner, Prior: r.Prior, Stopped: r.Stopped,
		Path: r.Path, WallSeconds: r.Wall.Seconds()}
	switch {
	case r.Best != nil && r.Kernel != nil:
		j.Config = r.Kernel.NamedConfig(r.Best)
	case r.Best != nil && r.Space != nil:
		j.Config = map[string]any{}
		for i, p := range r.Space.Params {
			j.Config[p.Name] = r.Best[i]
		}
	}
	return json.NewEncoder(w).Encode(j)
}

// topJSON is tune --top --json's object.
type topJSON struct {
	Shape           string         `json:"shape"`
	Device          string         `json:"device"`
	Config          map[string]any `json:"config,omitempty"`
	BestNs          float64        `json:"best_ns"`
	RefNs           float64        `json:"ref_ns"`
	BestIsReference bool           `json:"best_is_reference"`
	Recorded        int            `json:"recorded"`
	Candidates      []topCandJSON  `json:"candidates"`
}

type topCandJSON struct {
	Config map[string]any `json:"config"`
	Source string         `json:"source"`
	Status string         `json:"status"`
	TimeNs float64        `json:"time_ns,omitempty"`
}

func writeTopJSON(w io.Writer, r *tune.TopResult) error {
	j := topJSON{Shape: features.FormatTask(r.Kernel.TaskNames, r.Task), Device: r.PlatformSlug, BestNs: r.BestNs, RefNs: r.RefNs,
		BestIsReference: r.BestIsReference, Recorded: r.Recorded, Candidates: []topCandJSON{}}
	if r.Best != nil {
		j.Config = r.Kernel.NamedConfig(r.Best)
	}
	for _, c := range r.Candidates {
		j.Candidates = append(j.Candidates, topCandJSON{Config: r.Kernel.NamedConfig(c.Config), Source: c.Source, Status: string(c.Status), TimeNs: c.TimeNs})
	}
	return json.NewEncoder(w).Encode(j)
}
