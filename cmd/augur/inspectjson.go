package main

import (
	"encoding/json"
	"io"
	"strings"

	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/features"
)

// inspectJSON is what 'augur inspect --json' prints: the bundle's own
// fields less the models' text and tables, which 'augur inspect' summarizes.
type inspectJSON struct {
	Format        int              `json:"format"`
	Kernel        string           `json:"kernel"`
	KernelVersion string           `json:"kernel_version"`
	AugurVersion  string           `json:"augur_version"`
	TaskNames     []string         `json:"task_names"`
	Params        []features.Param `json:"params"`
	Constraints   []string         `json:"constraints"`
	Features      []string         `json:"features"`
	Reference     features.Config  `json:"reference"`
	// ParamLabels are what a kernel spec's string and float parameters'
	// values 0, 1, ... stand for, by parameter; Conditions are the spec's
	// conditions as it writes them (Constraints has them over numbers).
	ParamLabels map[string][]string    `json:"param_labels,omitempty"`
	Conditions  []string               `json:"conditions,omitempty"`
	TrainShapes int                    `json:"train_shapes"`
	Models      []inspectModelJSON     `json:"models"`
	Classifiers []inspectClassJSON     `json:"classifiers,omitempty"`
	Unseen      *features.UnseenPolicy `json:"unseen,omitempty"`
}

type inspectModelJSON struct {
	Name       string             `json:"name"`
	Device     string             `json:"device,omitempty"`
	Kind       string             `json:"kind"`
	Learner    string             `json:"learner,omitempty"`
	Trees      int                `json:"trees"`
	TrainRows  int                `json:"train_rows"`
	FitSeconds float64            `json:"fit_seconds"`
	Stats      map[string]float64 `json:"stats,omitempty"`
	Options    map[string]float64 `json:"options,omitempty"`
	// Pool is the device's choice between its own model and the fleet
	// model (features.Model.Pool).
	Pool *features.PoolChoice `json:"pool,omitempty"`
	// Consensus is the nearest-shape rule the model carries, without
	// its table (features.Consensus).
	Consensus *features.ConsensusRule `json:"consensus,omitempty"`
	// Fixed is the one configuration the model serves at new shapes
	// (features.Model.Fixed).
	Fixed *features.FixedPick `json:"fixed,omitempty"`
}

type inspectClassJSON struct {
	Param       string             `json:"param"`
	Classes     []int              `json:"classes"`
	Kind        string             `json:"kind"`
	Trees       int                `json:"trees"`
	TrainGroups int                `json:"train_groups"`
	Stats       map[string]float64 `json:"stats,omitempty"`
}

// writeInspectJSON writes b's summary as one JSON object.
func writeInspectJSON(w io.Writer, b *features.Bundle) error {
	j := inspectJSON{Format: b.Format, Kernel: b.Kernel, KernelVersion: b.KernelVersion, AugurVersion: b.AugurVersion,
		TaskNames: b.TaskNames, Params: b.Params, Constraints: b.Constraints, Features: b.Features, Reference: b.Reference,
		TrainShapes: len(b.TrainShapes), Unseen: b.Unseen, Conditions: datasets.BundleConditions(b)}
	for i, l := range datasets.BundleParamLabels(b) {
		if l != nil {
			if j.ParamLabels == nil {
				j.ParamLabels = map[string][]string{}
			}
			j.ParamLabels[b.Params[i].Name] = l
		}
	}
	for _, m := range b.Models {
		mj := inspectModelJSON{Name: m.Name, Kind: m.Kind, Learner: m.Learner, Trees: strings.Count(m.LightGBM, "\nTree="),
			TrainRows: m.TrainRows, FitSeconds: m.FitSeconds, Stats: finite(m.Stats), Options: finite(m.Options), Pool: m.Pool, Fixed: m.Fixed}
		if m.Platform != nil {
			mj.Device = m.Platform.Slug()
		}
		if m.Consensus != nil {
			mj.Consensus = &m.Consensus.ConsensusRule
		}
		j.Models = append(j.Models, mj)
	}
	for _, c := range b.Classifiers {
		j.Classifiers = append(j.Classifiers, inspectClassJSON{Param: c.Param, Classes: c.Classes, Kind: c.Kind,
			Trees: strings.Count(c.LightGBM, "\nTree="), TrainGroups: c.TrainGroups, Stats: finite(c.Stats)})
	}
	return json.NewEncoder(w).Encode(j)
}
