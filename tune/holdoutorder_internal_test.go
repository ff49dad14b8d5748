package tune

import (
	"math/rand/v2"
	"testing"

	"github.com/augur-tuning/augur/features"
)

// TestHoldoutOrder places the chosen and the reference configuration
// among the sample where the seed says, keeps every configuration once,
// and does not put the chosen one first every time.
func TestHoldoutOrder(t *testing.T) {
	chosen, ref := features.Config{100}, features.Config{200}
	var sample []features.Config
	for i := range 20 {
		sample = append(sample, features.Config{i})
	}
	firsts := 0
	for seed := range uint64(50) {
		list, c, r := holdoutOrder(chosen, ref, sample, rand.New(rand.NewPCG(seed, 1)))
		if len(list) != len(sample)+2 || !list[c].Equal(chosen) || !list[r].Equal(ref) {
			t.Fatalf("seed %d: chosen at %d, reference at %d of %v", seed, c, r, list)
		}
		seen := map[int]bool{}
		for _, cfg := range list {
			if seen[cfg[0]] {
				t.Fatalf("seed %d: %v twice", seed, cfg)
			}
			seen[cfg[0]] = true
		}
		again, c2, _ := holdoutOrder(chosen, ref, sample, rand.New(rand.NewPCG(seed, 1)))
		if c2 != c || len(again) != len(list) {
			t.Fatalf("seed %d: the same seed put chosen at %d, then %d", seed, c, c2)
		}
		if c == 0 {
			firsts++
		}
	}
	if firsts > 10 {
		t.Errorf("chosen first for %d of 50 seeds", firsts)
	}
}
