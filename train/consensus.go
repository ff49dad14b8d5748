package train

import (
	"cmp"
	"math"
	"slices"

	"github.com/augur-tuning/augur/features"
)

// DefaultConsensus is the nearest-shape rule Select scores beside the
// chosen learner (features.Consensus): of the model's first 3
// configurations, the one with the best weighted speed over the 5 nearest
// training shapes, weights exp(-distance), a configuration a shape does not
// list counting as a tenth of its best. Leaving each shape out of the H200's
// 31 and the H100's 29 whole-space conv2d shapes, the models that carried
// it where their selection chose so picked at 96.2% and 95.3% of the
// optimum against 95.3% and 91.7% without it; gemm, median and fbcorr
// never carried it, the Xeon in 1 fold of 8 (80.4% against 81.5%)
// (bench/RESULTS.md, "The nearest-shape rule, session 23").
var DefaultConsensus = features.ConsensusRule{Candidates: 3, Nearest: 5, Tau: 1, Unlisted: 0.1}

// consensusSlowest is the slowest a listed configuration may be, as a
// fraction of its shape's fastest, and consensusMax the most a shape lists:
// a configuration slower than half the best scores as unlisted.
const (
	consensusSlowest = 0.5
	consensusMax     = 256
)

// nearBests is how many nearby training shapes' fastest configurations
// compete among the candidates: the runtime's default Options.Starts.
const nearBests = 4

// ConsensusScore is the nearest-shape rule's score on the selection's
// held-out shapes, beside the chosen learner's (Selection.Consensus).
type ConsensusScore struct {
	// PctGeomean and PctWorst are the rule's picks as PickScore's are;
	// ModelPctGeomean and ModelPctWorst the chosen learner's own picks,
	// scored the same way on the same shapes.
	PctGeomean      float64 `json:"pct_geomean"`
	PctWorst        float64 `json:"pct_worst"`
	ModelPctGeomean float64 `json:"model_pct_geomean"`
	ModelPctWorst   float64 `json:"model_pct_worst"`
	// Picks counts the held-out picks, a shape a deal, and Changed those
	// on which the rule picked another configuration than the model.
	Picks   int `json:"picks"`
	Changed int `json:"changed"`
	// Applied says the rule picked better (a higher geometric mean), so
	// the model carries it (features.Model.Consensus).
	Applied bool `json:"applied"`
}

// shapeSpeeds is one (shape, device) group's listed configurations: their
// Space index, row and speed as a fraction of the group's fastest, fastest
// first.
type shapeSpeeds struct {
	task   features.Task
	logs   []float64
	index  []int
	rows   []int
	speeds []float64
	best   int // Space index of the fastest
}

// groupSpeeds lists each group's configurations (rows of one shape) that
// ran within consensusSlowest of its fastest, at most consensusMax, with
// their speeds.
func groupSpeeds(d *Data, space *features.Space, groups [][]int) []shapeSpeeds {
	out := make([]shapeSpeeds, len(groups))
	for g, rows := range groups {
		sorted := slices.Clone(rows)
		slices.SortStableFunc(sorted, func(a, b int) int { return cmp.Compare(d.Sample(a).TimeNs, d.Sample(b).TimeNs) })
		first := d.Sample(sorted[0])
		s := shapeSpeeds{task: first.Task, logs: features.TaskLogs(nil, first.Task), best: space.Index(first.Config)}
		for _, i := range sorted[:min(len(sorted), consensusMax)] {
			v := first.TimeNs / d.Sample(i).TimeNs
			if v < consensusSlowest {
				break
			}
			s.index = append(s.index, space.Index(d.Sample(i).Config))
			s.rows = append(s.rows, i)
			s.speeds = append(s.speeds, v)
		}
		out[g] = s
	}
	return out
}

// speed returns the listed speed of the configuration of Space index x.
func (s *shapeSpeeds) speed(x int) (float64, bool) {
	if i := slices.Index(s.index, x); i >= 0 {
		return s.speeds[i], true
	}
	return 0, false
}

// scoreConsensus scores rule on the held-out shapes of every deal with the
// chosen learner's held-out predictions (pred, one a deal), as the runtime
// would apply it: each held-out shape's candidates are its measured rows
// the model ranks first and second and the fastest configurations of the
// nearBests training shapes nearest it, interleaved as
// runtime.Chooser.Candidates orders them; their speeds come from the
// fold's training shapes alone. Nil when d's rows are of several devices.
func scoreConsensus(d *Data, deals [][][]int, pred [][]float64, rule features.ConsensusRule) *ConsensusScore {
	space, groups, speeds, ok := heldOutShapes(d, deals, pred)
	if !ok {
		return nil
	}
	var s ConsensusScore
	var ruleLogs, modelLogs []float64
	s.PctWorst, s.ModelPctWorst = 100, 100
	eachFold(groups, speeds, deals, func(k int, train []int, logs features.LogShapes, heldOut []int) {
		for _, g := range heldOut {
			model, ruled, changed := consensusPick(d, space, groups[g], pred[k], speeds, train, logs, rule)
			modelLogs = append(modelLogs, math.Log(model))
			ruleLogs = append(ruleLogs, math.Log(ruled))
			s.ModelPctWorst, s.PctWorst = min(s.ModelPctWorst, model), min(s.PctWorst, ruled)
			if changed {
				s.Changed++
			}
		}
	})
	if len(ruleLogs) == 0 {
		return nil
	}
	s.Picks = len(ruleLogs)
	s.PctGeomean, s.ModelPctGeomean = min(100, math.Exp(mean(ruleLogs))), min(100, math.Exp(mean(modelLogs)))
	s.Applied = s.PctGeomean > s.ModelPctGeomean
	return &s
}

// heldOutShapes returns what scoring picks on the held-out shapes of one
// device's rows needs: d's space, its measured shapes (rows of each) and
// their listed speeds (groupSpeeds); ok is false for several devices'
// rows, or held-out predictions (one a deal) that do not match the deals.
func heldOutShapes(d *Data, deals [][][]int, pred [][]float64) (*features.Space, [][]int, []shapeSpeeds, bool) {
	if _, ok := d.onePlatform(); !ok || len(pred) != len(deals) {
		return nil, nil, nil, false
	}
	space, err := features.NewSpace(d.Params, nil)
	if err != nil {
		return nil, nil, nil, false
	}
	groups := d.measuredByShape()
	return space, groups, groupSpeeds(d, space, groups), true
}

// eachFold calls fn for every fold of every deal of the rows into folds,
// with the deal's index, the groups (measured shapes) the fold trains on,
// their shapes' logarithms, and the groups it holds out.
func eachFold(groups [][]int, speeds []shapeSpeeds, deals [][][]int, fn func(deal int, train []int, logs features.LogShapes, heldOut []int)) {
	groupOf := make(map[int]int, len(groups)) // a group's first row -> group
	for g, rows := range groups {
		groupOf[rows[0]] = g
	}
	for k, folds := range deals {
		inFold := make([]int, len(groups))
		for f, rows := range folds {
			for _, i := range rows {
				if g, ok := groupOf[i]; ok {
					inFold[g] = f
				}
			}
		}
		for f := range folds {
			var train, heldOut []int
			var logs features.LogShapes
			for g := range groups {
				if inFold[g] != f {
					train = append(train, g)
					logs = append(logs, speeds[g].logs)
				} else {
					heldOut = append(heldOut, g)
				}
			}
			fn(k, train, logs, heldOut)
		}
	}
}

// consensusPick returns the model's pick on one held-out shape (its
// measured rows) and the rule's, each as % of the shape's fastest row, and
// whether they differ. train are the groups the fold trains on, logs
// their shapes' logarithms.
func consensusPick(d *Data, space *features.Space, rows []int, pred []float64, speeds []shapeSpeeds, train []int, logs features.LogShapes, rule features.ConsensusRule) (float64, float64, bool) {
	byPred := slices.Clone(rows)
	slices.SortStableFunc(byPred, func(a, b int) int { return cmp.Compare(pred[b], pred[a]) })
	fastest := math.Inf(1)
	at := map[int]int{} // Space index -> row
	for _, i := range rows {
		fastest = min(fastest, d.Sample(i).TimeNs)
		at[space.Index(d.Sample(i).Config)] = i
	}
	l := features.TaskLogs(nil, d.Sample(rows[0]).Task)
	// The nearby shapes' fastest configurations measured here, best
	// predicted first.
	var idx [nearBests]int
	var near []int
	for _, j := range idx[:logs.Nearest(l, idx[:])] {
		if i, ok := at[speeds[train[j]].best]; ok && !slices.Contains(near, i) {
			near = append(near, i)
		}
	}
	slices.SortStableFunc(near, func(a, b int) int { return cmp.Compare(pred[b], pred[a]) })
	cands := []int{byPred[0]}
	for i := 0; len(cands) < rule.Candidates && (i < len(near) || i+1 < len(byPred)); i++ {
		if i < len(near) && !slices.Contains(cands, near[i]) && len(cands) < rule.Candidates {
			cands = append(cands, near[i])
		}
		if i+1 < len(byPred) && !slices.Contains(cands, byPred[i+1]) && len(cands) < rule.Candidates {
			cands = append(cands, byPred[i+1])
		}
	}
	w := rule.Pick(logs, l, len(cands), func(s, i int) (float64, bool) {
		return speeds[train[s]].speed(space.Index(d.Sample(cands[i]).Config))
	})
	pct := func(i int) float64 { return 100 * fastest / d.Sample(i).TimeNs }
	return pct(cands[0]), pct(cands[w]), w != 0
}

// consensusTable returns the rule with the listed speeds of every shape of
// d (one device's rows), for the model's bundle.
func consensusTable(d *Data, rule features.ConsensusRule) (*features.Consensus, error) {
	space, err := features.NewSpace(d.Params, nil)
	if err != nil {
		return nil, err
	}
	groups := d.measuredByShape()
	c := &features.Consensus{ConsensusRule: rule}
	pool := map[int]int{} // Space index -> Pool index
	for _, s := range groupSpeeds(d, space, groups) {
		c.Shapes = append(c.Shapes, s.task)
		var cfgs []int
		for j, x := range s.index {
			p, ok := pool[x]
			if !ok {
				p = len(c.Pool)
				pool[x] = p
				c.Pool = append(c.Pool, d.Sample(s.rows[j]).Config.Clone())
			}
			cfgs = append(cfgs, p)
			s.speeds[j] = math.Round(s.speeds[j]*1e4) / 1e4
		}
		c.Configs = append(c.Configs, cfgs)
		c.Speeds = append(c.Speeds, s.speeds)
	}
	return c, nil
}
