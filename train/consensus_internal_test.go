package train

import (
	"math"
	"testing"

	"github.com/augur-tuning/augur/features"
)

// consensusData returns one device's rows of four shapes and three
// configurations (a = 1, 2, 3): a = 2 runs fastest on every shape, a = 1
// at speed 0.8 and a = 3 at speed 0.5; and held-out predictions that rank
// a = first, then a = second, then a = third.
func consensusData(t *testing.T, first, second, third int) (*Data, [][]float64) {
	t.Helper()
	d := &Data{TaskNames: []string{"n"}, Params: []features.Param{{Name: "a", Values: []int{1, 2, 3}}},
		Features: []string{"task.n", "param.a"}, Platforms: []features.Platform{{Name: "dev"}}}
	speed := map[int]float64{1: 0.8, 2: 1, 3: 0.5}
	rank := map[int]float64{first: 3, second: 2, third: 1}
	var pred []float64
	for _, n := range []int{100, 200, 400, 800} {
		for _, a := range []int{1, 2, 3} {
			best := float64(n) * 1000
			s := Sample{Task: features.Task{n}, Config: features.Config{a}, TimeNs: best / speed[a], RefTimeNs: 2 * best}
			if err := d.Append([]float64{float64(n), float64(a)}, math.Log(s.RefTimeNs/s.TimeNs), s); err != nil {
				t.Fatal(err)
			}
			pred = append(pred, rank[a])
		}
	}
	return d, [][]float64{pred}
}

// shapeAFold deals each shape of d into a fold of its own.
func shapeAFold(d *Data) [][][]int { return [][][]int{d.measuredByShape()} }

func TestScoreConsensus(t *testing.T) {
	rule := DefaultConsensus
	tests := []struct {
		name                 string
		first, second, third int
		rule, model          float64
		changed              int
		applied              bool
	}{
		// The model's pick (a = 1) is beaten by the nearby shapes'
		// fastest (a = 2), which they all list at speed 1.
		{"the rule corrects the pick", 1, 3, 2, 100, 80, 4, true},
		// The model already picks the fastest: nothing changes, and an
		// equal score does not apply the rule.
		{"the pick is the fastest", 2, 1, 3, 100, 100, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, pred := consensusData(t, tt.first, tt.second, tt.third)
			s := scoreConsensus(d, shapeAFold(d), pred, rule)
			if s == nil {
				t.Fatal("scoreConsensus = nil on one device's rows")
			}
			if math.Abs(s.PctGeomean-tt.rule) > 1e-9 || math.Abs(s.ModelPctGeomean-tt.model) > 1e-9 ||
				s.Changed != tt.changed || s.Picks != 4 || s.Applied != tt.applied {
				t.Errorf("got %+v, want rule %.0f, model %.0f, %d changed of 4, applied %v", *s, tt.rule, tt.model, tt.changed, tt.applied)
			}
		})
	}
	t.Run("several devices", func(t *testing.T) {
		d, pred := consensusData(t, 1, 3, 2)
		d.Platforms = append(d.Platforms, features.Platform{Name: "other"})
		s := Sample{Task: features.Task{100}, Config: features.Config{1}, Platform: 1, TimeNs: 1, RefTimeNs: 2}
		if err := d.Append([]float64{100, 1}, math.Log(2), s); err != nil {
			t.Fatal(err)
		}
		pred[0] = append(pred[0], 0)
		if got := scoreConsensus(d, shapeAFold(d), pred, rule); got != nil {
			t.Errorf("scoreConsensus = %+v on two devices' rows, want nil", *got)
		}
	})
}

func TestConsensusTable(t *testing.T) {
	d, _ := consensusData(t, 1, 2, 3)
	c, err := consensusTable(d, DefaultConsensus)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Shapes) != 4 || len(c.Pool) != 3 || c.ConsensusRule != DefaultConsensus {
		t.Fatalf("%d shapes, pool %v, rule %+v: want 4 shapes, 3 configurations, the default rule", len(c.Shapes), c.Pool, c.ConsensusRule)
	}
	for i := range c.Shapes {
		var got []float64
		for j, p := range c.Configs[i] {
			got = append(got, float64(c.Pool[p][0])+c.Speeds[i][j]/10)
		}
		// a = 2 at speed 1, a = 1 at 0.8, a = 3 at 0.5 (the slowest listed).
		if want := []float64{2.1, 1.08, 3.05}; len(got) != 3 || math.Abs(got[0]-want[0])+math.Abs(got[1]-want[1])+math.Abs(got[2]-want[2]) > 1e-9 {
			t.Errorf("shape %v lists %v (configuration + speed/10), want %v", c.Shapes[i], got, want)
		}
	}
}

// TestSelectConsensus: on real data the selection scores the rule on every
// held-out shape, not with NoConsensus, and a model carries the rule
// exactly when its selection applied it.
func TestSelectConsensus(t *testing.T) {
	d := loadH200(t)
	so := SelectOptions{Candidates: []Candidate{GBRTCandidate(GBRTOptions{Trees: 30, MaxDepth: 6})}}
	_, sel, err := Select(d, so)
	if err != nil {
		t.Fatal(err)
	}
	if sel.Consensus == nil || sel.Consensus.Picks != len(d.measuredByShape()) {
		t.Fatalf("Selection.Consensus = %+v, want one pick a shape", sel.Consensus)
	}
	if _, sel, err := Select(d, SelectOptions{Candidates: so.Candidates, NoConsensus: true}); err != nil || sel.Consensus != nil {
		t.Errorf("with NoConsensus: Consensus %+v, err %v; want nil", sel.Consensus, err)
	}
	b, rep, err := TrainData(d, Options{Folds: 1, Select: so})
	if err != nil {
		t.Fatal(err)
	}
	applied := rep.Models[0].Selection.Consensus.Applied
	if got := b.Models[0].Consensus != nil; got != applied {
		t.Errorf("model carries the rule: %v; the selection applied it: %v", got, applied)
	}
}
