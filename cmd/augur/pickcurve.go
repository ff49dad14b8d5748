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
		return writeIndentedJSON(stdout, struct {
			Points []eval.PickCurvePoint  `json:"points"`
			Advice []eval.PickCurveAdvice `json:"advice"`
		}{pts, eval.AdvisePickCurve(pts)})
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
	more := false
	for _, a := range eval.AdvisePickCurve(pts) {
		fmt.Fprintln(w, a)
		more = more || a.MoreShapes.Clear()
	}
	if more {
		fmt.Fprintln(w, "which shapes: 'augur eval ... --next-shapes N --from FILE' lists the N of FILE farthest from those measured")
	}
	return nil
}
