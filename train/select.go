package train

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/augur-tuning/augur/features"
)

// Candidate is one learner setting that Select tries.
type Candidate struct {
	// Name identifies the setting in reports, e.g. "gbrt-d8-t150-lr0.1-min5".
	Name string
	// Kind is the learner: "gbrt" or "rf".
	Kind    string
	Learner Learner
	// Cost is the trees times the depth of a tree at most: the nodes one
	// prediction visits, which is what it costs the runtime.
	Cost int
	// options are the resolved settings, for the bundle.
	options map[string]float64
}

// GBRTCandidate names a GBRT setting as a Candidate.
func GBRTCandidate(o GBRTOptions) Candidate {
	r, _ := o.withDefaults()
	name := fmt.Sprintf("gbrt-d%d-t%d-lr%g-min%d", r.MaxDepth, r.Trees, r.LearningRate, r.MinLeaf)
	if r.MaxLeaves > 0 {
		name = fmt.Sprintf("gbrt-l%d-t%d-lr%g-min%d", r.MaxLeaves, r.Trees, r.LearningRate, r.MinLeaf)
	}
	return Candidate{Name: name, Kind: "gbrt", Learner: o, Cost: r.Trees * r.MaxDepth, options: r.options()}
}

// ForestCandidate names a random-forest setting as a Candidate.
func ForestCandidate(o ForestOptions) Candidate {
	r, _ := o.withDefaults()
	return Candidate{Name: fmt.Sprintf("rf-d%d-t%d-min%d", r.MaxDepth, r.Trees, r.MinLeaf), Kind: "rf",
		Learner: o, Cost: r.Trees * r.MaxDepth, options: r.options()}
}

// DefaultCandidates are the settings Select tries when given none: from
// Bergstra et al.'s shallow boosted trees to deep ones and a forest, and
// two boosted settings fitted to the top-weighted target (TopOptions,
// anchored), which on the H200, H100 and Xeon whole-space sets raised the
// held-out picks by 3-4 points (bench/RESULTS.md, "Trainer objectives
// (issue 25)"). Each costs at most DefaultMaxCost; of their blends, those
// that cost more are not tried under the default bound.
func DefaultCandidates(seed uint64) []Candidate {
	return []Candidate{
		GBRTCandidate(GBRTOptions{Trees: 100, MaxDepth: 4, Seed: seed}),
		GBRTCandidate(GBRTOptions{Trees: 200, MaxDepth: 6, LearningRate: 0.1, MinLeaf: 5, Seed: seed}),
		GBRTCandidate(GBRTOptions{Trees: 50, MaxDepth: 10, LearningRate: 0.2, MinLeaf: 5, Seed: seed}),
		GBRTCandidate(GBRTOptions{Trees: 150, MaxDepth: 8, LearningRate: 0.1, MinLeaf: 5, Seed: seed}),
		ForestCandidate(ForestOptions{Trees: 50, MaxDepth: 14, MinLeaf: 3, Seed: seed}),
		TopCandidate(TopOptions{Anchored: true, GBRT: GBRTOptions{Trees: 150, MaxDepth: 8, LearningRate: 0.1, MinLeaf: 5, Seed: seed}}),
		TopCandidate(TopOptions{Anchored: true, GBRT: GBRTOptions{Trees: 50, MaxDepth: 10, LearningRate: 0.2, MinLeaf: 5, Seed: seed}}),
	}
}

// DefaultMaxCost is the most a chosen setting may cost (Candidate.Cost)
// unless SelectOptions says otherwise. Choose's time on a new shape grows
// with the cost of the model it scores: on a 2-core machine the models of
// cost 500-1,200 answered in 37-77 us at the median, a blend of cost 1,600
// (the Xeon's, on its whole space) in 101 us and blends of 1,700-2,900 in
// 108-182 us, against the runtime's promise of 100 us (README, "Choose").
const DefaultMaxCost = 1200

// DefaultSelectRows is the most rows Select scores candidates on, and
// Train cross-validates on, unless SelectOptions.MaxRows says otherwise.
// The evaluation sets (testdata/h200 11,232 rows, the H200 and H100
// whole-space sets 24,256 and 21,422, the Xeon's 49,903) are below it, so
// their selections are unchanged; a fleet model of every conv2d row the
// repository ships (95,581) selects on half of them. At a million rows (a
// load test of repeated rows) the default selection took 145 CPU seconds
// with this bound, 522 with one of 100,000 and no bound on the
// cross-validation (bench/RESULTS.md, session 14).
const DefaultSelectRows = 50_000

// SelectOptions configures Select. The zero value tries DefaultCandidates
// over at most 6 shape folds, scoring every one of them, and chooses among
// those that cost at most DefaultMaxCost.
type SelectOptions struct {
	// Candidates are the settings to try; nil means DefaultCandidates.
	Candidates []Candidate
	// MaxCost bounds the cost of the setting chosen (Candidate.Cost, a
	// blend's the sum of its two): a setting that costs more is neither
	// fitted nor blended, since the runtime could not score it fast
	// enough. 0 means DefaultMaxCost; < 0 means no bound.
	MaxCost int
	// Folds is the number of groups of shapes held out in turn; 0 means
	// one fold a shape, at most 6.
	Folds int
	// Budget bounds the wall time of the whole selection; candidates
	// not scored in time are skipped (in the order given, so put the
	// cheap ones first). It makes which model wins depend on the
	// machine's speed and load, so it is opt-in: 0 means no bound, and
	// MaxRows bounds the selection's work instead (bench/RESULTS.md,
	// "Training memory and time, session 14"). < 0 is an error.
	Budget time.Duration
	// Repeats is the number of times the shapes are dealt into Folds:
	// the first deal is by size, each later one in a random order drawn
	// from Seed, and a candidate's figures are the means over the deals,
	// so that which candidate wins is less one split's luck. 0 means 1;
	// with one shape a fold, every deal is the same and one is made.
	Repeats int
	// Workers fit folds in parallel; 0 means 2.
	Workers int
	// MaxRows bounds the rows the candidates are scored on: with more,
	// the selection keeps an even share of every (shape, device) group's
	// rows, in their order (every shape still counts, each with about
	// the same share of its configurations), and scores on those alone.
	// The chosen learner is still fitted on every row; below the bound
	// nothing changes. Train's cross-validation (Options.Folds), whose
	// figures only describe the model, is bounded the same way, whatever
	// the learner. 0 means DefaultSelectRows; < 0 means no bound.
	MaxRows int
	Seed    uint64
	// NoConsensus leaves the nearest-shape rule (DefaultConsensus)
	// unscored, so that no model carries it: the zero value scores it on
	// the chosen learner's held-out predictions, at no fit more, and a
	// model carries it when it picked better there.
	NoConsensus bool
	// NoFixed leaves the fixed configuration (scoreFixed) unscored, so
	// that no model carries it: the zero value scores it on the same
	// held-out shapes, at no fit more, and a model carries it when it
	// picked better there than the model (with its rule, if it carries
	// one).
	NoFixed bool
	// Progress, when not nil, hears of each candidate as its scoring
	// starts: done of total candidates are finished.
	Progress ProgressFunc
	// done stops the candidates' fits (Options.Context).
	done <-chan struct{}
}

// PickScore is what one candidate achieved on held-out shapes.
type PickScore struct {
	Name string `json:"name"`
	// PctGeomean is the geometric mean over held-out shapes of the top-1
	// pick's speed as % of the shape's best measured configuration; the
	// pick is the model's favourite among the shape's measured
	// configurations. PctWorst is the worst shape's.
	PctGeomean float64 `json:"pct_geomean"`
	PctWorst   float64 `json:"pct_worst"`
	// PctSpread is the standard deviation of PctGeomean over the
	// selection's deals of the shapes (SelectOptions.Repeats); 0 with one.
	PctSpread float64 `json:"pct_spread,omitempty"`
	// Spearman is the mean per-shape rank correlation.
	Spearman   float64 `json:"spearman"`
	Shapes     int     `json:"shapes"`
	FitSeconds float64 `json:"fit_seconds"`
	Cost       int     `json:"cost"`
	// Skipped says why the candidate was not scored: SkippedBudget or
	// SkippedCost; empty when it was.
	Skipped string `json:"skipped,omitempty"`
}

// Why a candidate was not scored (PickScore.Skipped).
const (
	// SkippedBudget: the selection's time (SelectOptions.Budget) ran out.
	SkippedBudget = "budget"
	// SkippedCost: the candidate costs more than SelectOptions.MaxCost.
	SkippedCost = "cost"
)

// Selection is Select's report.
type Selection struct {
	Chosen string      `json:"chosen"`
	Scores []PickScore `json:"scores"`
	// HeldOut is what the scores held out: "shapes", or "configurations"
	// for data of one shape (selectOne), whose PickScore.Shapes count folds.
	HeldOut string `json:"held_out,omitempty"`
	// Deals counts the deals of the shapes into folds that each score is
	// the mean of (SelectOptions.Repeats; one with one shape a fold);
	// 0 for data of one shape.
	Deals int `json:"deals,omitempty"`
	// Consensus is the nearest-shape rule's score beside the chosen
	// learner's on the same held-out shapes (scoreConsensus); nil when not
	// scored: SelectOptions.NoConsensus, data of one shape, or of several
	// devices (a fleet model).
	Consensus *ConsensusScore `json:"consensus,omitempty"`
	// Fixed is one fixed configuration's score beside the model's picks
	// on the same held-out shapes (scoreFixed); nil when not scored.
	Fixed *FixedScore `json:"fixed,omitempty"`
}

// Select chooses the learner setting whose models pick best on shapes
// they were not trained on: the shapes of d are split into folds, each
// candidate is fitted on all folds but one and scored by the top-1 pick of
// each held-out shape (PickScore). The winner has the highest geometric mean;
// the cheapest candidate within 0.5 points of it wins instead (of equally
// cheap ones, the higher score), so that Choose stays fast when depth buys
// little. Candidates whose learners
// need each row's (shape, device) group (TopOptions, RankOptions) are
// given GroupColumns(d). Data of one shape is scored on folds of its
// configurations instead (selectOne).
func Select(d *Data, opt SelectOptions) (Candidate, Selection, error) {
	cands := slices.Clone(opt.Candidates)
	if cands == nil {
		cands = DefaultCandidates(opt.Seed)
	}
	if len(cands) == 0 {
		return Candidate{}, Selection{}, fmt.Errorf("train: SelectOptions.Candidates is empty")
	}
	if opt.Repeats < 0 {
		return Candidate{}, Selection{}, fmt.Errorf("train: SelectOptions.Repeats must be >= 0, got %d", opt.Repeats)
	}
	cols := GroupColumns(d)
	for i, c := range cands {
		if g, ok := c.Learner.(grouped); ok {
			cands[i].Learner = g.withGroups(cols)
		}
	}
	if opt.Budget < 0 {
		return Candidate{}, Selection{}, fmt.Errorf("train: SelectOptions.Budget must be >= 0 (0: no bound), got %v", opt.Budget)
	}
	budget := opt.Budget
	if budget == 0 {
		budget = math.MaxInt64 // no bound: the same data gives the same selection anywhere
	}
	maxCost := opt.MaxCost
	switch {
	case maxCost == 0:
		maxCost = DefaultMaxCost
	case maxCost < 0:
		maxCost = math.MaxInt
	}
	if !slices.ContainsFunc(cands, func(c Candidate) bool { return c.Cost <= maxCost }) {
		return Candidate{}, Selection{}, fmt.Errorf("train: every candidate costs more than the bound of %d (SelectOptions.MaxCost)", maxCost)
	}
	workers := opt.Workers
	if workers == 0 {
		workers = 2
	}
	d = atMostRows(d, opt.MaxRows)
	deals := shapeDeals(d, opt.Folds, opt.Repeats, opt.Seed)
	folds := deals[0]
	if len(folds) < 2 {
		// One shape: no shape to hold out; hold out configurations.
		return selectOne(d, cands, maxCost, workers, budget, opt)
	}
	byShape := func([][]int) [][]int { return d.measuredByShape() }
	sel, preds, err := scoreDeals(d, cands, deals, byShape, maxCost, budget, workers, opt, "shapes")
	if err != nil {
		return Candidate{}, Selection{}, err
	}
	n := len(cands)
	cands, pairs := scoreBlends(d, cands, deals, preds, byShape, maxCost, &sel)
	chosen := chooseScore(sel.Scores)
	sel.Chosen, sel.HeldOut, sel.Deals = cands[chosen].Name, "shapes", len(deals)
	var pred [][]float64
	if chosen < n {
		pred = preds[chosen]
	} else {
		pred = blendPreds(preds, pairs[chosen-n])
	}
	if !opt.NoConsensus {
		sel.Consensus = scoreConsensus(d, deals, pred, DefaultConsensus)
	}
	if !opt.NoFixed {
		sel.Fixed = scoreFixed(d, deals, pred, DefaultConsensus, sel.Consensus != nil && sel.Consensus.Applied)
	}
	return cands[chosen], sel, nil
}

// scoreDeals scores each candidate within maxCost and the budget on every
// deal of d's rows into folds: each fold's rows are predicted by a model
// fitted on the others, and the picks are scored over groups(folds) (each
// measured shape, or each fold), the candidate's figures being the means
// over the deals. It returns the scores in cands' order and each scored
// candidate's held-out predictions a deal (nil when skipped). One set of
// buffers a worker is lent to every fold of every candidate.
func scoreDeals(d *Data, cands []Candidate, deals [][][]int, groups func([][]int) [][]int, maxCost int, budget time.Duration, workers int, opt SelectOptions, heldOut string) (Selection, [][][]float64, error) {
	pool := make(chan *fitBuffers, workers)
	for range workers {
		pool <- &fitBuffers{done: opt.done}
	}
	start := time.Now()
	var sel Selection
	var preds [][][]float64
	scored := 0
	for i, c := range cands {
		opt.Progress.report(i, len(cands), "selecting the learner: "+c.Name+" on held-out "+heldOut)
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
				return Selection{}, nil, fmt.Errorf("train: candidate %s: %w", c.Name, err)
			}
			scoreGroups(d, groups(folds), p, &s)
			per = append(per, s)
			pred = append(pred, p)
		}
		sel.Scores = append(sel.Scores, meanScore(per))
		preds = append(preds, pred)
		scored++
	}
	return sel, preds, nil
}

// atMostRows returns d, or groupShare's share of its rows as a new Data
// when it has more than maxRows (SelectOptions.MaxRows: 0 means
// DefaultSelectRows, < 0 no bound).
func atMostRows(d *Data, maxRows int) *Data {
	if maxRows == 0 {
		maxRows = DefaultSelectRows
	}
	if maxRows < 0 || d.Len() <= maxRows {
		return d
	}
	return d.Subset(groupShare(d, maxRows))
}

// groupShare returns about n of d's rows, in order: of every (shape,
// device) group's rows, measured or not, the same share, spread evenly
// over the group in its order, and at least its first row.
func groupShare(d *Data, n int) []int {
	p := float64(n) / float64(d.Len())
	type shape struct {
		task     features.TaskKey
		platform int
	}
	seen := map[shape]int{} // rows of the group so far
	rows := make([]int, 0, n+n/16)
	for i, s := range d.Samples() {
		k := shape{s.Task.Key(), s.Platform}
		j := seen[k]
		seen[k] = j + 1
		if math.Ceil(float64(j)*p) < math.Ceil(float64(j+1)*p) {
			rows = append(rows, i)
		}
	}
	return rows
}

// scoreBlends scores every pair of scored candidates as a blend, the mean
// of the two models: its held-out predictions are the mean of theirs, so
// scoring it costs no fit. It appends the blends' scores to sel and
// returns cands with the blends appended, and the two candidates of each
// blend appended.
func scoreBlends(d *Data, cands []Candidate, deals [][][]int, preds [][][]float64, groups func([][]int) [][]int, maxCost int, sel *Selection) ([]Candidate, [][2]int) {
	n := len(cands)
	var pairs [][2]int
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			b := BlendCandidate(cands[i], cands[j])
			if preds[i] == nil || preds[j] == nil || b.Cost > maxCost {
				continue
			}
			var per []PickScore
			for k, mean := range blendPreds(preds, [2]int{i, j}) {
				s := PickScore{Name: b.Name, Cost: b.Cost}
				scoreGroups(d, groups(deals[k]), mean, &s)
				per = append(per, s)
			}
			s := meanScore(per)
			s.FitSeconds = sel.Scores[i].FitSeconds + sel.Scores[j].FitSeconds
			sel.Scores = append(sel.Scores, s)
			cands = append(cands, b)
			pairs = append(pairs, [2]int{i, j})
		}
	}
	return cands, pairs
}

// blendPreds returns the held-out predictions, a deal, of the blend of
// the two candidates of pair: the mean of theirs.
func blendPreds(preds [][][]float64, pair [2]int) [][]float64 {
	out := make([][]float64, len(preds[pair[0]]))
	for k, a := range preds[pair[0]] {
		b := preds[pair[1]][k]
		out[k] = make([]float64, len(a))
		for r := range a {
			out[k][r] = (a[r] + b[r]) / 2
		}
	}
	return out
}

// chooseScore returns the index of the cheapest scored candidate within
// 0.5 points of the highest geometric mean; of equally cheap ones, the
// one that scored highest (the first listed on equal scores).
func chooseScore(scores []PickScore) int {
	best := -1
	for i, s := range scores {
		if s.Skipped == "" && (best < 0 || s.PctGeomean > scores[best].PctGeomean) {
			best = i
		}
	}
	chosen := best
	for i, s := range scores {
		if s.Skipped != "" || s.PctGeomean < scores[best].PctGeomean-0.5 {
			continue
		}
		c := scores[chosen]
		if s.Cost < c.Cost || s.Cost == c.Cost && s.PctGeomean > c.PctGeomean {
			chosen = i
		}
	}
	return chosen
}

// shapeDeals returns the deals of d's shapes into folds that Select
// scores candidates on: shapeFolds' first, then repeats-1 in random
// orders from seed. With one shape a fold, one deal.
func shapeDeals(d *Data, n, repeats int, seed uint64) [][][]int {
	deals := [][][]int{shapeFolds(d, n)}
	groups := d.measuredByShape()
	k := len(deals[0])
	if k == len(groups) {
		return deals
	}
	rng := rand.New(rand.NewPCG(seed, 0x5be0cd19137e2179))
	for range max(repeats, 1) - 1 {
		rng.Shuffle(len(groups), func(i, j int) { groups[i], groups[j] = groups[j], groups[i] })
		folds := make([][]int, k)
		for i, g := range groups {
			folds[i%k] = append(folds[i%k], g...)
		}
		deals = append(deals, folds)
	}
	return deals
}

// meanScore is the mean of one candidate's scores over deals, with the
// spread of their geometric means.
func meanScore(per []PickScore) PickScore {
	s := per[0]
	if len(per) == 1 {
		return s
	}
	var g, w, rho, fit, sq float64
	for _, p := range per {
		g += p.PctGeomean
		w += p.PctWorst
		rho += p.Spearman
		fit += p.FitSeconds
	}
	n := float64(len(per))
	s.PctGeomean, s.PctWorst, s.Spearman, s.FitSeconds = g/n, w/n, rho/n, fit
	for _, p := range per {
		sq += (p.PctGeomean - s.PctGeomean) * (p.PctGeomean - s.PctGeomean)
	}
	s.PctSpread = math.Sqrt(sq / (n - 1))
	return s
}

// shapeFolds groups the measured rows of d by shape (a task on a
// platform) and deals the shapes into at most n folds (0: 6).
func shapeFolds(d *Data, n int) [][]int {
	if n == 0 {
		n = 6
	}
	groups := d.measuredByShape()
	if len(groups) < n {
		n = len(groups)
	}
	folds := make([][]int, n)
	// Shapes in order of size, dealt round-robin, so that every fold
	// holds small and large shapes alike.
	slices.SortStableFunc(groups, func(a, b []int) int {
		return cmp.Compare(shapeSize(d.Sample(a[0]).Task), shapeSize(d.Sample(b[0]).Task))
	})
	for i, g := range groups {
		folds[i%n] = append(folds[i%n], g...)
	}
	return folds
}

func shapeSize(t features.Task) float64 {
	p := 1.0
	for _, v := range t {
		p *= float64(max(v, 1))
	}
	return p
}

// scoreCandidate fits c once per fold and scores its picks on the
// fold's shapes. As many folds are fitted at once as pool holds buffers;
// each fit borrows one.
func scoreCandidate(d *Data, folds [][]int, c Candidate, pool chan *fitBuffers) (PickScore, []float64, error) {
	inFold := make([]int32, d.Len())
	for i := range inFold {
		inFold[i] = -1
	}
	for k, rows := range folds {
		for _, i := range rows {
			inFold[i] = int32(k)
		}
	}
	pred := make([]float64, d.Len())
	errs := make([]error, len(folds))
	secs := make([]float64, len(folds))
	var wg sync.WaitGroup
	for k := range folds {
		wg.Add(1)
		buf := <-pool
		go func() {
			defer func() { pool <- buf; wg.Done() }()
			// Unmeasured rows (zeta targets) train but are never scored.
			rows := reuse(&buf.rows, d.Len()-len(folds[k]))[:0]
			for i, f := range inFold {
				if f != int32(k) {
					rows = append(rows, i)
				}
			}
			t0 := time.Now()
			r, err := fitRowsWith(c.Learner, d, rows, buf)
			secs[k] = time.Since(t0).Seconds()
			if err != nil {
				errs[k] = err
				return
			}
			var x []float64
			for _, i := range folds[k] {
				x = d.AppendRow(x[:0], i)
				pred[i] = r.Predict(x)
			}
		}()
	}
	wg.Wait()
	s := PickScore{Name: c.Name, Cost: c.Cost}
	for k := range folds {
		if errs[k] != nil {
			return s, nil, errs[k]
		}
		s.FitSeconds += secs[k]
	}
	return s, pred, nil
}

// scoreGroups fills s's pick figures from held-out predictions of the
// rows of groups (each a shape's measured rows, or a fold of one shape's):
// the top-1 pick of each group as % of its fastest row, the worst, and
// the mean rank correlation over the groups. Shapes counts the groups.
func scoreGroups(d *Data, groups [][]int, pred []float64, s *PickScore) {
	var logs []float64
	s.PctWorst = 100
	rho, nRho := 0.0, 0
	for _, rows := range groups {
		pct := pickPct(d, rows, pred)
		logs = append(logs, math.Log(pct))
		s.PctWorst = min(s.PctWorst, pct)
		if len(rows) >= 3 {
			a, b := make([]float64, len(rows)), make([]float64, len(rows))
			for j, i := range rows {
				a[j], b[j] = pred[i], -math.Log(d.Sample(i).TimeNs)
			}
			if r, ok := spearman(a, b); ok {
				rho += r
				nRho++
			}
		}
	}
	s.Shapes = len(logs)
	s.PctGeomean = 100
	if len(logs) > 0 {
		s.PctGeomean = min(100, math.Exp(mean(logs)))
	}
	if nRho > 0 {
		s.Spearman = rho / float64(nRho)
	}
}

// pickPct is the speed of the row with the highest prediction among rows
// (one shape's measured rows) as % of the fastest row.
func pickPct(d *Data, rows []int, pred []float64) float64 {
	best, pick := math.Inf(1), rows[0]
	for _, i := range rows {
		best = min(best, d.Sample(i).TimeNs)
		if pred[i] > pred[pick] {
			pick = i
		}
	}
	return 100 * best / d.Sample(pick).TimeNs
}

func mean(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}
