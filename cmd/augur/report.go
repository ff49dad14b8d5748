package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/augur-tuning/augur/eval"
	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/train"
)

// The text renderers of eval's, table 3's and train's reports: eval
// returns structs, and the command lays them out.

// writeIndentedJSON writes v as one JSON object indented by one space a
// level, as `augur eval --json` and `augur eval --table3 --json` print.
func writeIndentedJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	return enc.Encode(v)
}

// newTable returns the right-aligned tab writer every table uses.
func newTable(w io.Writer) *tabwriter.Writer {
	return tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
}

// writeEvalText prints an eval report as tables.
func writeEvalText(w io.Writer, r *eval.Report) error {
	tw := newTable(w)
	fmt.Fprintf(w, "kernel %s: %d rows\n\nshapes\n", r.Kernel, r.Rows)
	fmt.Fprintln(tw, "platform\tshape\trecorded\tok\tcoverage\tbest ms\treference % of best\t")
	for _, s := range r.Shapes {
		best, ref := "-", "-"
		if s.OK > 0 {
			best, ref = fmt.Sprintf("%.4f", s.BestNs/1e6), fmt.Sprintf("%.1f%%", s.RefPct)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%.0f%%\t%s\t%s\t\n", s.Platform, s.Shape, s.Recorded, s.OK, 100*s.Coverage, best, ref)
	}
	tw.Flush()
	if len(r.LearningCurve) > 0 {
		fmt.Fprintln(w, "\nlearning curve (the learner given, GBRT when it is selected; trained on a random share of the measured rows, tested on the rest; mean of 3)")
		fmt.Fprintln(tw, "platform\tfraction\ttrain rows\trmse log-speedup\tmre time\tspearman\t")
		for _, p := range r.LearningCurve {
			fmt.Fprintf(tw, "%s\t%.2f\t%d\t%.3f\t%.3f\t%.3f\t\n", p.Platform, p.Fraction, p.TrainRows, p.RMSE, p.MRE, p.Spearman)
		}
		tw.Flush()
	}
	if len(r.Strategies) > 0 {
		fmt.Fprintln(w, "\nstrategies (best found as % of the optimum, over shapes x seeds, replayed; configurations over the device's limits neither measured nor counted)")
		fmt.Fprintln(tw, "strategy\tbudget\truns\tmedian\tp10\tp90\tmean\t")
		for _, s := range r.Strategies {
			fmt.Fprintf(tw, "%s\t%d\t%d\t%.1f\t%.1f\t%.1f\t%.1f\t\n", s.Strategy, s.Budget, s.Runs, s.Median, s.P10, s.P90, s.Mean)
		}
		tw.Flush()
	}
	if len(r.TwoStage) > 0 {
		fmt.Fprintln(w, "\ntwo-stage tuner against random search with the same measurements, both within the device's limits where known (medians over seeds; < marks the tuner below random's median)")
		fmt.Fprintln(tw, "platform\tshape\tT\tspace\twithin limits\tstage 1\tmeasured\t% of space\ttwo-stage %\tmodel top-1 %\trandom %\trandom median %\t\t")
		for _, t := range r.TwoStage {
			within, med, mark := "-", "-", ""
			if t.RandomSpace > 0 { // reports before session 18 drew from the whole space
				within, med = fmt.Sprint(t.RandomSpace), fmt.Sprintf("%.1f", t.RandomMedianPct)
				if t.Pct > 0 && t.Pct < t.RandomMedianPct-0.05 {
					mark = "<"
				}
			}
			fmt.Fprintf(tw, "%s\t%s\t%g\t%d\t%s\t%d\t%.0f\t%.2f%%\t%.1f\t%.1f\t%.1f\t%s\t%s\t\n", t.Platform, t.Shape, t.Threshold, t.SpaceSize, within, t.Sample,
				t.Measurements, t.MeasuredPct, t.Pct, t.Top1Pct, t.RandomPct, med, mark)
		}
		tw.Flush()
	}
	if len(r.TwoStageMax) > 0 {
		fmt.Fprintln(w, "\ntwo-stage tuner with a measurement budget (augur tune --max), spent whole, against random search's best of as many (medians over seeds; < marks the tuner below random's median)")
		fmt.Fprintln(tw, "platform\tshape\tbudget % of space\tmeasured\tstage 1\tstage 1 best %\ttwo-stage %\tmean %\tworst seed %\trandom median %\t\t")
		for _, t := range r.TwoStageMax {
			mark := ""
			if t.Pct < t.RandomMedianPct-0.05 {
				mark = "<"
			}
			fmt.Fprintf(tw, "%s\t%s\t%g\t%d\t%d\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t%s\t\n", t.Platform, t.Shape, t.SharePct, t.Measurements, t.FirstStage,
				t.SampleBestPct, t.Pct, t.MeanPct, t.WorstPct, t.RandomMedianPct, mark)
		}
		tw.Flush()
	}
	if len(r.FleetPrior) > 0 {
		writePrior(w, r.FleetPrior, r.FleetPriorSummary)
	}
	if h := r.Holdout; h != nil && h.Mode == "device" {
		writeHoldoutDevice(w, h)
	} else if h != nil {
		trained := "the platform's other shapes"
		fleet := 0
		for _, sh := range h.Shapes {
			if sh.Source == "fleet" {
				fleet++
			}
		}
		switch {
		case h.Pooled:
			trained = "every device's other shapes (the fleet model, scored with the platform's features)"
		case len(h.Shapes) > 0 && h.Shapes[0].Pool != nil:
			trained = fmt.Sprintf("the other shapes: the platform's model, or the fleet model where training chose it inside the fold (%d of %d shapes)", fleet, len(h.Shapes))
		}
		fmt.Fprintln(w, "\nheld-out shapes: Choose with zero measurements, model trained on "+trained)
		fmt.Fprintln(tw, "platform\tshape\tchosen\tstatus\tchosen %\ttop-1 recorded %\treference %\tlearner\t")
		for _, s := range h.Shapes {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%.1f\t%.1f\t%.1f\t%s\t\n", s.Platform, s.Shape, s.Chosen, s.Status, s.Pct, s.Top1Pct, s.RefPct, s.Picker())
		}
		tw.Flush()
		fmt.Fprintf(w, "geometric mean: chosen %.1f%% of best (%s; worst shape %.1f%%), top-1 recorded %.1f%%, reference %.1f%% (%d picks failed, %d unrecorded)\n",
			h.Pct, holdoutInterval(h), h.Worst, h.Top1Pct, h.RefPct, h.Failed, h.Unrecorded)
		if h.FixedPct > 0 {
			fmt.Fprintf(w, "one configuration for every shape (the training shapes' best by geometric mean): %.1f%% of best (worst shape %.1f%%)\n", h.FixedPct, h.FixedWorst)
		}
		writeTopK(w, h.TopK)
		for _, dh := range h.Devices {
			fmt.Fprintf(w, "%s: chosen %.1f%% of best (%s; worst shape %.1f%%) on %d shapes", dh.Device, dh.Pct,
				holdoutInterval(&eval.HoldoutReport{PctInterval: dh.PctInterval}), dh.Worst, dh.Shapes)
			for _, t := range dh.TopK {
				fmt.Fprintf(w, ", top %d %.1f%%", t.K, t.Pct)
			}
			fmt.Fprintln(w)
		}
	}
	writeNoise(w, r.Noise)
	return nil
}

// writeNoise prints the split-half noise ceiling (eval.NoiseReport).
func writeNoise(w io.Writer, n *eval.NoiseReport) {
	if n == nil {
		return
	}
	fmt.Fprintf(w, "noise ceiling (split-half repeats, %d shapes): an oracle judged on other repeats scores %.1f%% (worst %.1f%%), the recorded optimum %.1f%% (worst %.1f%%)",
		len(n.Shapes), n.Pct, n.Worst, n.RecordedBestPct, n.RecordedBestWorst)
	if n.Picks > 0 {
		fmt.Fprintf(w, ", the picks re-judged %.1f%% (worst %.1f%%)", n.PickPct, n.PickWorst)
	}
	if n.PicksFewerRuns > 0 {
		fmt.Fprintf(w, "; %d of %d picks were timed with fewer runs than their shape's optimum, so their misses rest on noisier timings (time them again with augur collect --confirm N --confirm-picks on this report's --json)", n.PicksFewerRuns, n.Picks)
	}
	if n.OptimaOnce > 0 {
		fmt.Fprintf(w, "; the recorded optima of %d of %d shapes were never timed again, and a fastest first timing of many is partly luck (time them again with augur collect --confirm 30 --sample none)", n.OptimaOnce, len(n.Shapes))
	}
	fmt.Fprintf(w, "; runs of %d rows as timed (%d kept in the files), %d rebuilt from their summaries", n.RowsRecorded, n.RowsKept, n.RowsRebuilt)
	if n.RowsDrawn > 0 {
		fmt.Fprintf(w, ", %d drawn", n.RowsDrawn)
	}
	fmt.Fprintln(w)
}

// writeHoldoutDevice prints a leave-one-device-out holdout: the fleet
// model's picks beside the copies of the other devices' best
// configurations.
func writeHoldoutDevice(w io.Writer, h *eval.HoldoutReport) {
	fmt.Fprintf(w, "\nheld-out device %s: Choose with zero measurements on it, fleet model trained on %s, scored with its platform features\n",
		h.Device, strings.Join(h.TrainedOn, ", "))
	tw := newTable(w)
	head := "shape\tchosen\tsource\tstatus\tchosen %\tfleet search %\tcopy policy %\ttop-1 recorded %\treference %\t"
	for _, c := range h.Copies {
		head += "copy " + c.Device + " %\t"
	}
	fmt.Fprintln(tw, head+"best copy %\t")
	for _, s := range h.Shapes {
		line := fmt.Sprintf("%s\t%s\t%s\t%s\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t", s.Shape, s.Chosen, s.Source, s.Status, s.Pct,
			s.FleetSearchPct, s.CopyPolicyPct, s.Top1Pct, s.RefPct)
		for _, c := range s.Copies {
			if c.Status == "unrecorded" {
				line += "unrecorded\t"
				continue
			}
			line += fmt.Sprintf("%.1f\t", c.Pct)
		}
		fmt.Fprintln(tw, line+fmt.Sprintf("%.1f\t", s.CopyBestPct))
	}
	tw.Flush()
	fmt.Fprintf(w, "geometric mean: chosen %.1f%% of best (%s; worst shape %.1f%%), top-1 recorded %.1f%%, reference %.1f%%, best copy %.1f%% (%d picks failed, %d unrecorded)\n",
		h.Pct, holdoutInterval(h), h.Worst, h.Top1Pct, h.RefPct, h.CopyBestPct, h.Failed, h.Unrecorded)
	writeTopK(w, h.TopK)
	for _, c := range h.Copies {
		fmt.Fprintf(w, "copy the best of %s: %.1f%% of best (worst shape %.1f%%; %d failed, %d unrecorded)\n", c.Device, c.Pct, c.Worst, c.Failed, c.Unrecorded)
	}
	measured, fresh := features.UnseenCopy, features.UnseenCopy
	if h.Unseen != nil {
		measured, fresh = h.Unseen.Policy, h.Unseen.NewShapes
	}
	fmt.Fprintf(w, "runtime policy: %s (%s); fleet search forced %.1f%%, copy policy forced %.1f%%\n", policyText(measured, fresh), unseenHow(h.Unseen), h.FleetSearchPct, h.CopyPolicyPct)
	if h.NewShapesPct > 0 {
		fmt.Fprintf(w, "as new shapes (each removed from the other devices' measured bests): chosen %.1f%% (worst shape %.1f%%), copy policy forced %.1f%%, fleet search %.1f%%\n",
			h.NewShapesPct, h.NewShapesWorst, h.NewShapesCopyPct, h.FleetSearchPct)
	}
}

// policyText names the unseen-device policies for shapes another device
// measured and for new ones.
func policyText(measured, fresh string) string {
	name := func(p string) string {
		if p == features.UnseenFleet {
			return "fleet search"
		}
		return "copy"
	}
	if fresh == "" {
		fresh = measured
	}
	return fmt.Sprintf("%s at shapes another device measured, %s at new shapes", name(measured), name(fresh))
}

// unseenHow says what chose the unseen-device policies: the held-out
// devices' scores, one device's own held-out shapes, or nothing.
func unseenHow(u *eval.UnseenReport) string {
	switch {
	case u != nil && len(u.Devices) > 0:
		how := "chosen by leaving each training device out"
		for _, d := range u.Devices {
			how += "; " + d.Device + ":"
			if d.Pct != nil {
				how += fmt.Sprintf(" copy %.1f%%, fleet %.1f%%,", d.Pct[features.UnseenCopy], d.Pct[features.UnseenFleet])
			}
			how += fmt.Sprintf(" as new shapes copy %.1f%%, fleet %.1f%%", d.NewPct[features.UnseenCopy], d.NewPct[features.UnseenFleet])
			if !d.SameType {
				how += " (no device of its type to copy from)"
			}
		}
		return how
	case u != nil && u.Own != nil:
		return fmt.Sprintf("one training device: on its %d shapes, each held out, the model's picks %.1f%% against copying the nearest other shape's best %.1f%%",
			u.Own.Shapes, u.Own.ModelPct, u.Own.CopyPct)
	}
	return "no device to leave out: the default"
}

// orDash prints a figure to a tenth, or "-" for none (0).
func orDash(v float64) string {
	if v == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f", v)
}

// writePrior prints the fleet-prior replay: per shape, % of best after the
// same measurements for the fleet-prior tuner (mean and worst seed),
// random search and the two-stage tuner, then where the error model
// stopped. A point where the tuner's mean is below random search's is
// marked.
func writePrior(w io.Writer, rs []eval.FleetPriorResult, sum []eval.PriorSummaryPoint) {
	fmt.Fprintf(w, "\nfleet-prior tuner on devices left out of the fleet model (%% of best; mean over %d seeds, random search exact; all within the device's limits where known)\n", rs[0].Seeds)
	tw := newTable(w)
	fmt.Fprintln(tw, "device\tshape\tspace\tprior top-1\t% measured\tn\tfleet prior\tworst seed\trandom\ttwo-stage\t\t")
	var below int
	for _, r := range rs {
		for i, p := range r.Points {
			head := "\t\t\t\t"
			if i == 0 {
				head = fmt.Sprintf("%s\t%s\t%d\t%.1f\t", r.Device, r.Shape, r.SpaceSize, r.PriorTop1Pct)
			}
			mark := ""
			if p.Pct < p.RandomPct {
				mark, below = "below random", below+1
			}
			fmt.Fprintf(tw, "%s%.2f%%\t%d\t%.1f\t%.1f\t%.1f\t%.1f\t%s\t\n", head, p.MeasuredPct, p.Measurements, p.Pct, p.WorstPct, p.RandomPct, p.TwoStagePct, mark)
		}
	}
	tw.Flush()
	fmt.Fprintf(w, "%d of the points below random search\n", below)
	for _, sp := range sum {
		fmt.Fprintf(w, "at %.2f%% of the space, mean over %d shapes: fleet prior %.1f%% (worst shape %.1f%%), random %.1f%%, two-stage %.1f%%; within 1%% of the optimum on %d\n",
			100*sp.Share, sp.Shapes, sp.Pct, sp.WorstPct, sp.RandomPct, sp.TwoStagePct, sp.Within1Pct)
	}
	fmt.Fprintln(w, "\nwhere the error model stopped the fleet-prior tuner")
	fmt.Fprintln(tw, "device\tshape\tmeasured (median)\t% of space\tfleet prior %\trandom %\tunstopped seeds\t")
	for _, r := range rs {
		fmt.Fprintf(tw, "%s\t%s\t%.0f\t%.2f%%\t%.1f\t%.1f\t%d\t\n", r.Device, r.Shape, r.StopMeasurements, r.StopMeasuredPct, r.StopPct, r.StopRandomPct, r.Unstopped)
	}
	tw.Flush()
}

// holdoutInterval describes h.PctInterval.
func holdoutInterval(h *eval.HoldoutReport) string {
	if h.PctInterval[1] == 0 {
		return "one shape: no interval"
	}
	return fmt.Sprintf("95%% interval over shapes %.1f-%.1f%%", h.PctInterval[0], h.PctInterval[1])
}

// writeTopK prints the best-of-top-k line of a holdout report.
func writeTopK(w io.Writer, ts []eval.TopK) {
	if len(ts) == 0 {
		return
	}
	var parts []string
	for _, t := range ts {
		s := fmt.Sprintf("k=%d %.1f%% (worst %.1f%%", t.K, t.Pct, t.Worst)
		if t.Unrecorded > 0 {
			s += fmt.Sprintf(", %d unrecorded", t.Unrecorded)
		}
		parts = append(parts, s+")")
	}
	fmt.Fprintf(w, "best of the runtime's top k candidates, each measured once: %s\n", strings.Join(parts, ", "))
}

// writeTable3Text prints one table a device, laid out as Garvey and
// Abdelrahman's Table 3.
func writeTable3Text(w io.Writer, r *eval.Table3Report) error {
	fmt.Fprintf(w, "Table 3: %s, replayed over recorded data; random sampling of %d configurations", r.Kernel, r.RandomSample)
	if r.Technique != "" {
		fmt.Fprintf(w, "; heuristics hold %s at %s, oracles try each value", r.Technique, r.TechniqueBy)
	}
	fmt.Fprintln(w)
	headings := map[string]string{"baseline": "Baselines", "oracle": "Oracles", "heuristic": "Heuristics"}
	for _, d := range r.Devices {
		fmt.Fprintf(w, "\n%s: %d kernel shapes, %.0f of the space's %d configurations recorded a shape", d.Platform, d.Kernels, d.Recorded, r.SpaceSize)
		if d.NoBaseline > 0 {
			fmt.Fprintf(w, " (%d left out of the speedups: random sampling found nothing that ran)", d.NoBaseline)
		}
		fmt.Fprintln(w)
		// Names are padded to one width, so that they read left-aligned
		// in a right-aligned table.
		width := len("Heuristics")
		for _, row := range d.Rows {
			width = max(width, len(row.Strategy)+2)
		}
		tw := newTable(w)
		fmt.Fprintf(tw, "%-*s\tspeedup\tconfigs\tcompile time (s)\truntime (s)\tbest count\tunrecorded\tfailed\t\n", width, "")
		group := ""
		for _, row := range d.Rows {
			if row.Group != group {
				group = row.Group
				fmt.Fprintf(tw, "%-*s\t\t\t\t\t\t\t\t\n", width, headings[group])
			}
			speedup := "-" // no shape on which both it and the baseline found one
			if row.Speedup > 0 {
				speedup = fmt.Sprintf("%.2f", row.Speedup)
			}
			fmt.Fprintf(tw, "%-*s\t%s\t%.0f\t%.2f\t%.4f\t%d\t%.1f\t%d\t\n", width, "  "+row.Strategy,
				speedup, row.Configs, row.CompileS, row.RunS, row.BestCount, row.Unrecorded, row.Failed)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	fmt.Fprintln(w, "\nspeedup: geometric mean over kernel shapes of random sampling's best time over the strategy's; configs, compile time and runtime: means over kernel shapes of the recorded configurations visited (runtime: one run of each); best count: shapes on which the strategy found the best time of any row; unrecorded: mean configurations visited that the recording lacks, replayed as failed; failed: shapes on which the strategy found nothing that ran, counted at the reference configuration's time in the speedup.")
	_, err := fmt.Fprintln(w)
	return err
}

// poolText describes the choice between each device's own model and the
// fleet model that a bundle of several devices records; "" when it has
// none.
func poolText(b *features.Bundle) string {
	var sb strings.Builder
	for _, m := range b.Models {
		if m.Pool == nil {
			continue
		}
		if sb.Len() == 0 {
			fmt.Fprintf(&sb, "\nown model or the fleet model (each shape left out of every device; top-1 picks in %% of the best measured):\n")
		}
		if m.Pool.OwnPct == 0 && m.Pool.FleetPct == 0 {
			// Not scored (train.PoolOptions.Figures): the device keeps its
			// own model whatever the figures.
			fmt.Fprintf(&sb, "%s: its own model, on %d shapes (the fleet model serves devices of at most %d shapes; --pool-figures scores both)\n",
				m.Name, m.Pool.Shapes, train.PoolMaxShapes)
			continue
		}
		serve := "its own model"
		switch {
		case m.Pool.Fleet:
			serve = "the fleet model"
		case m.Pool.Shapes > train.PoolMaxShapes && m.Pool.FleetPct > m.Pool.OwnPct+train.PoolMargin:
			serve = fmt.Sprintf("its own model (the fleet model serves devices of at most %d shapes)", train.PoolMaxShapes)
		}
		fmt.Fprintf(&sb, "%s: own %.1f%% (worst %.1f%%), fleet %.1f%% (worst %.1f%%) on %d shapes: %s\n", m.Name,
			m.Pool.OwnPct, m.Pool.OwnWorst, m.Pool.FleetPct, m.Pool.FleetWorst, m.Pool.Shapes, serve)
	}
	return sb.String()
}

// siblingsText describes each device's choice at a shape only another
// device of its type measured (features.SiblingChoice); "" when the bundle
// records none.
func siblingsText(b *features.Bundle) string {
	var sb strings.Builder
	for _, m := range b.Models {
		c := m.Siblings
		if c == nil {
			continue
		}
		if sb.Len() == 0 {
			fmt.Fprintf(&sb, "\nat a shape only another device of its type measured (its best there, scored on the device's own shapes, against the device's held-out picks):\n")
		}
		how := "searches its model"
		if c.Copy {
			how = "copies that device's best"
		}
		fmt.Fprintf(&sb, "%s: copies %.1f%% on %d shapes, its model %.1f%%: %s\n", m.Name, c.CopyPct, c.Shapes, c.OwnPct, how)
	}
	return sb.String()
}

// unseenText lays out ChooseUnseen's report as 'augur train' prints it:
// one line per held-out device, then the policies; empty when no device was
// scored.
func unseenText(r *eval.UnseenReport) string {
	if r == nil || len(r.Devices) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\nunseen devices (each device left out of the fleet; picks in %% of the best measured, on the shapes another device measured and on all as new shapes):\n")
	tw := newTable(&b)
	fmt.Fprintln(tw, "device\tshapes\tcopy %\tfleet %\tnew shapes\tcopy %\tfleet %\tjudged copy\tjudged fleet\t\t")
	for _, d := range r.Devices {
		note := ""
		if !d.SameType {
			note = "no device of its type to copy from"
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%d\t%.1f\t%.1f\t%d\t%d\t%s\t\n", d.Device, d.Shapes, orDash(d.Pct[features.UnseenCopy]), orDash(d.Pct[features.UnseenFleet]),
			d.NewShapes, d.NewPct[features.UnseenCopy], d.NewPct[features.UnseenFleet], d.Judged[features.UnseenCopy], d.Judged[features.UnseenFleet], note)
	}
	tw.Flush()
	fmt.Fprintf(&b, "policy for a device with no model: %s\n", policyText(r.Policy, r.NewShapes))
	if len(r.Devices) > 1 && !slices.ContainsFunc(r.Devices, func(d eval.UnseenDevice) bool { return d.SameType }) {
		fmt.Fprintf(&b, "(decided on copies across types: a device of a type the bundle has copies that device's best at the shapes it measured)\n")
	}
	return b.String()
}
