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
