package train

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/augur-tuning/augur/features"
)

// PoolMargin is how many points the fleet model's held-out picks on a
// device's shapes must beat the device's own model's by for the fleet
// model to serve the device: the selection's margin (Select), with the
// device's own model, the product's default, in the cheaper one's place.
const PoolMargin = 0.5

// PoolMaxShapes is the most shapes a device may have for the fleet model
// to serve it: with more, the device's own model serves it whatever the
// choice's figures say. Measured (bench/RESULTS.md, session 18): the fleet
// model picked worse than, or as well as, the own model on every device
// of 6 shapes or more (by 0.1 to 4.4 points) and better on those of 2 and
// 3 (by 20.5 and 4.4), and where a device had many shapes the choice's
// own noise took the fleet model on folds where it picked worse (the
// H200 of 13 shapes: 0.5 point lost at any margin up to 3.7 points, which
// would also lose the 3-shape H100's gain).
const PoolMaxShapes = 4

// PoolOptions configure ChoosePool and PoolChoices. The zero value makes
// the choices alone: a device of more than PoolMaxShapes shapes keeps its
// own model whatever the figures say, so neither model is refitted for it
// and its choice records its shapes and no figures.
type PoolOptions struct {
	// Figures scores both models on every device, also on one of more
	// than PoolMaxShapes shapes, whose choice the figures cannot change:
	// its PoolChoice then carries them as a smaller device's does. It
	// costs, on every fold of the shapes, the fleet model's refit and the
	// device's own. false (the zero value): such a device's PoolChoice has
	// Shapes alone (the figures 0, the fleet model not serving), and when
	// no device has PoolMaxShapes shapes or fewer nothing is refitted.
	Figures bool
}

// ChoosePool chooses, for each device of a bundle of several (b and rep
// from TrainData on d), between the device's own model and the fleet
// model (PoolChoices with opt), and records the choice and its figures on
// the device's model (features.Model.Pool). With one device, or a single
// shape, it records nothing.
func ChoosePool(b *features.Bundle, d *Data, rep *Report, opt PoolOptions) error {
	if len(rep.Platforms) < 2 || len(rep.Models) != len(rep.Platforms)+1 || len(b.Models) != len(rep.Models) {
		return nil
	}
	choices, err := PoolChoices(d, rep.Models[:len(rep.Platforms)], rep.Models[len(rep.Platforms)], opt)
	if err != nil {
		return err
	}
	for pi, c := range choices {
		b.Models[pi].Pool = c
	}
	return nil
}

// PoolScored says, for each platform pi of d with a report own[pi] (as
// PoolChoices takes them), whether PoolChoices with opt scores the
// device's own model and the fleet model on its shapes: a device with a
// fitted model and measured rows, of at most PoolMaxShapes shapes unless
// opt.Figures. A caller that fits the fleet model only for the choice
// (eval's folds) needs it only when one of them is true.
func PoolScored(d *Data, own []ModelReport, opt PoolOptions) []bool {
	shapes := poolShapes(d)
	out := make([]bool, len(own))
	for pi := range own {
		out[pi] = own[pi].fitted.learner != nil && pi < len(shapes) && shapes[pi] > 0 &&
			(opt.Figures || shapes[pi] <= PoolMaxShapes)
	}
	return out
}

// poolShapes counts the measured shapes of each platform of d.
func poolShapes(d *Data) []int {
	n := make([]int, len(d.Platforms))
	for _, g := range d.measuredByShape() {
		n[d.Sample(g[0]).Platform]++
	}
	return n
}

// PoolChoices compares, for each platform pi of d with a report own[pi]
// (of TrainData, FitBundle or FitFleetBundle; the zero ModelReport skips
// the platform), the device's own model with the fleet model whose report
// is fleet, and returns the choices, nil for a platform skipped or
// without measured rows, and all nil when d has a single shape. Each
// model is refitted with the learner it was fitted with (not selected
// anew) on all but one fold of d's shapes, a shape being held out of
// every device's rows (a shape the device has not seen is unseen by the
// fleet too), and predicts the device's measured rows of the held-out
// fold; each (device, shape) is scored by its top-1 pick as the
// selection scores candidates. The fleet model serves a device of at most
// PoolMaxShapes shapes whose geometric mean it raises by more than
// PoolMargin points. A device of more shapes is scored only with
// opt.Figures (PoolScored); otherwise its choice holds its shapes alone.
// The fleet model is refitted only on the folds that hold a scored
// device's shapes: fleet may be the zero ModelReport when no device is
// scored.
func PoolChoices(d *Data, own []ModelReport, fleet ModelReport, opt PoolOptions) ([]*features.PoolChoice, error) {
	out := make([]*features.PoolChoice, len(own))
	fold, n := taskFolds(d, 6)
	if n < 2 {
		return out, nil
	}
	scored := PoolScored(d, own, opt)
	shapes := poolShapes(d)
	for pi := range own {
		if !scored[pi] && own[pi].fitted.learner != nil && pi < len(shapes) && shapes[pi] > 0 {
			// Above PoolMaxShapes: its own model serves it whatever the
			// figures would say.
			out[pi] = &features.PoolChoice{Shapes: shapes[pi]}
		}
	}
	if !slices.Contains(scored, true) {
		return out, nil
	}
	ownPred := make([]float64, d.Len())   // each device's own model's held-out predictions
	fleetPred := make([]float64, d.Len()) // the fleet model's
	buf := &fitBuffers{}
	for k := range n {
		// Every row of the other folds trains (failed ones too, when
		// they have a stand-in target); the measured rows of fold k are
		// scored.
		var rest, held []int
		for i, s := range d.Samples() {
			switch {
			case fold[i] != k:
				rest = append(rest, i)
			case s.Measured() && s.Platform < len(own) && scored[s.Platform]:
				held = append(held, i)
			}
		}
		if len(held) == 0 {
			continue
		}
		r, err := refit(fleet, d, rest, buf)
		if err != nil {
			return nil, err
		}
		predictRows(d, r, held, fleetPred)
		for pi := range own {
			if !scored[pi] {
				continue
			}
			mine, heldMine := onPlatform(d, rest, pi), onPlatform(d, held, pi)
			if len(heldMine) == 0 || len(mine) == 0 {
				// A device with no rows outside the fold has no model of
				// its own there: its predictions stay 0 and its pick is
				// the shape's first row, a blind one.
				continue
			}
			r, err := refit(own[pi], d, mine, buf)
			if err != nil {
				return nil, err
			}
			predictRows(d, r, heldMine, ownPred)
		}
	}
	groups := d.measuredByShape()
	for pi := range own {
		if !scored[pi] {
			continue
		}
		var mine [][]int
		for _, g := range groups {
			if d.Sample(g[0]).Platform == pi {
				mine = append(mine, g)
			}
		}
		var o, f PickScore
		scoreGroups(d, mine, ownPred, &o)
		scoreGroups(d, mine, fleetPred, &f)
		c := &features.PoolChoice{OwnPct: o.PctGeomean, FleetPct: f.PctGeomean, OwnWorst: o.PctWorst, FleetWorst: f.PctWorst, Shapes: len(mine)}
		for _, g := range mine {
			switch po, pf := pickPct(d, g, ownPred), pickPct(d, g, fleetPred); {
			case pf > po:
				c.FleetWins++
			case po > pf:
				c.OwnWins++
			}
		}
		c.Fleet = fleetServes(c)
		out[pi] = c
	}
	return out, nil
}

// fleetServes is the rule of PoolChoices: the fleet model serves a device
// of at most PoolMaxShapes shapes on which it picks better than the
// device's own model by more than PoolMargin points.
func fleetServes(c *features.PoolChoice) bool {
	return c.Shapes <= PoolMaxShapes && c.FleetPct > c.OwnPct+PoolMargin
}

// refit fits m's learner, as resolved when m was fitted, on rows of d.
func refit(m ModelReport, d *Data, rows []int, buf *fitBuffers) (Regressor, error) {
	if m.fitted.learner == nil {
		return nil, fmt.Errorf("train: model report %q records no fitted learner", m.Name)
	}
	r, err := fitRowsWith(m.fitted.learner, d, rows, buf)
	if err != nil {
		return nil, fmt.Errorf("train: model %s: %w", m.Name, err)
	}
	return r, nil
}

// predictRows writes r's prediction of each row of rows into pred.
func predictRows(d *Data, r Regressor, rows []int, pred []float64) {
	var x []float64
	for _, i := range rows {
		x = d.AppendRow(x[:0], i)
		pred[i] = r.Predict(x)
	}
}

// onPlatform returns the rows of rows on platform pi.
func onPlatform(d *Data, rows []int, pi int) []int {
	var out []int
	for _, i := range rows {
		if d.Sample(i).Platform == pi {
			out = append(out, i)
		}
	}
	return out
}

// taskFolds deals d's tasks into at most n folds, every device's rows of
// a task in one fold, the tasks in order of size dealt round-robin as
// shapeFolds deals shapes. It returns each row's fold and the number of
// folds.
func taskFolds(d *Data, n int) ([]int, int) {
	index := map[features.TaskKey]int{}
	var tasks []features.Task
	for _, s := range d.Samples() {
		if _, ok := index[s.Task.Key()]; !ok {
			index[s.Task.Key()] = len(tasks)
			tasks = append(tasks, s.Task)
		}
	}
	order := make([]int, len(tasks))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(shapeSize(tasks[a]), shapeSize(tasks[b])) })
	n = min(n, len(tasks))
	foldOf := make([]int, len(tasks))
	for i, t := range order {
		foldOf[t] = i % n
	}
	fold := make([]int, d.Len())
	for i, s := range d.Samples() {
		fold[i] = foldOf[index[s.Task.Key()]]
	}
	return fold, n
}
