package train

import (
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
	byFold := func(folds [][]int) [][]int { return folds }
	sel, preds, err := scoreDeals(d, cands, deals, byFold, maxCost, budget, workers, opt, "configurations")
	if err != nil {
		return Candidate{}, Selection{}, err
	}
	cands, _ = scoreBlends(d, cands, deals, preds, byFold, maxCost, &sel)
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
