package train

import (
	"github.com/augur-tuning/augur/features"
	"math"
	"strings"
	"testing"
	"time"
)

func TestSelect(t *testing.T) {
	dir := t.TempDir()
	writeSynth(t, dir, synthPlatform("Only GPU", 16), 3, 600)
	d, err := Load(dir, "synth")
	if err != nil {
		t.Fatal(err)
	}
	shallow := GBRTCandidate(GBRTOptions{Trees: 5, MaxDepth: 1, Seed: 1})
	deep := GBRTCandidate(GBRTOptions{Trees: 60, MaxDepth: 4, Seed: 1})
	forest := ForestCandidate(ForestOptions{Trees: 20, Seed: 1})
	tests := []struct {
		name  string
		cands []Candidate
		want  string // the chosen candidate's name
	}{
		// Stumps cannot fit the synthetic optimum; deeper trees can.
		{"depth pays", []Candidate{shallow, deep}, deep.Name},
		// The same setting twice: the first (as cheap) is kept.
		{"tie keeps first", []Candidate{deep, deep}, deep.Name},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, sel, err := Select(d, SelectOptions{Candidates: tt.cands, Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			if c.Name != tt.want || sel.Chosen != tt.want {
				t.Errorf("chose %s (report %s), want %s; scores %+v", c.Name, sel.Chosen, tt.want, sel.Scores)
			}
			for _, s := range sel.Scores {
				if !(s.PctGeomean > 0 && s.PctGeomean <= 100) || s.PctWorst > s.PctGeomean || s.Shapes != len(d.Shapes()) {
					t.Errorf("score %+v: want 0 < worst <= geomean <= 100 over %d shapes", s, len(d.Shapes()))
				}
			}
		})
	}
	// A budget already spent scores the first candidate only.
	_, sel, err := Select(d, SelectOptions{Candidates: []Candidate{shallow, deep, forest}, Budget: time.Nanosecond})
	if err != nil {
		t.Fatal(err)
	}
	if sel.Scores[0].Skipped != "" || sel.Scores[1].Skipped != SkippedBudget || sel.Scores[2].Skipped != SkippedBudget || sel.Chosen != shallow.Name {
		t.Errorf("with no budget: %+v, want only the first scored and chosen", sel)
	}
	// A cost bound below the deep setting's keeps it out even though depth
	// pays, and keeps out the blends that would cost more; a candidate
	// over the bound that comes first does not count as the one always
	// scored.
	_, sel, err = Select(d, SelectOptions{Candidates: []Candidate{deep, shallow}, MaxCost: deep.Cost - 1, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(sel.Scores) != 2 || sel.Scores[0].Skipped != SkippedCost || sel.Scores[1].Skipped != "" || sel.Chosen != shallow.Name {
		t.Errorf("cost bound %d: %+v, want the deep setting skipped for its cost, no blend, the shallow chosen", deep.Cost-1, sel)
	}
	// Within the bound, the blend of the two is scored too.
	_, sel, err = Select(d, SelectOptions{Candidates: []Candidate{deep, shallow}, MaxCost: deep.Cost + shallow.Cost, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(sel.Scores) != 3 {
		t.Errorf("cost bound %d: %d scores, want the two and their blend", deep.Cost+shallow.Cost, len(sel.Scores))
	}
	for _, c := range DefaultCandidates(1) {
		if c.Cost > DefaultMaxCost {
			t.Errorf("default candidate %s costs %d, more than DefaultMaxCost %d: it would never be chosen", c.Name, c.Cost, DefaultMaxCost)
		}
	}
	if _, _, err := Select(d, SelectOptions{Candidates: []Candidate{deep}, MaxCost: 1}); err == nil || !strings.Contains(err.Error(), "MaxCost") {
		t.Errorf("every candidate over the bound: err = %v, want one naming MaxCost", err)
	}
	if _, _, err := Select(d, SelectOptions{Candidates: []Candidate{}}); err == nil || !strings.Contains(err.Error(), "Candidates") {
		t.Errorf("empty candidates: err = %v", err)
	}
}

func TestShapeGrid(t *testing.T) {
	g := shapeGrid([]features.Task{{1024, 1024, 5, 5}, {4096, 1024, 3, 3}, {2048, 768, 5, 5}, {1500, 3000, 5, 5}, {800, 600, 5, 5}, {640, 480, 7, 7}})
	// width and height have 6 and 5 distinct values (more than 4): 6 log-spaced
	// points each; the filters keep their 3 values.
	if len(g) != 6*6*3*3 {
		t.Fatalf("grid of %d shapes, want %d", len(g), 6*6*3*3)
	}
	if g[0][0] != 640 || g[len(g)-1][0] != 4096 || g[0][1] != 480 || g[len(g)-1][1] != 3000 {
		t.Errorf("grid spans %v to %v, want the shapes' least and largest sizes", g[0], g[len(g)-1])
	}
}

// TestSelectMaxRows checks that a bound below the rows scores the
// candidates on groupShare's rows alone (the report equals that of a
// selection on them, fit times aside), and that a bound at or above the
// rows, or none, changes nothing.
func TestSelectMaxRows(t *testing.T) {
	dir := t.TempDir()
	writeSynth(t, dir, synthPlatform("Only GPU", 16), 3, 600)
	d, err := Load(dir, "synth")
	if err != nil {
		t.Fatal(err)
	}
	cands := []Candidate{
		GBRTCandidate(GBRTOptions{Trees: 10, MaxDepth: 2, Seed: 1}),
		GBRTCandidate(GBRTOptions{Trees: 30, MaxDepth: 4, Seed: 1}),
	}
	sel := func(d *Data, maxRows int) Selection {
		t.Helper()
		_, s, err := Select(d, SelectOptions{Candidates: cands, Seed: 1, MaxRows: maxRows})
		if err != nil {
			t.Fatal(err)
		}
		for i := range s.Scores {
			s.Scores[i].FitSeconds = 0
		}
		return s
	}
	all := sel(d, -1)
	half := d.Len() / 2
	tests := []struct {
		name    string
		maxRows int
		want    Selection
	}{
		{"default, above the rows", 0, all},
		{"at the rows", d.Len(), all},
		{"half", half, sel(d.Subset(groupShare(d, half)), -1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := sel(d, tt.maxRows); !equalSelections(got, tt.want) {
				t.Errorf("MaxRows %d: %+v, want %+v", tt.maxRows, got, tt.want)
			}
		})
	}
}

func equalSelections(a, b Selection) bool {
	if a.Chosen != b.Chosen || len(a.Scores) != len(b.Scores) {
		return false
	}
	for i := range a.Scores {
		if a.Scores[i] != b.Scores[i] {
			return false
		}
	}
	return true
}

// TestGroupShare checks that every (shape, device) group keeps its first
// row and about the same share of its rows, in order.
func TestGroupShare(t *testing.T) {
	d := &Data{Features: []string{"x"}}
	sizes := []int{1, 7, 100, 1000} // rows of four shapes, interleaved
	for i := range 1000 {
		for s, n := range sizes {
			if i < n {
				if err := d.Append([]float64{float64(i)}, 0, Sample{Task: features.Task{s}}); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	for _, n := range []int{10, 277, 554, d.Len()} {
		rows := groupShare(d, n)
		if len(rows) < n || len(rows) > n+len(sizes) {
			t.Errorf("groupShare(%d): %d rows, want %d to %d", n, len(rows), n, n+len(sizes))
		}
		kept := map[int]int{}
		first := map[int]bool{}
		for j, i := range rows {
			if j > 0 && i <= rows[j-1] {
				t.Fatalf("groupShare(%d): rows out of order at %d", n, j)
			}
			s := d.Sample(i).Task[0]
			if kept[s] == 0 && d.value(i, 0) == 0 {
				first[s] = true
			}
			kept[s]++
		}
		p := float64(n) / float64(d.Len())
		for s, m := range sizes {
			if !first[s] {
				t.Errorf("groupShare(%d): shape %d lost its first row", n, s)
			}
			if want := int(math.Ceil(float64(m) * p)); kept[s] != want {
				t.Errorf("groupShare(%d): shape %d of %d rows keeps %d, want %d", n, s, m, kept[s], want)
			}
		}
	}
}

// TestTrainMaxRows checks that a bound on the rows leaves the final fit on
// every row and cross-validates on the bounded share, as CrossValidate on
// that share does.
func TestTrainMaxRows(t *testing.T) {
	dir := t.TempDir()
	writeSynth(t, dir, synthPlatform("Only GPU", 16), 3, 600)
	d, err := Load(dir, "synth")
	if err != nil {
		t.Fatal(err)
	}
	n := d.Len() / 3
	g := GBRTOptions{Trees: 10, MaxDepth: 3}
	_, rep, err := TrainData(d, Options{Kernel: "synth", Model: "gbrt", GBRT: g, Folds: 3, Seed: 2, Select: SelectOptions{MaxRows: n}})
	if err != nil {
		t.Fatal(err)
	}
	want, err := CrossValidate(d.Subset(groupShare(d, n)), 3, g, 2)
	if err != nil {
		t.Fatal(err)
	}
	m := rep.Models[0]
	if m.Rows != d.Len() || m.CV != want {
		t.Errorf("MaxRows %d: fitted on %d rows with CV %+v; want %d rows, CV %+v", n, m.Rows, m.CV, d.Len(), want)
	}
}

// TestReportSelectionSpread: a selection of several deals prints each
// learner's spread over them beside its means; one of a single deal
// prints no spread column.
func TestReportSelectionSpread(t *testing.T) {
	for _, tt := range []struct {
		deals int
		want  []string
		not   string
	}{
		{1, []string{"geomean %  worst %"}, " sd "},
		{3, []string{"means over 3 deals of the shapes", "geomean %   sd  worst %", "  2.5 "}, ""},
	} {
		sel := &Selection{Chosen: "a", HeldOut: "shapes", Deals: tt.deals, Scores: []PickScore{
			{Name: "a", PctGeomean: 97.25, PctWorst: 90, PctSpread: 2.5 * float64(tt.deals-1) / 2, Shapes: 10, Cost: 400},
			{Name: "b", Cost: 5000, Skipped: SkippedCost},
		}}
		r := &Report{Kernel: "gemm", Models: []ModelReport{{Name: "dev", Selection: sel}}}
		got := r.String()
		for _, w := range tt.want {
			if !strings.Contains(got, w) {
				t.Errorf("%d deals: report lacks %q:\n%s", tt.deals, w, got)
			}
		}
		if tt.not != "" && strings.Contains(got, tt.not) {
			t.Errorf("%d deals: report has %q:\n%s", tt.deals, tt.not, got)
		}
	}
}
