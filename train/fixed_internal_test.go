package train

import (
	"math"
	"testing"

	"github.com/augur-tuning/augur/features"
)

// fixedData returns one device's rows of four shapes and three
// configurations (a = 1, 2, 3) with speeds[s][a-1] at shape s, and
// held-out predictions that rank each shape's configurations by pred[s].
func fixedData(t *testing.T, speeds, pred [4][3]float64) (*Data, [][]float64) {
	t.Helper()
	d := &Data{TaskNames: []string{"n"}, Params: []features.Param{{Name: "a", Values: []int{1, 2, 3}}},
		Features: []string{"task.n", "param.a"}, Platforms: []features.Platform{{Name: "dev"}}}
	var p []float64
	for s, n := range []int{100, 200, 400, 800} {
		for a := range 3 {
			best := float64(n) * 1000
			r := Sample{Task: features.Task{n}, Config: features.Config{a + 1}, TimeNs: best / speeds[s][a], RefTimeNs: 2 * best}
			if err := d.Append([]float64{float64(n), float64(a + 1)}, math.Log(r.RefTimeNs/r.TimeNs), r); err != nil {
				t.Fatal(err)
			}
			p = append(p, pred[s][a])
		}
	}
	return d, [][]float64{p}
}

func TestScoreFixed(t *testing.T) {
	tests := []struct {
		name          string
		speeds, pred  [4][3]float64
		fixed, model  float64
		applied       bool
		wantFixedPick int // the bundle's fixed configuration, 0 for none
	}{
		{
			// a = 2 is within 5% of the best everywhere; the model's
			// picks swing between the best and a slow one.
			"one configuration everywhere",
			[4][3]float64{{1, 0.95, 0.5}, {0.5, 0.96, 1}, {1, 0.95, 0.5}, {0.5, 0.96, 1}},
			[4][3]float64{{1, 0, 0}, {1, 0, 0}, {0, 0, 1}, {0, 0, 1}},
			95.5, 70.7, true, 2,
		},
		{
			// The fixed configuration is the fastest everywhere, but the
			// model's picks are within FixedMargin of it.
			"better within the margin",
			[4][3]float64{{1, 0.999, 0.996}, {1, 0.999, 0.996}, {1, 0.999, 0.996}, {1, 0.999, 0.996}},
			[4][3]float64{{0, 0, 1}, {0, 0, 1}, {0, 0, 1}, {0, 0, 1}},
			100, 99.6, false, 0,
		},
		{
			// The best moves with the shape and the model follows it;
			// the other shapes' fixed configuration is the held-out
			// shape's slowest (a = 1 or 3: the majority's best).
			"the best moves with the shape",
			[4][3]float64{{1, 0.7, 0.5}, {1, 0.7, 0.5}, {0.5, 0.7, 1}, {0.5, 0.7, 1}},
			[4][3]float64{{1, 0, 0}, {1, 0, 0}, {0, 0, 1}, {0, 0, 1}},
			50, 100, false, 0,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, pred := fixedData(t, tt.speeds, tt.pred)
			s := scoreFixed(d, shapeAFold(d), pred, DefaultConsensus, false)
			if s == nil {
				t.Fatal("scoreFixed = nil on one device's rows")
			}
			if math.Abs(s.PctGeomean-tt.fixed) > 0.1 || math.Abs(s.ModelPctGeomean-tt.model) > 0.1 || s.Picks != 4 || s.Applied != tt.applied {
				t.Errorf("got %+v, want fixed %.1f, model %.1f, 4 picks, applied %v", *s, tt.fixed, tt.model, tt.applied)
			}
			if tt.wantFixedPick > 0 {
				f := fixedPick(d, s)
				if f == nil || !f.Config.Equal(features.Config{tt.wantFixedPick}) || f.PctGeomean != s.PctGeomean {
					t.Errorf("fixedPick = %+v, want a = %d with the score's figures", f, tt.wantFixedPick)
				}
			}
		})
	}
	t.Run("several devices", func(t *testing.T) {
		d, pred := fixedData(t, tests[0].speeds, tests[0].pred)
		d.Platforms = append(d.Platforms, features.Platform{Name: "other"})
		s := Sample{Task: features.Task{100}, Config: features.Config{1}, Platform: 1, TimeNs: 1, RefTimeNs: 2}
		if err := d.Append([]float64{100, 1}, math.Log(2), s); err != nil {
			t.Fatal(err)
		}
		pred[0] = append(pred[0], 0)
		if got := scoreFixed(d, shapeAFold(d), pred, DefaultConsensus, false); got != nil {
			t.Errorf("scoreFixed = %+v on two devices' rows, want nil", *got)
		}
	})
}
