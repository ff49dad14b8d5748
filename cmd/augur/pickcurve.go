package main

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/augur-tuning/augur/eval"
)

// runPickCurve is 'augur eval --pick-curve'.
func runPickCurve(data string, opt eval.Options, progress *reporter, asJSON bool, stdout io.Writer) error {
	pts, err := eval.PickCurve(data, opt, eval.PickCurveOptions{})
	progress.Close()
	if err != nil {
		return err // eval's errors carry the package prefix
	}
	if asJSON {
		return writeIndentedJSON(stdout, pts)
	}
	return writePickCurveText(stdout, pts)
}

// writePickCurveText prints 'augur eval --pick-curve': each device's
// points, then what the curve says to collect next.
func writePickCurveText(w io.Writer, pts []eval.PickCurvePoint) error {
	fmt.Fprintln(w, "held-out picks (% of each shape's best; geometric mean over shapes and draws) of models trained on part of a device's data:")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "device\ttraining shapes\tconfigurations a shape\ttraining rows\tpicks %\tworst %\tpicks\t")
	for _, p := range pts {
		if p.Picks == 0 { // too few rows to fit, or no pick recorded
			fmt.Fprintf(tw, "%s\t%d\t%.0f%%\t-\t-\t-\t0\t\n", p.Platform, p.TrainShapes, 100*p.Fraction)
			continue
		}
		fmt.Fprintf(tw, "%s\t%d\t%.0f%%\t%d\t%.1f\t%.1f\t%d\t\n", p.Platform, p.TrainShapes, 100*p.Fraction, p.TrainRows, p.Pct, p.Worst, p.Picks)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, a := range pickCurveAdvice(pts) {
		fmt.Fprintln(w, a)
	}
	return nil
}

// pickCurveAdvice compares, per device, the last step of each axis: from
// the largest shape count below all of them to all, and from half of each
// shape's configurations to all. Points without a pick are left out.
func pickCurveAdvice(pts []eval.PickCurvePoint) []string {
	var out []string
	for i := 0; i < len(pts); {
		j := i
		for j < len(pts) && pts[j].Platform == pts[i].Platform {
			j++
		}
		dev := pts[i:j]
		i = j
		all := dev[len(dev)-1]
		var fewer, half *eval.PickCurvePoint
		for k := range dev[:len(dev)-1] {
			p := &dev[k]
			if p.Picks == 0 {
				continue
			}
			if p.Fraction == 1 && (fewer == nil || p.TrainShapes > fewer.TrainShapes) {
				fewer = p
			}
			if p.TrainShapes == all.TrainShapes && p.Fraction < 1 && (half == nil || p.Fraction > half.Fraction) {
				half = p
			}
		}
		line := fmt.Sprintf("%s: every shape and configuration %.1f%%", all.Platform, all.Pct)
		if fewer != nil {
			line += fmt.Sprintf("; %d -> %d shapes %+.1f points", fewer.TrainShapes, all.TrainShapes, all.Pct-fewer.Pct)
		}
		if half != nil {
			line += fmt.Sprintf("; %.0f%% -> 100%% of the configurations %+.1f points", 100*half.Fraction, all.Pct-half.Pct)
		}
		out = append(out, line+" (the larger gain is what to collect more of; differences within a few points are noise)")
	}
	return out
}
