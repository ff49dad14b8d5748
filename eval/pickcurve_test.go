package eval_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/augur-tuning/augur/collect/record"
	"github.com/augur-tuning/augur/eval"
	"github.com/augur-tuning/augur/features"
)

// TestPickCurve checks the pick curve's points on real whole-space data:
// one per shape count and fraction asked, and the all-data point, each
// with picks scored in (0, 100].
func TestPickCurve(t *testing.T) {
	pts, err := eval.PickCurve("../testdata/h200", eval.Options{Kernel: "conv2d", Seed: 1},
		eval.PickCurveOptions{ShapeCounts: []int{2, 99}, Fractions: []float64{0.1}, Draws: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(pts) != 3 {
		t.Fatalf("got %d points, want 3 (2 shapes, 10%%, all): %+v", len(pts), pts)
	}
	want := []struct {
		shapes int
		frac   float64
	}{{2, 1}, {pts[2].TrainShapes, 0.1}, {pts[2].TrainShapes, 1}}
	for i, p := range pts {
		if p.TrainShapes != want[i].shapes || p.Fraction != want[i].frac {
			t.Errorf("point %d: %d shapes, fraction %g; want %d, %g", i, p.TrainShapes, p.Fraction, want[i].shapes, want[i].frac)
		}
		if p.Picks == 0 || !(p.Pct > 0 && p.Pct <= 100) || p.Worst > p.Pct {
			t.Errorf("point %d: %+v", i, p)
		}
	}
	if pts[1].TrainRows >= pts[2].TrainRows {
		t.Errorf("10%% of the configurations trained on %d rows, all on %d", pts[1].TrainRows, pts[2].TrainRows)
	}
}

func TestPickCurveErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		co   eval.PickCurveOptions
	}{
		{"fraction 0", eval.PickCurveOptions{Fractions: []float64{0}}},
		{"fraction 2", eval.PickCurveOptions{Fractions: []float64{2}}},
		{"draws", eval.PickCurveOptions{Draws: -1}},
	} {
		if _, err := eval.PickCurve("../testdata/h200", eval.Options{Kernel: "conv2d"}, tc.co); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
	_, err := eval.PickCurve("../testdata/stencil-pocl", eval.Options{Kernel: "conv2d"}, eval.PickCurveOptions{})
	if err == nil {
		t.Errorf("a directory without conv2d data: %v", err)
	}
}

// refuseAll is a task space that holds no shape.
type refuseAll struct{}

func (refuseAll) CheckTask(t features.Task) error {
	return fmt.Errorf("shape %v is outside the task space", t)
}

// TestEvaluateChecksTasks: Options.Tasks reaches every read, so that a
// file with a shape outside the kernel's task space is an error naming it.
func TestEvaluateChecksTasks(t *testing.T) {
	tasks := func(record.Meta) record.TaskChecker { return refuseAll{} }
	_, err := eval.Evaluate("../testdata/h200", eval.Options{Kernel: "conv2d", Seeds: 1, TwoStageSeeds: 1, Tasks: tasks})
	if err == nil || !strings.Contains(err.Error(), "outside the task space") {
		t.Errorf("Evaluate: %v, want the shape refused", err)
	}
	_, err = eval.PickCurve("../testdata/h200", eval.Options{Kernel: "conv2d", Tasks: tasks}, eval.PickCurveOptions{})
	if err == nil || !strings.Contains(err.Error(), "outside the task space") {
		t.Errorf("PickCurve: %v, want the shape refused", err)
	}
}

// TestPickCurveSampled: a sampled dataset (gemm's shipped rows of two
// GPUs, the same 250 random configurations on each of their shapes, none
// of them near its whole space) has a curve for each device, each pick
// judged among its shape's recorded configurations.
func TestPickCurveSampled(t *testing.T) {
	pts, err := eval.PickCurve("../datasets/data", eval.Options{Kernel: "gemm", Learner: "gbrt", Seed: 1},
		eval.PickCurveOptions{ShapeCounts: []int{2}, Fractions: []float64{}, Draws: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(pts) != 4 || pts[0].Platform == pts[2].Platform {
		t.Fatalf("got %+v, want two points for each of two devices", pts)
	}
	for i := 0; i < len(pts); i += 2 {
		if pts[i].Platform != pts[i+1].Platform || pts[i].TrainShapes != 2 || pts[i+1].TrainShapes <= 2 {
			t.Errorf("got %+v and %+v, want a device's 2-shape point and its all-data point", pts[i], pts[i+1])
		}
	}
	for i, p := range pts {
		if p.Picks == 0 || !(p.Pct > 0 && p.Pct <= 100) || p.Worst > p.Pct {
			t.Errorf("point %d: %+v", i, p)
		}
	}
	// The fits run several at a time; the draws do not depend on it.
	for _, w := range []int{1, 3} {
		again, err := eval.PickCurve("../datasets/data", eval.Options{Kernel: "gemm", Learner: "gbrt", Seed: 1, Workers: w},
			eval.PickCurveOptions{ShapeCounts: []int{2}, Fractions: []float64{}, Draws: 1})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(again, pts) {
			t.Errorf("with %d workers:\n%+v\nwant\n%+v", w, again, pts)
		}
	}
}

// TestAdvisePickCurve checks the steps the advice compares (the largest
// shape count below all, the largest share of configurations below all,
// points without picks left out), their gains paired by shape, and what
// it says to collect: the step whose interval lies above 0, or neither.
func TestAdvisePickCurve(t *testing.T) {
	shapes := func(v ...float64) map[string]float64 {
		m := map[string]float64{}
		for i, x := range v {
			m[fmt.Sprint("s=", i)] = x
		}
		return m
	}
	pts := []eval.PickCurvePoint{
		{Platform: "a", TrainShapes: 2, Fraction: 1, Pct: 90, Picks: 5},
		{Platform: "a", TrainShapes: 4, Fraction: 1, Pct: 93, Picks: 4, ByShape: shapes(90, 92, 94, 96)},
		{Platform: "a", TrainShapes: 5, Fraction: 0.25, Pct: 80, Picks: 5},
		{Platform: "a", TrainShapes: 5, Fraction: 0.5, Pct: 97, Picks: 4, ByShape: shapes(99, 90, 99, 90)},
		{Platform: "a", TrainShapes: 5, Fraction: 0.75}, // no pick: left out
		{Platform: "a", TrainShapes: 5, Fraction: 1, Pct: 98, Picks: 4, ByShape: shapes(95, 97, 99, 100)},
		{Platform: "b", TrainShapes: 1, Fraction: 1, Pct: 70, Picks: 1},
		{Platform: "c", TrainShapes: 8, Fraction: 1, Pct: 90, Picks: 3, ByShape: shapes(80, 99, 90)},
		{Platform: "c", TrainShapes: 9, Fraction: 1, Pct: 91, Picks: 3, ByShape: shapes(90, 90, 92)},
	}
	got := eval.AdvisePickCurve(pts)
	if len(got) != 3 {
		t.Fatalf("%d advices, want 3: %+v", len(got), got)
	}
	a := got[0]
	if s := a.MoreShapes; s == nil || s.From != 4 || s.To != 5 || s.Shapes != 4 || !(s.Gain > 4.5 && s.Gain < 5) || !s.Clear() {
		t.Errorf("a's shapes step %+v, want 4 -> 5 over 4 shapes, about +4.8 points, clear of 0", s)
	}
	if s := a.MoreConfigs; s == nil || s.From != 0.5 || s.Shapes != 4 || s.Clear() {
		t.Errorf("a's configurations step %+v, want 50%% -> 100%% over 4 shapes, not clear of 0", s)
	}
	if str := a.String(); !strings.HasPrefix(str, "a: every shape and configuration 98.0%; 4 -> 5 shapes +4.") || !strings.HasSuffix(str, ": collect more shapes") {
		t.Errorf("a: %s", str)
	}
	if got[1].MoreShapes != nil || got[1].MoreConfigs != nil || got[1].String() != "b: every shape and configuration 70.0%" {
		t.Errorf("b, one point: %+v %s", got[1], got[1])
	}
	if c := got[2]; c.MoreShapes == nil || c.MoreShapes.Clear() || !strings.HasSuffix(c.String(), "neither gain is told apart from noise; more of either may add little") {
		t.Errorf("c, a gain within its noise: %+v %s", c.MoreShapes, c)
	}
	// One interval, however the shapes come out of their map.
	var from, to []float64
	for i := range 16 {
		from, to = append(from, 80+float64(i)), append(to, 99-float64(i%5))
	}
	many := []eval.PickCurvePoint{
		{Platform: "d", TrainShapes: 8, Fraction: 1, Pct: 90, Picks: 16, ByShape: shapes(from...)},
		{Platform: "d", TrainShapes: 17, Fraction: 1, Pct: 97, Picks: 16, ByShape: shapes(to...)},
	}
	first := eval.AdvisePickCurve(many)[0].MoreShapes.Interval
	for range 20 {
		if again := eval.AdvisePickCurve(many)[0].MoreShapes.Interval; again != first {
			t.Fatalf("the same points gave the intervals %v and %v", first, again)
		}
	}
}
