package runtime

import (
	"os"
	"slices"
	"testing"

	"github.com/augur-tuning/augur/features"
)

// TestConsensusSearchCandidates: the rule's candidates are the climb's
// pick, the first nearby best and the climb's next best after the pick,
// in Candidates' order; the second nearby best does not compete with 3.
func TestConsensusSearchCandidates(t *testing.T) {
	data, err := os.ReadFile("../testdata/conv2d-h100.augur") // it records measured bests
	if err != nil {
		t.Fatal(err)
	}
	plain, err := New(data, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// A shape whose first two nearby bests differ from each other, the
	// pick and the climb's next.
	var shape features.Task
	var next, near0, near1 features.Config
	for _, s := range []features.Task{{1000, 700, 5, 5}, {700, 500, 3, 3}, {3000, 2000, 7, 7}, {1500, 900, 5, 5}, {600, 600, 7, 7}, {2500, 1400, 3, 3}} {
		top := &topScored{n: 3}
		pick := plain.climbTop(s, nil, top).Config
		i := slices.IndexFunc(top.top, func(x scored) bool { return !slices.Equal(x.cfg, pick) })
		near := plain.nearBests(s)
		if i < 0 || len(near) < 2 {
			continue
		}
		n, a, b := top.top[i].cfg, near[0].cfg, near[1].cfg
		if !slices.Equal(a, b) && !slices.ContainsFunc([]features.Config{pick, n}, func(c features.Config) bool { return slices.Equal(c, a) || slices.Equal(c, b) }) {
			shape, next, near0, near1 = s, n, a, b
			break
		}
	}
	if shape == nil {
		t.Fatal("no shape tells the candidates apart")
	}
	// The pick unlisted, the first nearby best slow, the climb's next and
	// the second nearby best fastest: the rule must pick the climb's next.
	b, err := features.ReadBundle(data)
	if err != nil {
		t.Fatal(err)
	}
	m := &b.Models[slices.IndexFunc(b.Models, func(m features.Model) bool { return m.Name == plain.model.Name })]
	m.Consensus = &features.Consensus{ConsensusRule: features.ConsensusRule{Candidates: 3, Nearest: 5, Tau: 1, Unlisted: 0.1},
		Shapes: []features.Task{shape}, Configs: [][]int{{0, 1, 2}}, Speeds: [][]float64{{0.6, 1, 1}},
		Pool: []features.Config{near0, next, near1}}
	ch, err := FromBundle(b, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := ch.Choose(shape)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, next) {
		t.Errorf("Choose(%v) = %v, want the climb's next best %v (nearby bests %v, %v)", shape, got, next, near0, near1)
	}
}
