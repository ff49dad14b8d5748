package train

import (
	"math"
	"math/rand/v2"
	"slices"
	"time"
)

// oneShapeFolds is the number of folds of configurations Select scores
// candidates on when d holds one shape.
const oneShapeFolds = 5

// selectOne is Select for data of one shape, where there is no shape to
// hold out: the shape's measured configurations are dealt at random into
// folds (oneShapeFolds, fewer when there are fewer than two rows a fold),
// each candidate is fitted on every other row and scored by its top-1
// pick among each held-out fold, as % of that fold's fastest
// configuration; a candidate's PctGeomean is the geometric mean over the
// folds (and over opt.Repeats deals), PctWorst the worst fold's. What a
// fold scores is what the runtime does on a new shape: pick the
// configuration the model ranks first among ones it has not measured.
// Blends, the cost bound, the budget and the choice among near ties are
// those of Select. With fewer than 4 measured rows the first candidate
// within the cost bound is chosen unscored.
func selectOne(d *Data, cands []Candidate, maxCost, workers int, budget time.Duration, opt SelectOptions) (Candidate, Selection, error) {
	var rows []int
	for _, g := range d.measuredByShape() {
		rows = append(rows, g...)
	}
	k := min(oneShapeFolds, len(rows)/2)
	if k < 2 {
		c := cands[slices.IndexFunc(cands, func(c Candidate) bool { return c.Cost <= maxCost })]
		return c, Selection{Chosen: c.Name}, nil
	}
	deals := configDeals(rows, k, max(opt.Repeats, 1), opt.Seed)
	pool := make(chan *fitBuffers, workers) // one set of buffers a worker, as in Select
	for range workers {
		pool <- &fitBuffers{}
	}
	start := time.Now()
	var sel Selection
	var preds [][][]float64 // held-out predictions of each scored candidate in each deal; nil when skipped
	scored := 0
	for i, c := range cands {
		opt.Progress.report(i, len(cands), "selecting the learner: "+c.Name+" on held-out configurations")
		skip := ""
		switch {
		case c.Cost > maxCost:
			skip = SkippedCost
		case scored > 0 && time.Since(start) > budget:
			skip = SkippedBudget
		}
		if skip != "" {
			sel.Scores = append(sel.Scores, PickScore{Name: c.Name, Cost: c.Cost, Skipped: skip})
			preds = append(preds, nil)
			continue
		}
		var per []PickScore
		var pred [][]float64
		for _, folds := range deals {
			s, p, err := scoreCandidate(d, folds, c, pool)
			if err != nil {
				return Candidate{}, Selection{}, err
			}
			scoreFolds(d, folds, p, &s)
			per = append(per, s)
			pred = append(pred, p)
		}
		sel.Scores = append(sel.Scores, meanScore(per))
		preds = append(preds, pred)
		scored++
	}
	n := len(cands)
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			b := BlendCandidate(cands[i], cands[j])
			if preds[i] == nil || preds[j] == nil || b.Cost > maxCost {
				continue
			}
			var per []PickScore
			for k, folds := range deals {
				mean := make([]float64, d.Len())
				for r := range mean {
					mean[r] = (preds[i][k][r] + preds[j][k][r]) / 2
				}
				s := PickScore{Name: b.Name, Cost: b.Cost}
				scoreFolds(d, folds, mean, &s)
				per = append(per, s)
			}
			s := meanScore(per)
			s.FitSeconds = sel.Scores[i].FitSeconds + sel.Scores[j].FitSeconds
			sel.Scores = append(sel.Scores, s)
			cands = append(cands, b)
		}
	}
	chosen := chooseScore(sel.Scores)
	sel.Chosen, sel.HeldOut = cands[chosen].Name, "configurations"
	return cands[chosen], sel, nil
}

// configDeals deals rows (one shape's measured configurations) into k
// folds, repeats times, each in a random order drawn from seed.
func configDeals(rows []int, k, repeats int, seed uint64) [][][]int {
	rng := rand.New(rand.NewPCG(seed, 0x1f83d9abfb41bd6b))
	deals := make([][][]int, repeats)
	for r := range deals {
		order := slices.Clone(rows)
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		folds := make([][]int, k)
		for i, row := range order {
			folds[i%k] = append(folds[i%k], row)
		}
		deals[r] = folds
	}
	return deals
}

// scoreFolds fills s's pick figures from held-out predictions of every row
// of folds: the top-1 pick of each fold as % of the fold's fastest row,
// and the mean rank correlation over the folds. Shapes counts the folds.
func scoreFolds(d *Data, folds [][]int, pred []float64, s *PickScore) {
	var logs []float64
	s.PctWorst = 100
	rho, nRho := 0.0, 0
	for _, rows := range folds {
		pct := pickPct(d, rows, pred)
		logs = append(logs, math.Log(pct))
		s.PctWorst = min(s.PctWorst, pct)
		if len(rows) >= 3 {
			a, b := make([]float64, len(rows)), make([]float64, len(rows))
			for j, i := range rows {
				a[j], b[j] = pred[i], -math.Log(d.Samples[i].TimeNs)
			}
			if r, ok := spearman(a, b); ok {
				rho += r
				nRho++
			}
		}
	}
	s.Shapes = len(logs)
	s.PctGeomean = min(100, math.Exp(mean(logs)))
	s.Spearman = 0
	if nRho > 0 {
		s.Spearman = rho / float64(nRho)
	}
}
