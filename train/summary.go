package train

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/augur-tuning/augur/features"
)

// SummaryOptions say how WriteSummary writes configurations.
type SummaryOptions struct {
	// Labels are each parameter's value texts, value j's at j, nil for a
	// parameter whose values are the numbers themselves
	// (datasets.Kernel.ParamLabels: a spec's string and float
	// parameters). nil writes every value as its number.
	Labels [][]string
	// Constraints, when not nil, are written instead of the bundle's:
	// a spec's conditions as it writes them (datasets.BundleConditions),
	// where the bundle's number its string values.
	Constraints []string
}

// value writes parameter i's value v: its label, where it has one.
func (o SummaryOptions) value(i, v int) string {
	if i < len(o.Labels) && v >= 0 && v < len(o.Labels[i]) {
		return o.Labels[i][v]
	}
	return fmt.Sprint(v)
}

// config writes c as "name=value,...", labelled values by their text.
func (o SummaryOptions) config(params []features.Param, c features.Config) string {
	var parts []string
	for i, v := range c {
		name := "?"
		if i < len(params) {
			name = params[i].Name
		}
		parts = append(parts, name+"="+o.value(i, v))
	}
	return strings.Join(parts, ",")
}

// WriteSummary writes a summary of b and, for each model, its settings,
// errors and feature importances (see Importances), most important
// feature first; then each classifier's classes, inputs and errors. It is
// what `augur inspect` prints.
func WriteSummary(w io.Writer, b *features.Bundle, opt SummaryOptions) error {
	var params []string
	for i, p := range b.Params {
		vals := make([]string, len(p.Values))
		for j, v := range p.Values {
			vals[j] = opt.value(i, v)
		}
		params = append(params, fmt.Sprintf("%s[%s]", p.Name, strings.Join(vals, " ")))
	}
	fmt.Fprintf(w, "kernel %s (version %s), written by augur %s\n", b.Kernel, b.KernelVersion, b.AugurVersion)
	fmt.Fprintf(w, "task features: %s\n", strings.Join(b.TaskNames, " "))
	fmt.Fprintf(w, "parameters: %s\n", strings.Join(params, " "))
	constraints := b.Constraints
	if opt.Constraints != nil {
		constraints = opt.Constraints
	}
	if len(constraints) > 0 {
		fmt.Fprintf(w, "constraints: %s\n", strings.Join(constraints, "; "))
	}
	fmt.Fprintf(w, "reference: %s\n", opt.config(b.Params, b.Reference))
	for _, m := range b.Models {
		if err := writeModelSummary(w, m, func(c features.Config) string { return opt.config(b.Params, c) }); err != nil {
			return err
		}
	}
	if u := b.Unseen; u != nil {
		writeUnseenSummary(w, u)
	}
	for _, c := range b.Classifiers {
		trees := strings.Count(c.LightGBM, "\nTree=")
		fmt.Fprintf(w, "\nclassifier of %s: %s, classes %v, %d trees (%d a class), %d (shape, device) groups\n",
			c.Param, c.Kind, c.Classes, trees, trees/max(len(c.Classes), 1), c.TrainGroups)
		fmt.Fprintf(w, "inputs: %s\n", strings.Join(c.Features, " "))
		if len(c.FoldBy) > 0 {
			fmt.Fprintf(w, "held-out folds by: %s\n", strings.Join(c.FoldBy, " "))
		}
		if len(c.Options) > 0 {
			fmt.Fprintf(w, "options: %s\n", keyValues(c.Options))
		}
		if len(c.Stats) > 0 {
			fmt.Fprintf(w, "stats: %s\n", keyValues(c.Stats))
		}
	}
	return nil
}

// writeUnseenSummary writes the bundle's policies for a device it has no
// model of, and the held-out figures that chose them.
func writeUnseenSummary(w io.Writer, u *features.UnseenPolicy) {
	name := func(p string) string {
		if p == features.UnseenFleet {
			return "the fleet model's search"
		}
		return "copying another device's best"
	}
	fmt.Fprintf(w, "\na device with no model of its own: %s at shapes another device measured, %s at new shapes\n",
		name(u.For(true)), name(u.For(false)))
	if u.Devices > 0 {
		fmt.Fprintf(w, "chosen by leaving each of %d devices out (%d shapes)", u.Devices, u.Shapes)
	} else {
		fmt.Fprintf(w, "new shapes chosen on the one device's own held-out shapes (%d)", u.Shapes)
	}
	if g := u.PctGeomean; g != nil {
		fmt.Fprintf(w, "; measured shapes: copy %.1f%%, fleet %.1f%%", g[features.UnseenCopy], g[features.UnseenFleet])
	}
	if g := u.NewPctGeomean; g != nil {
		fmt.Fprintf(w, "; new shapes: copy %.1f%%, fleet %.1f%%", g[features.UnseenCopy], g[features.UnseenFleet])
	}
	fmt.Fprintln(w)
}

// writeModelSummary writes one model's part of WriteSummary: its
// settings and errors, and its feature importances as a table.
func writeModelSummary(w io.Writer, m features.Model, format func(features.Config) string) error {
	imp, err := Importances(m.LightGBM)
	if err != nil {
		return fmt.Errorf("train: model %s: %w", m.Name, err)
	}
	trees := strings.Count(m.LightGBM, "\nTree=")
	fmt.Fprintf(w, "\nmodel %s: %s, %d trees, %d training rows, fitted in %.2f s\n", m.Name, m.Kind, trees, m.TrainRows, m.FitSeconds)
	if m.Learner != "" {
		_, shapes := m.Stats["holdout_shapes"]
		_, folds := m.Stats["holdout_folds"]
		switch {
		case shapes:
			fmt.Fprintf(w, "learner: %s, chosen by its picks on held-out shapes\n", m.Learner)
		case folds:
			fmt.Fprintf(w, "learner: %s, chosen by its picks on held-out folds of the one shape's configurations\n", m.Learner)
		default:
			fmt.Fprintf(w, "learner: %s, the first candidate: too few rows to hold any out and choose\n", m.Learner)
		}
	}
	if c := m.Consensus; c != nil {
		fmt.Fprintf(w, "pick: the model's first %d configurations re-ranked by their speed at the %d nearest of %d training shapes\n",
			c.Candidates, c.Nearest, len(c.Shapes))
	}
	if f := m.Fixed; f != nil {
		fmt.Fprintf(w, "pick at new shapes: one fixed configuration, %s (held-out picks %.1f%%, worst %.1f%%; the model's %.1f%%)\n",
			format(f.Config), f.PctGeomean, f.PctWorst, f.ModelPctGeomean)
	}
	if len(m.Options) > 0 {
		fmt.Fprintf(w, "options: %s\n", keyValues(m.Options))
	}
	if len(m.Stats) > 0 {
		fmt.Fprintf(w, "stats: %s\n", keyValues(m.Stats))
	}
	if p := m.Pool; p != nil {
		serve := "this model"
		if p.Fleet {
			serve = "the fleet model, scored with this device's features"
		}
		if p.OwnPct == 0 && p.FleetPct == 0 {
			// Not scored (PoolOptions.Figures): a device of many shapes.
			fmt.Fprintf(w, "serves the device: %s (a device of %d shapes keeps its own model; its picks were not scored)\n", serve, p.Shapes)
		} else {
			fmt.Fprintf(w, "serves the device: %s (held-out picks on its %d shapes: own %.1f%%, worst %.1f%%; fleet %.1f%%, worst %.1f%%)\n",
				serve, p.Shapes, p.OwnPct, p.OwnWorst, p.FleetPct, p.FleetWorst)
		}
	}
	if sb := m.Siblings; sb != nil {
		how := "searches this model"
		if sb.Copy {
			how = "copies that device's best"
		}
		fmt.Fprintf(w, "at a shape only another device of its type measured: %s (the copies on %d shapes %.1f%%, this model's held-out picks %.1f%%)\n",
			how, sb.Shapes, sb.CopyPct, sb.OwnPct)
	}
	var total float64
	for _, im := range imp {
		total += im.Gain
	}
	width := len("feature")
	for _, im := range imp {
		width = max(width, len(im.Feature))
	}
	fmt.Fprintf(w, "  %-*s  %10s  %10s  %6s\n", width, "feature", "gain", "gain_share", "splits")
	for _, im := range imp {
		share := 0.0
		if total > 0 {
			share = im.Gain / total
		}
		fmt.Fprintf(w, "  %-*s  %10.4g  %9.1f%%  %6d\n", width, im.Feature, im.Gain, 100*share, im.Splits)
	}
	return nil
}

// keyValues writes m as "k=v" pairs in key order.
func keyValues(m map[string]float64) string {
	var s []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		s = append(s, fmt.Sprintf("%s=%.4g", k, m[k]))
	}
	return strings.Join(s, " ")
}
