package runtime_test

import (
	"os"
	"slices"
	"testing"

	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/runtime"
)

// consensusShape is the shape the rule's tests choose for: near
// consensusAt, the one training shape of their tables.
var (
	consensusShape = features.Task{1000, 700, 5, 5}
	consensusAt    = features.Task{1024, 768, 5, 5}
)

// benchData returns benchBundle's bytes and a Chooser of them as shipped.
func benchData(t *testing.T) ([]byte, *runtime.Chooser) {
	t.Helper()
	data, err := os.ReadFile(benchBundle)
	if err != nil {
		t.Fatal(err)
	}
	ch, err := runtime.New(data, runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return data, ch
}

// withConsensus returns a Chooser of the bundle data whose model carries a
// rule listing the configurations of pool at consensusAt with speed(i) (0:
// unlisted), and held-out figures of 99.5% and 97.5%.
func withConsensus(t *testing.T, data []byte, pool []features.Config, speed func(i int) float64) *runtime.Chooser {
	t.Helper()
	b, err := features.ReadBundle(data)
	if err != nil {
		t.Fatal(err)
	}
	c := &features.Consensus{ConsensusRule: features.ConsensusRule{Candidates: 3, Nearest: 5, Tau: 1, Unlisted: 0.1},
		Shapes: []features.Task{consensusAt}, Configs: [][]int{nil}, Speeds: [][]float64{nil}}
	for i, cfg := range pool {
		if v := speed(i); v > 0 {
			c.Configs[0] = append(c.Configs[0], len(c.Pool))
			c.Speeds[0] = append(c.Speeds[0], v)
			c.Pool = append(c.Pool, cfg)
		}
	}
	m := &b.Models[0]
	m.Consensus = c
	m.Stats["holdout_consensus_pct_geomean"], m.Stats["holdout_consensus_pct_worst"] = 99.5, 97.5
	ch, err := runtime.FromBundle(b, runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return ch
}

// TestConsensus: a model carrying the nearest-shape rule picks, among its
// first configurations, the one the nearest training shapes list fastest,
// and expects the rule's held-out figures; Candidates starts with that
// pick.
func TestConsensus(t *testing.T) {
	data, plain := benchData(t)
	pick, err := plain.Choose(consensusShape)
	if err != nil {
		t.Fatal(err)
	}
	b, err := features.ReadBundle(data)
	if err != nil {
		t.Fatal(err)
	}
	pool := b.Models[0].Known
	tests := []struct {
		name string
		// pickSpeed is the pick's listed speed, 0 for unlisted; every
		// other known configuration is listed at 0.5.
		pickSpeed float64
		same      bool
	}{
		{"the shapes list the pick fastest", 1, true},
		{"the shapes do not list the pick", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ch := withConsensus(t, data, pool, func(i int) float64 {
				if slices.Equal(pool[i], pick) {
					return tt.pickSpeed
				}
				return 0.5
			})
			p, err := ch.ChoosePick(consensusShape)
			if err != nil {
				t.Fatal(err)
			}
			if p.ExpectedPct != 99.5 || p.WorstPct != 97.5 {
				t.Errorf("ExpectedPct, WorstPct = %g, %g; want the rule's 99.5, 97.5", p.ExpectedPct, p.WorstPct)
			}
			if slices.Equal(p.Config, pick) != tt.same {
				t.Errorf("Choose = %v, the model's own pick %v: want the same %v", p.Config, pick, tt.same)
			}
			cands, err := ch.Candidates(consensusShape, 3)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(cands[0].Config, p.Config) {
				t.Errorf("Candidates start with %v, Choose returned %v", cands[0].Config, p.Config)
			}
		})
	}
}

// TestConsensusCandidates: a model carrying the rule gathers 8 candidates
// and orders those after the pick by the rule, so that the one the nearby
// shapes list fastest comes second even when the model ranked it last.
func TestConsensusCandidates(t *testing.T) {
	data, plain := benchData(t)
	cands, err := plain.Candidates(consensusShape, 8)
	if err != nil {
		t.Fatal(err)
	}
	if len(cands) < 8 {
		t.Fatalf("%d candidates, want 8", len(cands))
	}
	var pool []features.Config
	for _, p := range cands {
		pool = append(pool, p.Config)
	}
	// The pick and the model's last candidate ran fastest nearby; every
	// other one at half speed.
	ch := withConsensus(t, data, pool, func(i int) float64 {
		if i == 0 || i == 7 {
			return 1
		}
		return 0.5
	})
	got, err := ch.Candidates(consensusShape, 3)
	if err != nil {
		t.Fatal(err)
	}
	want := []features.Config{pool[0], pool[7], pool[1]}
	if len(got) != 3 {
		t.Fatalf("%d candidates, want 3", len(got))
	}
	for i := range want {
		if !slices.Equal(got[i].Config, want[i]) {
			t.Errorf("candidate %d = %v, want %v", i, got[i].Config, want[i])
		}
	}
}

// BenchmarkChooseConsensus times Choose for a shape not seen before at
// every call on benchBundle given a nearest-shape rule whose table lists
// 256 known configurations at each of its training shapes (the most
// training writes a shape), against the same bundle without it: what the
// rule adds to a cold pick. The speeds are made up (1 down to 0.5); the
// work does not depend on them.
func BenchmarkChooseConsensus(b *testing.B) {
	data, err := os.ReadFile(benchBundle)
	if err != nil {
		b.Fatal(err)
	}
	for _, rule := range []bool{false, true} {
		bundle, err := features.ReadBundle(data)
		if err != nil {
			b.Fatal(err)
		}
		if rule {
			m := &bundle.Models[0]
			n := min(256, len(m.Known))
			c := &features.Consensus{ConsensusRule: features.ConsensusRule{Candidates: 3, Nearest: 5, Tau: 1, Unlisted: 0.1},
				Pool: m.Known[:n]}
			for _, sh := range bundle.TrainShapes {
				c.Shapes = append(c.Shapes, sh)
				var idx []int
				var speeds []float64
				for i := range n {
					idx = append(idx, i)
					speeds = append(speeds, 1-0.5*float64(i)/float64(n))
				}
				c.Configs, c.Speeds = append(c.Configs, idx), append(c.Speeds, speeds)
			}
			m.Consensus = c
		}
		ch, err := runtime.FromBundle(bundle, runtime.Options{})
		if err != nil {
			b.Fatal(err)
		}
		name := "without"
		if rule {
			name = "with"
		}
		b.Run(name, func(b *testing.B) { benchCold(b, ch) })
	}
}
