package features_test

import (
	"errors"
	"os"
	"testing"

	"github.com/augur-tuning/augur/features"
)

// TestConsensusRulePick checks the rule's arithmetic: the candidate with
// the best weighted log speed at the nearest shapes wins, unlisted counts
// as Unlisted, a tie goes to the earlier candidate, and shapes beyond
// Nearest do not vote.
func TestConsensusRulePick(t *testing.T) {
	rule := features.ConsensusRule{Candidates: 3, Nearest: 2, Tau: 1, Unlisted: 0.1}
	// Three shapes at log distance 0, 1 and 5 from the asked one (all
	// logs 0).
	shapes := features.LogShapes{{0, 0}, {1, 0}, {5, 0}}
	tests := []struct {
		name   string
		speeds [][]float64 // [shape][candidate]; 0 = unlisted
		want   int
	}{
		{"the pick is best", [][]float64{{1, 0.9, 0.8}, {1, 0.9, 0.8}, {0.1, 1, 1}}, 0},
		{"another is faster nearby", [][]float64{{0.8, 1, 0.9}, {0.8, 1, 0.9}, {1, 0.1, 0.1}}, 1},
		{"unlisted loses to slow", [][]float64{{0, 0.6, 0.6}, {1, 0.6, 0.5}, {1, 1, 1}}, 1},
		{"the nearer shape weighs more", [][]float64{{0.9, 1, 1}, {1, 0.9, 0.8}, {1, 1, 1}}, 1},
		{"a tie goes to the earlier", [][]float64{{0.9, 1, 1}, {1, 0.9, 0.9}, {1, 1, 1}}, 1},
		{"the third shape does not vote", [][]float64{{1, 1, 1}, {1, 1, 1}, {0.1, 1, 1}}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := rule.Pick(shapes, []float64{0, 0}, 3, func(s, i int) (float64, bool) {
				v := tt.speeds[s][i]
				return v, v > 0
			})
			if got != tt.want {
				t.Errorf("Pick = %d, want %d", got, tt.want)
			}
		})
	}
	if got := rule.Pick(nil, []float64{0, 0}, 3, nil); got != 0 {
		t.Errorf("Pick with no shapes = %d, want 0", got)
	}
}

func TestBundleConsensus(t *testing.T) {
	data, err := os.ReadFile("../testdata/conv2d-pocl.augur")
	if err != nil {
		t.Fatal(err)
	}
	b0, err := features.ReadBundle(data)
	if err != nil {
		t.Fatal(err)
	}
	known := b0.Models[0].Known
	good := func() *features.Consensus {
		return &features.Consensus{ConsensusRule: features.ConsensusRule{Candidates: 3, Nearest: 5, Tau: 1, Unlisted: 0.1},
			Shapes: []features.Task{{512, 512, 3, 3}}, Configs: [][]int{{0, 1}}, Speeds: [][]float64{{1, 0.8}},
			Pool: []features.Config{known[0], known[1]}}
	}
	tests := []struct {
		name  string
		spoil func(c *features.Consensus)
		ok    bool
	}{
		{"good", func(*features.Consensus) {}, true},
		{"no candidates", func(c *features.Consensus) { c.Candidates = 0 }, false},
		{"tau 0", func(c *features.Consensus) { c.Tau = 0 }, false},
		{"unlisted above 1", func(c *features.Consensus) { c.Unlisted = 2 }, false},
		{"index outside the pool", func(c *features.Consensus) { c.Configs[0][1] = 2 }, false},
		{"speed above 1", func(c *features.Consensus) { c.Speeds[0][1] = 1.5 }, false},
		{"speeds and configurations disagree", func(c *features.Consensus) { c.Speeds[0] = c.Speeds[0][:1] }, false},
		{"short shape", func(c *features.Consensus) { c.Shapes[0] = c.Shapes[0][:3] }, false},
		{"configuration outside the space", func(c *features.Consensus) { c.Pool[0] = features.Config{0} }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := features.ReadBundle(data)
			if err != nil {
				t.Fatal(err)
			}
			c := good()
			tt.spoil(c)
			b.Models[0].Consensus = c
			got, err := rewrite(t, b)
			switch {
			case tt.ok && err != nil:
				t.Fatalf("ReadBundle: %v", err)
			case tt.ok && (got.Models[0].Consensus == nil || got.Models[0].Consensus.Speeds[0][1] != 0.8 || got.Models[0].Consensus.Nearest != 5):
				t.Errorf("read back %+v", got.Models[0].Consensus)
			case !tt.ok && !errors.Is(err, features.ErrSyntax):
				t.Errorf("ReadBundle: err = %v, want ErrSyntax", err)
			}
		})
	}
}
