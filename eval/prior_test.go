package eval

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// TestFleetPrior replays the fleet-prior tuner on the H100's and H200's
// full-space shapes, each device ranked by a fleet model trained on the
// other: at 1% of the space it beats random search on average, and the
// text report shows the table.
func TestFleetPrior(t *testing.T) {
	if testing.Short() {
		t.Skip("fits two fleet models and replays nine shapes")
	}
	dir := fleetDir(t, false, "h200-test", "h100-test")
	opt := fastOptions()
	opt.FleetPrior, opt.PriorFractions = true, []float64{0.01}
	rep, err := Evaluate(dir, opt)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.FleetPrior) != 9 {
		t.Fatalf("fleet prior on %d shapes, want 9 (6 H200, 3 H100)", len(rep.FleetPrior))
	}
	var prior, random float64
	for _, r := range rep.FleetPrior {
		if len(r.Points) != 1 || r.Points[0].Measurements != 64 || len(r.TrainedOn) != 1 || r.TrainedOn[0] == r.Device {
			t.Fatalf("%s %s: points %+v trained on %v, want one point at 64 of 6400 measured, trained on the other device", r.Device, r.Shape, r.Points, r.TrainedOn)
		}
		prior += math.Log(r.Points[0].Pct) / 9
		random += math.Log(r.Points[0].RandomPct) / 9
	}
	if prior <= random {
		t.Errorf("fleet prior geomean %.1f%% of best at 1%% of the space, random search %.1f%%; want the prior ahead", math.Exp(prior), math.Exp(random))
	}
	if len(rep.FleetPriorSummary) != 1 || rep.FleetPriorSummary[0].Shapes != 9 || rep.FleetPriorSummary[0].Share != 0.01 {
		t.Errorf("summary %+v, want one point at 1%% over 9 shapes", rep.FleetPriorSummary)
	}
}

func TestSummarizePrior(t *testing.T) {
	pt := func(share, pct, random float64) PriorPoint {
		return PriorPoint{Share: share, Pct: pct, RandomPct: random, TwoStagePct: random + 1}
	}
	rs := []FleetPriorResult{
		{Points: []PriorPoint{pt(0.005, 90, 80), pt(0.01, 99.5, 85)}},
		{Points: []PriorPoint{pt(0.005, 70, 75), pt(0.01, 100, 90)}},
		{Points: []PriorPoint{pt(0.005, 95, 60), pt(0.01, 98, 70)}},
	}
	got := summarizePrior(rs)
	want := []PriorSummaryPoint{
		{Share: 0.005, Shapes: 3, Pct: 85, WorstPct: 70, RandomPct: 215.0 / 3, TwoStagePct: 218.0 / 3, Within1Pct: 0, Below: 1},
		{Share: 0.01, Shapes: 3, Pct: 297.5 / 3, WorstPct: 98, RandomPct: 245.0 / 3, TwoStagePct: 248.0 / 3, Within1Pct: 2, Below: 0},
	}
	if len(got) != len(want) {
		t.Fatalf("%d points, want %d", len(got), len(want))
	}
	for k := range want {
		g, w := got[k], want[k]
		near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
		if g.Share != w.Share || g.Shapes != w.Shapes || !near(g.Pct, w.Pct) || g.WorstPct != w.WorstPct || !near(g.RandomPct, w.RandomPct) ||
			!near(g.TwoStagePct, w.TwoStagePct) || g.Within1Pct != w.Within1Pct || g.Below != w.Below {
			t.Errorf("point %d: %+v, want %+v", k, g, w)
		}
	}
	if summarizePrior(nil) != nil {
		t.Error("no results: want no summary")
	}
}

func TestFleetPriorErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		opt  func(*Options)
		want string
	}{
		{"one device", func(o *Options) { o.FleetPrior = true }, "two devices or more"},
		{"fraction", func(o *Options) { o.FleetPrior, o.PriorFractions = true, []float64{0.01, 1} }, "PriorFractions must be in (0, 1)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opt := fastOptions()
			tc.opt(&opt)
			_, err := Evaluate("../testdata/h200", opt)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one containing %q", err, tc.want)
			}
			if tc.name == "one device" && !errors.Is(err, ErrNoHoldout) {
				t.Errorf("err = %v, want ErrNoHoldout", err)
			}
		})
	}
}
