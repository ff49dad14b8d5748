package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/augur-tuning/augur/eval"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// writeEvalPlots draws an eval report's learning curve, strategies and
// two-stage comparison as PNG files in dir.
func writeEvalPlots(dir string, r *eval.Report) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	save := func(p *plot.Plot, name string) error {
		if err := p.Save(6*vg.Inch, 4*vg.Inch, filepath.Join(dir, name)); err != nil {
			return fmt.Errorf("plot %s: %w", name, err)
		}
		return nil
	}
	if len(r.LearningCurve) > 0 {
		p := plot.New()
		p.Title.Text = r.Kernel + ": model error against training-set size"
		p.X.Label.Text = "training rows"
		p.Y.Label.Text = "error"
		p.Y.Label.Text = "RMSE of log-speedup"
		var args []any
		curves := map[string]plotter.XYs{}
		var order []string
		for _, c := range r.LearningCurve {
			if _, ok := curves[c.Platform]; !ok {
				order = append(order, c.Platform)
			}
			curves[c.Platform] = append(curves[c.Platform], plotter.XY{X: float64(c.TrainRows), Y: c.RMSE})
		}
		for _, n := range order {
			args = append(args, n, curves[n])
		}
		if err := plotutil.AddLinePoints(p, args...); err != nil {
			return err
		}
		if err := save(p, "learning_curve.png"); err != nil {
			return err
		}
	}
	if len(r.Strategies) > 0 {
		p := plot.New()
		p.Title.Text = r.Kernel + ": best found (median over shapes and seeds)"
		p.X.Label.Text = "budget (evaluations)"
		p.Y.Label.Text = "% of optimum"
		var args []any
		byName := map[string]plotter.XYs{}
		var order []string
		for _, s := range r.Strategies {
			if _, ok := byName[s.Strategy]; !ok {
				order = append(order, s.Strategy)
			}
			byName[s.Strategy] = append(byName[s.Strategy], plotter.XY{X: float64(s.Budget), Y: s.Median})
		}
		for _, n := range order {
			args = append(args, n, byName[n])
		}
		if err := plotutil.AddLinePoints(p, args...); err != nil {
			return err
		}
		if err := save(p, "strategies.png"); err != nil {
			return err
		}
	}
	if len(r.TwoStage) > 0 {
		p := plot.New()
		p.Title.Text = r.Kernel + ": two-stage tuner and random search, same measurements"
		p.X.Label.Text = "measurements (% of space)"
		p.Y.Label.Text = "% of optimum"
		var two, rnd plotter.XYs
		for _, t := range r.TwoStage {
			two = append(two, plotter.XY{X: t.MeasuredPct, Y: t.Pct})
			rnd = append(rnd, plotter.XY{X: t.MeasuredPct, Y: t.RandomPct})
		}
		if err := plotutil.AddScatters(p, "two-stage", two, "random", rnd); err != nil {
			return err
		}
		if err := save(p, "two_stage.png"); err != nil {
			return err
		}
	}
	return nil
}
