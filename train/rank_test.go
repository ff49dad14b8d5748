package train

import (
	"bufio"
	"bytes"
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/dmitryikh/leaves"
)

// groupedSynthetic returns rows of groups made-up groups (column 0 names
// the group, as a task feature would) of perGroup configurations each
// (columns 1 and 2), whose target has a per-group offset and a per-group
// best configuration, and the index of each group's fastest row.
func groupedSynthetic(groups, perGroup int, seed uint64) (x, y []float64, best []int) {
	rng := rand.New(rand.NewPCG(seed, 2))
	for g := range groups {
		offset := rng.NormFloat64()
		peak := float64(g % 4)
		bi := -1
		for i := range perGroup {
			a, b := float64(i%8), float64(i/8)
			x = append(x, float64(g), a, b)
			v := offset - 0.2*(a-peak)*(a-peak) - 0.05*b + 0.01*rng.NormFloat64()
			y = append(y, v)
			if bi < 0 || v > y[bi] {
				bi = len(y) - 1
			}
		}
		best = append(best, bi)
	}
	return x, y, best
}

// pickQuality is the mean over groups of exp(y_pick - y_best), the
// pick's speed as a fraction of the best.
func pickQuality(r Regressor, x, y []float64, perGroup int, best []int) float64 {
	const nf = 3
	var sum float64
	for g, bi := range best {
		pick := g * perGroup
		for i := g * perGroup; i < (g+1)*perGroup; i++ {
			if r.Predict(x[i*nf:(i+1)*nf]) > r.Predict(x[pick*nf:(pick+1)*nf]) {
				pick = i
			}
		}
		sum += math.Exp(y[pick] - y[bi])
	}
	return sum / float64(len(best))
}

// TestGroupedLearners checks that every group-aware learner picks near
// each group's best, and that leaves loads what it writes and predicts as
// it does.
func TestGroupedLearners(t *testing.T) {
	const perGroup = 64
	x, y, best := groupedSynthetic(8, perGroup, 1)
	cols := []int{0}
	g := GBRTOptions{Trees: 60, MaxDepth: 4, MinLeaf: 3, Seed: 1}
	tests := []struct {
		name    string
		learner Learner
		want    float64 // the least mean pick quality
	}{
		{"rank", RankOptions{GBRT: g, GroupColumns: cols}, 0.75},
		{"rank mixed", RankOptions{GBRT: g, Mix: 0.5, Top: 10, GroupColumns: cols}, 0.8},
		{"top", TopOptions{GBRT: g, GroupColumns: cols}, 0.9},
		{"top anchored", TopOptions{GBRT: g, Anchored: true, GroupColumns: cols}, 0.9},
		{"bag", BagOptions{GBRT: g, Members: 3}, 0.9},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := tt.learner.Fit(x, 3, y)
			if err != nil {
				t.Fatal(err)
			}
			if q := pickQuality(r, x, y, perGroup, best); q < tt.want {
				t.Errorf("picks reach %.3f of the best on average, want >= %g", q, tt.want)
			}
			var buf bytes.Buffer
			if err := r.WriteLightGBM(&buf, []string{"task.g", "param.a", "param.b"}); err != nil {
				t.Fatal(err)
			}
			lg, err := leaves.LGEnsembleFromReader(bufio.NewReader(&buf), true)
			if err != nil {
				t.Fatalf("leaves cannot load the model: %v", err)
			}
			for i := 0; i < len(y); i += 7 {
				row := x[i*3 : (i+1)*3]
				if got, want := lg.PredictSingle(row, 0), r.Predict(row); math.Abs(got-want) > 1e-9 {
					t.Fatalf("row %d: leaves predicts %v, Predict %v", i, got, want)
				}
			}
		})
	}
}

// TestTopAnchoredScale checks that an anchored top-weighted model's
// score of a group's best configuration reads as its log-speedup.
func TestTopAnchoredScale(t *testing.T) {
	const perGroup = 64
	x, y, best := groupedSynthetic(8, perGroup, 3)
	r, err := TopOptions{GBRT: GBRTOptions{Trees: 100, MaxDepth: 4, MinLeaf: 3}, Anchored: true, GroupColumns: []int{0}}.Fit(x, 3, y)
	if err != nil {
		t.Fatal(err)
	}
	for _, bi := range best {
		if got := r.Predict(x[bi*3 : (bi+1)*3]); math.Abs(got-y[bi]) > 0.25 {
			t.Errorf("row %d: predicted %.3f, log-speedup %.3f", bi, got, y[bi])
		}
	}
}

func TestGroupedOptionsErrors(t *testing.T) {
	x, y, _ := groupedSynthetic(2, 16, 1)
	tests := []struct {
		name    string
		learner Learner
		want    string
	}{
		{"rank top", RankOptions{Top: -1}, "RankOptions.Top"},
		{"rank mix", RankOptions{Mix: 1}, "RankOptions.Mix"},
		{"rank early stop", RankOptions{GBRT: GBRTOptions{EarlyStop: 5}}, "EarlyStop"},
		{"rank min hessian", RankOptions{MinHessian: -1}, "RankOptions.MinHessian"},
		{"rank max delta step", RankOptions{MaxDeltaStep: math.Inf(1)}, "RankOptions.MaxDeltaStep"},
		{"bag members", BagOptions{Members: 1}, "BagOptions.Members"},
		{"bag gbrt", BagOptions{GBRT: GBRTOptions{MaxDepth: 99}}, "MaxDepth"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := tt.learner.Fit(x, 3, y); err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "train: ") {
				t.Errorf("err = %v, want one naming %s", err, tt.want)
			}
		})
	}
}

func TestGroupColumns(t *testing.T) {
	d := &Data{Features: []string{"task.width", "param.wg", "derived.items", "platform.compute_units", "task.height"}}
	if got, want := GroupColumns(d), []int{0, 3, 4}; !slices.Equal(got, want) {
		t.Errorf("GroupColumns = %v, want %v", got, want)
	}
	x := []float64{1, 9, 2, 9, 1, 8, 3, 7}
	got := groupRowsBy(x, 2, []int{0})
	if len(got) != 3 || !slices.Equal(got[0], []int32{0, 2}) || !slices.Equal(got[1], []int32{1}) {
		t.Errorf("groupRowsBy = %v, want [[0 2] [1] [3]]", got)
	}
	if all := groupRowsBy(x, 2, nil); len(all) != 1 || len(all[0]) != 4 {
		t.Errorf("no columns: %v, want one group of 4 rows", all)
	}
}

// TestSelectGroupedAndRepeats checks that Select gives group-aware
// candidates their columns and reports a spread over repeated deals.
func TestSelectGroupedAndRepeats(t *testing.T) {
	dir := t.TempDir()
	writeSynth(t, dir, synthPlatform("Only GPU", 16), 3, 600)
	d, err := Load(dir, "synth")
	if err != nil {
		t.Fatal(err)
	}
	top := TopCandidate(TopOptions{GBRT: GBRTOptions{Trees: 30, MaxDepth: 4, Seed: 1}})
	gb := GBRTCandidate(GBRTOptions{Trees: 30, MaxDepth: 4, Seed: 1})
	c, sel, err := Select(d, SelectOptions{Candidates: []Candidate{gb, top}, Folds: 2, Repeats: 3, Seed: 1, MaxCost: -1})
	if err != nil {
		t.Fatal(err)
	}
	if len(sel.Scores) != 3 {
		t.Fatalf("%d scores, want 2 candidates and their blend", len(sel.Scores))
	}
	for _, s := range sel.Scores {
		if s.PctSpread < 0 || s.PctGeomean <= 0 {
			t.Errorf("score %+v: want a geomean and a spread >= 0", s)
		}
	}
	if to, ok := c.Learner.(TopOptions); ok && len(to.GroupColumns) == 0 {
		t.Errorf("chosen %s has no group columns", c.Name)
	}
	if _, _, err := Select(d, SelectOptions{Candidates: []Candidate{gb}, Repeats: -1}); err == nil || !strings.Contains(err.Error(), "Repeats") {
		t.Errorf("Repeats -1: err = %v, want one naming Repeats", err)
	}
}

// A top-weighted model fitted to two shapes' configurations (column 0 is
// the shape, column 1 a tuning parameter) picks each shape's fastest.
func ExampleTopOptions() {
	var x, y []float64
	for shape := range 2 {
		for p := range 16 {
			x = append(x, float64(shape), float64(p))
			// Shape 0 runs fastest at p = 3, shape 1 at p = 12.
			peak := 3.0 + 9*float64(shape)
			y = append(y, -0.1*(float64(p)-peak)*(float64(p)-peak))
		}
	}
	m, err := TopOptions{GBRT: GBRTOptions{Trees: 50, MinLeaf: 1}, Anchored: true, GroupColumns: []int{0}}.Fit(x, 2, y)
	if err != nil {
		fmt.Println(err)
		return
	}
	for shape := range 2 {
		pick := 0
		for p := range 16 {
			if m.Predict([]float64{float64(shape), float64(p)}) > m.Predict([]float64{float64(shape), float64(pick)}) {
				pick = p
			}
		}
		fmt.Printf("shape %d: p = %d\n", shape, pick)
	}
	// Output:
	// shape 0: p = 3
	// shape 1: p = 12
}

// TestCalibrate checks that calibrate maps a model's scores onto the
// targets of each group's top rows without changing any group's order: a
// model fitted to 3y+5 reads as y afterwards, and picks the same rows.
func TestCalibrate(t *testing.T) {
	const perGroup, nf = 64, 3
	x, y, best := groupedSynthetic(6, perGroup, 4)
	off := make([]float64, len(y))
	for i, v := range y {
		off[i] = 3*v + 5
	}
	e, err := FitGBRT(x, nf, off, GBRTOptions{Trees: 80, MaxDepth: 4, MinLeaf: 2, LearningRate: 0.3})
	if err != nil {
		t.Fatal(err)
	}
	before := make([]float64, len(y))
	for i := range y {
		before[i] = e.Predict(x[i*nf : (i+1)*nf])
	}
	groups := groupRowsBy(x, nf, []int{0})
	calibrate(e, x, nf, y, groups, 5)
	for i := range y {
		for j := i + 1; j < len(y) && j/perGroup == i/perGroup; j++ {
			after := cmp.Compare(e.Predict(x[i*nf:(i+1)*nf]), e.Predict(x[j*nf:(j+1)*nf]))
			if want := cmp.Compare(before[i], before[j]); after != want && want != 0 {
				t.Fatalf("rows %d and %d: order %d after calibration, %d before", i, j, after, want)
			}
		}
	}
	for _, bi := range best {
		if got := e.Predict(x[bi*nf : (bi+1)*nf]); math.Abs(got-y[bi]) > 0.1 {
			t.Errorf("row %d: calibrated score %.3f, target %.3f", bi, got, y[bi])
		}
	}
}

// A ranking model (LambdaMART with Newton steps) fitted to two shapes'
// configurations picks each shape's fastest, and its calibrated score of
// the pick reads as the pick's log-speedup.
func ExampleRankOptions() {
	var x, y []float64
	for shape := range 2 {
		for p := range 16 {
			x = append(x, float64(shape), float64(p))
			// Shape 0 runs fastest at p = 3, shape 1 at p = 12.
			peak := 3.0 + 9*float64(shape)
			y = append(y, 1-0.1*(float64(p)-peak)*(float64(p)-peak))
		}
	}
	m, err := RankOptions{GBRT: GBRTOptions{Trees: 50, MinLeaf: 1}, Top: 4, GroupColumns: []int{0}}.Fit(x, 2, y)
	if err != nil {
		fmt.Println(err)
		return
	}
	for shape := range 2 {
		pick := 0
		for p := range 16 {
			if m.Predict([]float64{float64(shape), float64(p)}) > m.Predict([]float64{float64(shape), float64(pick)}) {
				pick = p
			}
		}
		fmt.Printf("shape %d: p = %d, predicted log-speedup %.1f\n", shape, pick, m.Predict([]float64{float64(shape), float64(pick)}))
	}
	// Output:
	// shape 0: p = 3, predicted log-speedup 1.0
	// shape 1: p = 12, predicted log-speedup 1.1
}
