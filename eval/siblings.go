package eval

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/runtime"
	"github.com/augur-tuning/augur/train"
)

// ChooseSiblings chooses, for each device of bundle b that its own model
// serves, how the runtime picks at a shape the device did not measure but
// another device of its type did (features.SiblingChoice, set on the
// device's Model): copy that device's best of the very shape, or search
// the device's model. d is the data b was trained on.
//
// It scores the copies on the device's own shapes that another device of
// its type measured too: each such shape is removed from the device's
// measured bests and the runtime picks for it as it would at a new shape;
// the pick is judged by the device's measurements (or its own model, for
// a configuration it did not measure). Copying is chosen when those picks
// did at least as well as the device's model did on held-out shapes (its
// learner selection's figure, Model.Stats["holdout_pct_geomean"], the
// nearest-shape rule's where the model carries it). A device with fewer
// than two such shapes, or no held-out figure, gets no choice: it
// searches.
func ChooseSiblings(b *features.Bundle, d *train.Data) error {
	for i := range b.Models {
		m := &b.Models[i]
		m.Siblings = nil
		if m.Platform == nil || m.Name == train.FleetModel || (m.Pool != nil && m.Pool.Fleet) {
			continue
		}
		own := m.Stats["holdout_pct_geomean"]
		if m.Consensus != nil && m.Stats["holdout_consensus_pct_geomean"] > 0 {
			own = m.Stats["holdout_consensus_pct_geomean"]
		}
		if !(own > 0) {
			continue
		}
		c, err := siblingCopies(b, d, i)
		if err != nil {
			return err
		}
		if c == nil {
			continue
		}
		c.OwnPct = own
		c.Copy = c.CopyPct >= own
		m.Siblings = c
	}
	return nil
}

// siblingCopies scores, for model i of b, the runtime's copies at the
// device's shapes that another device of its type measured; nil with fewer
// than two such shapes.
func siblingCopies(b *features.Bundle, d *train.Data, i int) (*features.SiblingChoice, error) {
	m := b.Models[i]
	pi := slices.IndexFunc(d.Platforms, func(p features.Platform) bool { return p.Slug() == m.Name })
	if pi < 0 {
		return nil, nil
	}
	var rows []int
	for r, s := range d.Samples() {
		if s.Platform == pi {
			rows = append(rows, r)
		}
	}
	measured := map[features.TaskKey]bool{} // shapes another device of the type measured
	for _, e := range b.Measured {
		if !strings.EqualFold(e.Device, m.Name) && b.MeasuredType(e) == m.Platform.Type {
			measured[e.Task.Key()] = true
		}
	}
	sc, err := newShapeScores(d.Subset(rows))
	if err != nil {
		return nil, err
	}
	var shared []*shapeScore
	for _, s := range sc.shapes {
		if measured[s.task.Key()] {
			shared = append(shared, s)
		}
	}
	if len(shared) < 2 {
		return nil, nil
	}
	sum := 0.0
	for _, s := range shared {
		// The device as if it had not measured the shape, copying.
		mb := *b
		mb.Models = slices.Clone(b.Models)
		mb.Models[i].Siblings = &features.SiblingChoice{Copy: true}
		mb.Measured = slices.DeleteFunc(slices.Clone(b.Measured), func(e features.MeasuredBest) bool {
			return strings.EqualFold(e.Device, m.Name) && slices.Equal(e.Task, s.task)
		})
		ch, err := runtime.FromBundle(&mb, runtime.Options{Device: m.Name})
		if err != nil {
			return nil, fmt.Errorf("eval: siblings of %s: %w", m.Name, err)
		}
		c, err := ch.Choose(s.task)
		if err != nil {
			return nil, fmt.Errorf("eval: siblings of %s: %w", m.Name, err)
		}
		pct, _ := sc.score(s, c)
		sum += math.Log(pct)
	}
	return &features.SiblingChoice{CopyPct: math.Exp(sum / float64(len(shared))), Shapes: len(shared)}, nil
}
