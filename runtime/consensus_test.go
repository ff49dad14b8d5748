package runtime_test

import (
	"os"
	"slices"
	"testing"

	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/runtime"
)

// TestConsensus: a model carrying the nearest-shape rule picks, among its
// first configurations, the one the nearest training shapes list fastest;
// Candidates starts with that pick.
func TestConsensus(t *testing.T) {
	data, err := os.ReadFile(benchBundle)
	if err != nil {
		t.Fatal(err)
	}
	shape := features.Task{1000, 700, 5, 5}
	plain, err := runtime.New(data, runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	pick, err := plain.Choose(shape)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		// pickSpeed is the pick's listed speed at the one training shape,
		// 0 for unlisted; every other known configuration is listed at 0.5.
		pickSpeed float64
		same      bool
	}{
		{"the shapes list the pick fastest", 1, true},
		{"the shapes do not list the pick", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := features.ReadBundle(data)
			if err != nil {
				t.Fatal(err)
			}
			m := &b.Models[0]
			c := &features.Consensus{ConsensusRule: features.ConsensusRule{Candidates: 3, Nearest: 5, Tau: 1, Unlisted: 0.1},
				Shapes: []features.Task{{1024, 768, 5, 5}}, Configs: [][]int{nil}, Speeds: [][]float64{nil}}
			for _, k := range m.Known {
				v := 0.5
				if slices.Equal(k, pick) {
					if tt.pickSpeed == 0 {
						continue
					}
					v = tt.pickSpeed
				}
				c.Configs[0] = append(c.Configs[0], len(c.Pool))
				c.Speeds[0] = append(c.Speeds[0], v)
				c.Pool = append(c.Pool, k)
			}
			m.Consensus = c
			m.Stats["holdout_consensus_pct_geomean"], m.Stats["holdout_consensus_pct_worst"] = 99.5, 97.5
			ch, err := runtime.FromBundle(b, runtime.Options{})
			if err != nil {
				t.Fatal(err)
			}
			p, err := ch.ChoosePick(shape)
			if err != nil {
				t.Fatal(err)
			}
			got := p.Config
			if p.ExpectedPct != 99.5 || p.WorstPct != 97.5 {
				t.Errorf("ExpectedPct, WorstPct = %g, %g; want the rule's 99.5, 97.5", p.ExpectedPct, p.WorstPct)
			}
			if slices.Equal(got, pick) != tt.same {
				t.Errorf("Choose = %v, the model's own pick %v: want the same %v", got, pick, tt.same)
			}
			cands, err := ch.Candidates(shape, 3)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(cands[0].Config, got) {
				t.Errorf("Candidates start with %v, Choose returned %v", cands[0].Config, got)
			}
		})
	}
}

// TestConsensusCandidates: a model carrying the rule gathers 8 candidates
// and orders those after the pick by the rule, so that the one the nearby
// shapes list fastest comes second even when the model ranked it last.
func TestConsensusCandidates(t *testing.T) {
	data, err := os.ReadFile(benchBundle)
	if err != nil {
		t.Fatal(err)
	}
	shape := features.Task{1000, 700, 5, 5}
	plain, err := runtime.New(data, runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cands, err := plain.Candidates(shape, 8)
	if err != nil {
		t.Fatal(err)
	}
	if len(cands) < 8 {
		t.Fatalf("%d candidates, want 8", len(cands))
	}
	b, err := features.ReadBundle(data)
	if err != nil {
		t.Fatal(err)
	}
	// The pick and the model's last candidate ran fastest nearby; every
	// other one at half speed.
	c := &features.Consensus{ConsensusRule: features.ConsensusRule{Candidates: 3, Nearest: 5, Tau: 1, Unlisted: 0.1},
		Shapes: []features.Task{{1024, 768, 5, 5}}, Configs: [][]int{nil}, Speeds: [][]float64{nil}}
	for i, p := range cands {
		v := 0.5
		if i == 0 || i == 7 {
			v = 1
		}
		c.Configs[0] = append(c.Configs[0], i)
		c.Speeds[0] = append(c.Speeds[0], v)
		c.Pool = append(c.Pool, p.Config)
	}
	b.Models[0].Consensus = c
	ch, err := runtime.FromBundle(b, runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := ch.Candidates(shape, 3)
	if err != nil {
		t.Fatal(err)
	}
	want := []features.Config{cands[0].Config, cands[7].Config, cands[1].Config}
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
