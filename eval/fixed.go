package eval

import (
	"math"
	"slices"
)

// fixedConfig is the configuration a library without a model would ship:
// among those that ran on every group of train, the one whose speed as a
// fraction of each group's best has the highest geometric mean (ties to
// the first name in order). ok is false when train is empty or no
// configuration ran on every group.
func fixedConfig(train []*group) (name string, ok bool) {
	if len(train) == 0 {
		return "", false
	}
	names := make([]string, 0, len(train[0].times))
	for n := range train[0].times {
		names = append(names, n)
	}
	slices.Sort(names)
	best := math.Inf(-1)
	for _, n := range names {
		sum := 0.0
		for _, g := range train {
			t, ran := g.times[n]
			if !ran {
				sum = math.Inf(-1)
				break
			}
			sum += math.Log(g.bestNs / t)
		}
		if sum > best {
			name, best, ok = n, sum, true
		}
	}
	return name, ok
}

// fixedPct judges fixedConfig(train) on g: its speed as % of g's best; a
// configuration that failed on g counts as the reference, as a failed pick
// does. ok is false when there is no such configuration or g did not
// record it.
func fixedPct(train []*group, g *group) (pct float64, ok bool) {
	name, ok := fixedConfig(train)
	if !ok {
		return 0, false
	}
	if t, ran := g.times[name]; ran {
		return 100 * g.bestNs / t, true
	}
	if g.failed[name] && g.refNs > 0 {
		return 100 * g.bestNs / g.refNs, true
	}
	return 0, false
}
