package train

import (
	"strings"
	"testing"
)

// TestSelectBudget checks that the zero Budget bounds nothing, so that the
// same data gives the same selection on any machine under any load, and
// that a negative one is refused with its field named.
func TestSelectBudget(t *testing.T) {
	dir := t.TempDir()
	writeSynth(t, dir, synthPlatform("Only GPU", 16), 3, 300)
	d, err := Load(dir, "synth")
	if err != nil {
		t.Fatal(err)
	}
	cands := []Candidate{
		GBRTCandidate(GBRTOptions{Trees: 5, MaxDepth: 1, Seed: 1}),
		GBRTCandidate(GBRTOptions{Trees: 20, MaxDepth: 3, Seed: 1}),
		ForestCandidate(ForestOptions{Trees: 10, Seed: 1}),
	}
	var runs []Selection
	for range 2 {
		_, sel, err := Select(d, SelectOptions{Candidates: cands, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range sel.Scores {
			if s.Skipped != "" {
				t.Errorf("zero Budget: %s skipped (%s), want every candidate scored", s.Name, s.Skipped)
			}
		}
		runs = append(runs, sel)
	}
	if runs[0].Chosen != runs[1].Chosen || len(runs[0].Scores) != len(runs[1].Scores) {
		t.Fatalf("two runs chose %s and %s, want the same", runs[0].Chosen, runs[1].Chosen)
	}
	for i, a := range runs[0].Scores {
		b := runs[1].Scores[i]
		a.FitSeconds, b.FitSeconds = 0, 0
		if a != b {
			t.Errorf("score %d: %+v then %+v, want equal but for fit time", i, a, b)
		}
	}
	if _, _, err := Select(d, SelectOptions{Candidates: cands, Budget: -1}); err == nil || !strings.Contains(err.Error(), "SelectOptions.Budget") {
		t.Errorf("negative Budget: err = %v, want one naming SelectOptions.Budget", err)
	}
}
