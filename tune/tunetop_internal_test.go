package tune

import (
	"strings"
	"testing"

	"github.com/augur-tuning/augur/collect/record"
	"github.com/augur-tuning/augur/datasets"
)

// TestPreferReference: TuneTop's answer is the fastest configuration it
// measured, the reference included (the wisdom holds it too, so a Chooser
// answers with it), and the report says when no candidate beat it.
func TestPreferReference(t *testing.T) {
	k, err := datasets.Lookup("conv2d")
	if err != nil {
		t.Fatal(err)
	}
	cand := k.Reference.Clone()
	cand[0]++ // another configuration
	for _, tt := range []struct {
		name      string
		candNs    float64
		refNs     float64
		reference bool
		report    string
	}{
		{"a candidate beats the reference", 800, 1000, false, "1.25x over the reference"},
		{"the reference beats every candidate", 1200, 1000, true, "the reference: none of the 1 candidates beat it"},
		{"the reference did not run", 1200, 0, false, "best: "},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := &TopResult{Space: k.Space, Best: cand, BestNs: tt.candNs, RefNs: tt.refNs,
				Candidates: []TopCandidate{{Config: cand, Status: record.StatusOK, TimeNs: tt.candNs}}}
			r.preferReference(k.Reference)
			want := cand
			if tt.reference {
				want = k.Reference
			}
			wantNs := tt.candNs
			if tt.reference {
				wantNs = tt.refNs
			}
			if r.BestIsReference != tt.reference || !r.Best.Equal(want) || r.BestNs != wantNs {
				t.Errorf("best %v in %v ns (reference %v), want %v", r.Best, r.BestNs, r.BestIsReference, want)
			}
			if got := r.String(); !strings.Contains(got, tt.report) {
				t.Errorf("report %q lacks %q", got, tt.report)
			}
		})
	}
}
