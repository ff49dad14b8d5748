package train

import (
	"slices"
	"testing"
)

// TestSelectOneShape selects on data of one shape by folds of its
// configurations (issue 25 item 6): the learner that can fit the synthetic
// optimum wins, every score covers the folds, and too few rows to fold
// leave the first candidate unscored.
func TestSelectOneShape(t *testing.T) {
	dir := t.TempDir()
	writeSynth(t, dir, synthPlatform("Only GPU", 16), 3, 2000)
	all, err := Load(dir, "synth")
	if err != nil {
		t.Fatal(err)
	}
	shape := all.Sample(0).Task.Key()
	var rows []int
	for i, s := range all.Samples() {
		if s.Task.Key() == shape {
			rows = append(rows, i)
		}
	}
	d := all.Subset(rows)
	if n := len(d.Shapes()); n != 1 {
		t.Fatalf("%d shapes, want 1", n)
	}
	shallow := GBRTCandidate(GBRTOptions{Trees: 5, MaxDepth: 1, Seed: 1})
	deep := GBRTCandidate(GBRTOptions{Trees: 60, MaxDepth: 4, Seed: 1})
	few := d.Subset([]int{0, 1, 2})
	tests := []struct {
		name    string
		d       *Data
		cands   []Candidate
		repeats int
		want    string
		scored  bool
	}{
		{"depth pays", d, []Candidate{shallow, deep}, 0, deep.Name, true},
		{"repeated deals", d, []Candidate{shallow, deep}, 3, deep.Name, true},
		{"too few rows", few, []Candidate{shallow, deep}, 0, shallow.Name, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, sel, err := Select(tt.d, SelectOptions{Candidates: tt.cands, Repeats: tt.repeats, Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			if c.Name != tt.want || sel.Chosen != tt.want {
				t.Errorf("chose %s (report %s), want %s; scores %+v", c.Name, sel.Chosen, tt.want, sel.Scores)
			}
			if tt.scored && sel.HeldOut != "configurations" {
				t.Errorf("held out %q, want configurations", sel.HeldOut)
			}
			if got := len(sel.Scores) > 0; got != tt.scored {
				t.Fatalf("scores %+v, want scored %v", sel.Scores, tt.scored)
			}
			for _, s := range sel.Scores {
				if !(s.PctGeomean > 0 && s.PctGeomean <= 100) || s.PctWorst > s.PctGeomean || s.Shapes != oneShapeFolds {
					t.Errorf("score %+v: want 0 < worst <= geomean <= 100 over %d folds", s, oneShapeFolds)
				}
				if (tt.repeats > 1) != (s.PctSpread > 0) {
					t.Errorf("score %+v: spread with %d deals", s, tt.repeats)
				}
			}
		})
	}
}

// TestConfigDeals deals every row once a deal, into k folds of sizes that
// differ by at most one, in another order each deal.
func TestConfigDeals(t *testing.T) {
	rows := make([]int, 23)
	for i := range rows {
		rows[i] = 2 * i
	}
	deals := configDeals(rows, 5, 3, 1)
	if len(deals) != 3 {
		t.Fatalf("%d deals, want 3", len(deals))
	}
	for d, folds := range deals {
		seen := map[int]int{}
		for _, f := range folds {
			if len(f) < 4 || len(f) > 5 {
				t.Errorf("deal %d: fold of %d rows, want 4 or 5", d, len(f))
			}
			for _, r := range f {
				seen[r]++
			}
		}
		for _, r := range rows {
			if seen[r] != 1 {
				t.Errorf("deal %d: row %d dealt %d times", d, r, seen[r])
			}
		}
	}
	if slices.Equal(deals[0][0], deals[1][0]) && slices.Equal(deals[1][0], deals[2][0]) {
		t.Errorf("three deals with the same first fold %v", deals[0][0])
	}
}
