package train

import (
	"maps"
	"math"
	"slices"

	"github.com/augur-tuning/augur/features"
)

// FixedScore is one fixed configuration's picks on the selection's
// held-out shapes beside the model's (Selection.Fixed): in each fold, the
// configuration fastest over the fold's training shapes (fixedIndex),
// judged on its held-out shapes.
type FixedScore struct {
	// PctGeomean and PctWorst are the fixed configuration's picks as
	// PickScore's are; ModelPctGeomean and ModelPctWorst the model's on
	// the same shapes, re-ranked by the nearest-shape rule where the
	// model carries it.
	PctGeomean      float64 `json:"pct_geomean"`
	PctWorst        float64 `json:"pct_worst"`
	ModelPctGeomean float64 `json:"model_pct_geomean"`
	ModelPctWorst   float64 `json:"model_pct_worst"`
	// Picks counts the held-out picks scored: a shape a deal where the
	// fold's fixed configuration ran (one not measured there is left out
	// on both sides).
	Picks int `json:"picks"`
	// Applied says the fixed configuration picked better, by more than
	// FixedMargin points of geometric mean, so the model carries it
	// (features.Model.Fixed).
	Applied bool `json:"applied"`
}

// FixedMargin is how many points of geometric mean the fixed
// configuration's held-out picks must beat the model's by for the model to
// carry it, as PoolMargin for the fleet model: leaving each of the H100's
// 28 conv2d shapes out of its own rows, one fold's selection scored it
// 0.13 points above the model and served it, and that shape's pick fell
// from 83.5% to 75.3% (bench/RESULTS.md, session 30), where transpose's
// won by a point.
const FixedMargin = 0.5

// fixedMinShare is the least share of the held-out picks on which the
// fold's fixed configuration must have been measured for its score to
// count: on data sampled anew for each shape, it seldom is.
const fixedMinShare = 0.5

// speedMaps returns each group's listed speeds (groupSpeeds) by Space
// index.
func speedMaps(speeds []shapeSpeeds) []map[int]float64 {
	out := make([]map[int]float64, len(speeds))
	for g, s := range speeds {
		out[g] = make(map[int]float64, len(s.index))
		for i, x := range s.index {
			out[g][x] = s.speeds[i]
		}
	}
	return out
}

// fixedIndex returns the Space index of the configuration listed by any of
// groups whose speed has the highest geometric mean over them, a group
// that does not list it counting it at the nearest-shape rule's tenth of
// its fastest (ties to the smallest index); -1 when no group lists one.
func fixedIndex(speeds []map[int]float64, groups []int) int {
	cands := map[int]bool{}
	for _, g := range groups {
		for x := range speeds[g] {
			cands[x] = true
		}
	}
	best, bx := math.Inf(-1), -1
	for _, x := range slices.Sorted(maps.Keys(cands)) {
		s := 0.0
		for _, g := range groups {
			v, ok := speeds[g][x]
			if !ok {
				v = DefaultConsensus.Unlisted
			}
			s += math.Log(v)
		}
		if s > best {
			best, bx = s, x
		}
	}
	return bx
}

// scoreFixed scores a fixed configuration on the held-out shapes of every
// deal beside the chosen learner's held-out predictions (pred, one a
// deal), as the runtime would serve either: the model's pick re-ranked by
// rule when withRule. Nil when d's rows are of several devices, or when
// the fold's fixed configuration was measured on fewer than
// fixedMinShare of the held-out shapes.
func scoreFixed(d *Data, deals [][][]int, pred [][]float64, rule features.ConsensusRule, withRule bool) *FixedScore {
	space, groups, speeds, ok := heldOutShapes(d, deals, pred)
	if !ok {
		return nil
	}
	byIndex := speedMaps(speeds)
	s := FixedScore{PctWorst: 100, ModelPctWorst: 100}
	var fixedLogs, modelLogs []float64
	all := 0
	eachFold(groups, speeds, deals, func(k int, train []int, logs features.LogShapes, heldOut []int) {
		x := fixedIndex(byIndex, train)
		for _, g := range heldOut {
			all++
			fastest, at := math.Inf(1), -1
			for _, i := range groups[g] {
				fastest = min(fastest, d.Sample(i).TimeNs)
				if space.Index(d.Sample(i).Config) == x {
					at = i
				}
			}
			if x < 0 || at < 0 {
				continue
			}
			model, ruled, _ := consensusPick(d, space, groups[g], pred[k], speeds, train, logs, rule)
			if withRule {
				model = ruled
			}
			fixed := 100 * fastest / d.Sample(at).TimeNs
			fixedLogs, modelLogs = append(fixedLogs, math.Log(fixed)), append(modelLogs, math.Log(model))
			s.PctWorst, s.ModelPctWorst = min(s.PctWorst, fixed), min(s.ModelPctWorst, model)
		}
	})
	if len(fixedLogs) == 0 || float64(len(fixedLogs)) < fixedMinShare*float64(all) {
		return nil
	}
	s.Picks = len(fixedLogs)
	s.PctGeomean, s.ModelPctGeomean = min(100, math.Exp(mean(fixedLogs))), min(100, math.Exp(mean(modelLogs)))
	s.Applied = s.PctGeomean > s.ModelPctGeomean+FixedMargin
	return &s
}

// fixedPick returns the fixed configuration of all of d's shapes (one
// device's rows), with score's held-out figures, for the model's bundle;
// nil when no shape lists one.
func fixedPick(d *Data, score *FixedScore) *features.FixedPick {
	space, err := features.NewSpace(d.Params, nil)
	if err != nil {
		return nil
	}
	groups := d.measuredByShape()
	speeds := groupSpeeds(d, space, groups)
	all := make([]int, len(groups))
	for g := range groups {
		all[g] = g
	}
	x := fixedIndex(speedMaps(speeds), all)
	if x < 0 {
		return nil
	}
	for _, s := range speeds {
		if i := slices.Index(s.index, x); i >= 0 {
			return &features.FixedPick{Config: d.Sample(s.rows[i]).Config.Clone(),
				PctGeomean: score.PctGeomean, PctWorst: score.PctWorst, ModelPctGeomean: score.ModelPctGeomean}
		}
	}
	return nil
}
