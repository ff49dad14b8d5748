package eval

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/runtime"
	"github.com/augur-tuning/augur/search"
	"github.com/augur-tuning/augur/train"
)

// FleetPriorResult is the fleet-prior tuner replayed on one fully recorded
// shape of a device that the fleet model was not trained on, against
// random search and the two-stage tuner given the same number of
// measurements, all three within the device's limits where they are known
// (a configuration over them is neither measured nor counted; before
// session 18 the fleet-prior tuner and random search counted them).
// Percentages of best are means over seeds (random search's is its exact
// expectation).
type FleetPriorResult struct {
	Device    string       `json:"device"`
	TrainedOn []string     `json:"trained_on"`
	Shape     string       `json:"shape"`
	SpaceSize int          `json:"space_size"`
	Seeds     int          `json:"seeds"`
	Points    []PriorPoint `json:"points"`
	// PriorTop1Pct is the prior's favourite configuration alone.
	PriorTop1Pct float64 `json:"prior_top1_pct_of_best"`
	// Stop is where the error model stopped the tuner: the median
	// measurements (StopMeasurements, as % of the space StopMeasuredPct),
	// the mean % of best there (StopPct) and random search's expectation
	// at each seed's count (StopRandomPct). Unstopped counts the seeds
	// that reached the replay's budget first.
	StopMeasurements float64 `json:"stop_measurements"`
	StopMeasuredPct  float64 `json:"stop_measured_pct_of_space"`
	StopPct          float64 `json:"stop_pct_of_best"`
	StopRandomPct    float64 `json:"stop_random_pct_of_best"`
	Unstopped        int     `json:"unstopped_seeds"`
}

// PriorPoint compares the tuners after the same number of measurements.
type PriorPoint struct {
	// Share is the share of the space asked for (Options.PriorFractions);
	// MeasuredPct the share measured, in %, after rounding to whole
	// measurements.
	Share        float64 `json:"share_of_space"`
	MeasuredPct  float64 `json:"measured_pct_of_space"`
	Measurements int     `json:"measurements"`
	Pct          float64 `json:"pct_of_best"`
	// WorstPct is the fleet-prior tuner's worst seed.
	WorstPct    float64 `json:"worst_pct_of_best"`
	RandomPct   float64 `json:"random_pct_of_best"`
	TwoStagePct float64 `json:"two_stage_pct_of_best"`
}

// PriorSummaryPoint is the fleet-prior replay at one share of the space,
// over every shape replayed: the means over shapes of each shape's mean
// over seeds, the worst shape's, and how many shapes came within 1% of
// their optimum or fell below random search.
type PriorSummaryPoint struct {
	Share       float64 `json:"share_of_space"`
	Shapes      int     `json:"shapes"`
	Pct         float64 `json:"mean_pct_of_best"`
	WorstPct    float64 `json:"worst_shape_pct_of_best"`
	RandomPct   float64 `json:"random_mean_pct_of_best"`
	TwoStagePct float64 `json:"two_stage_mean_pct_of_best"`
	Within1Pct  int     `json:"shapes_within_1pct"`
	Below       int     `json:"shapes_below_random"`
}

// summarizePrior sums the replay up by share of the space; every result
// has the same shares, in the same order.
func summarizePrior(rs []FleetPriorResult) []PriorSummaryPoint {
	if len(rs) == 0 {
		return nil
	}
	out := make([]PriorSummaryPoint, len(rs[0].Points))
	for k := range out {
		sp := &out[k]
		sp.Share, sp.WorstPct = rs[0].Points[k].Share, math.Inf(1)
		for _, r := range rs {
			p := r.Points[k]
			sp.Shapes++
			sp.Pct += p.Pct
			sp.RandomPct += p.RandomPct
			sp.TwoStagePct += p.TwoStagePct
			sp.WorstPct = min(sp.WorstPct, p.Pct)
			if p.Pct >= 99 {
				sp.Within1Pct++
			}
			if p.Pct < p.RandomPct {
				sp.Below++
			}
		}
		n := float64(sp.Shapes)
		sp.Pct, sp.RandomPct, sp.TwoStagePct = sp.Pct/n, sp.RandomPct/n, sp.TwoStagePct/n
	}
	return out
}

// priorFractions are the shares of the space at which the replay compares
// the tuners when Options.PriorFractions is nil.
var priorFractions = []float64{0.005, 0.01, 0.02}

// fleetPrior replays the fleet-prior tuner on every fully recorded shape of
// every device, with a fleet model trained on the other devices' rows of d.
func fleetPrior(all, d *train.Data, groups []*group, space *features.Space, opt Options) ([]FleetPriorResult, error) {
	if len(d.Platforms) < 2 {
		return nil, fmt.Errorf("%w: the fleet prior needs data of two devices or more, have only %s", ErrNoHoldout, d.Platforms[0].Slug())
	}
	if !slices.ContainsFunc(groups, func(g *group) bool {
		return len(g.times) > 0 && float64(len(g.rows)) >= opt.Coverage*float64(space.Len())
	}) {
		return nil, nil // no shape recorded whole: nothing to replay, and no space to list
	}
	var out []FleetPriorResult
	topts := trainOptions(opt)
	valid := space.All()
	at := make(map[int]int, len(valid))
	for i, c := range valid {
		at[space.Index(c)] = i
	}
	enc := encoder(all, opt.Derived)
	for held, plat := range all.Platforms {
		if opt.HoldoutDevice != "" && !strings.EqualFold(plat.Slug(), opt.HoldoutDevice) && !strings.EqualFold(plat.Name, opt.HoldoutDevice) {
			continue
		}
		var targets []*group
		for _, g := range groups {
			if g.platform == held && len(g.times) > 0 && g.refNs > 0 && float64(len(g.rows)) >= opt.Coverage*float64(space.Len()) {
				targets = append(targets, g)
			}
		}
		if len(targets) == 0 {
			continue
		}
		var rows []int
		var others []string
		var fleet []features.Platform
		for i, s := range d.Samples() {
			if d.Platforms[s.Platform].Slug() != plat.Slug() {
				rows = append(rows, i)
			}
		}
		for _, p := range d.Platforms {
			if p.Slug() != plat.Slug() {
				others, fleet = append(others, p.Slug()), append(fleet, p)
			}
		}
		opt.say("fleet prior: fleet model on %s, tuning %d shapes of %s", strings.Join(others, ", "), len(targets), plat.Slug())
		b, _, err := train.FitBundle(d.Subset(rows), topts, train.FleetModel, nil)
		if err == nil {
			err = opt.attach(b)
		}
		if err != nil {
			return nil, fmt.Errorf("eval: fleet prior fit: %w", err)
		}
		bests := deviceBests(groups, all.Platforms, held)
		for _, g := range targets {
			prior, _, err := priorScores(b, &plat, fleet, g.task, valid)
			if err != nil {
				return nil, err
			}
			var copies []int
			for _, db := range bests {
				_, name := db.nearest(g.task)
				if c, err := space.Parse(name); err == nil {
					if i, ok := at[space.Index(c)]; ok {
						copies = append(copies, i)
					}
				}
			}
			r, err := priorShape(all, space, valid, enc, prior, topCopy(copies, prior), g, opt)
			if err != nil {
				return nil, err
			}
			r.TrainedOn = others
			out = append(out, r)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: no shape has >= %.0f%% of its space recorded (see --coverage)", ErrNoHoldout, 100*opt.Coverage)
	}
	return out, nil
}

// topCopy returns, of copies (indices of other devices' best
// configurations at the shapes nearest the one tuned), the one the prior
// ranks first, as the runtime picks for a device it has no model of: the
// fleet-prior tuner measures it first, so that it is never below that
// pick. Measuring every device's copy cost a CPU ranked from GPUs one
// wasted measurement a GPU. nil when there are none.
func topCopy(copies []int, prior []float64) []int {
	if len(copies) == 0 {
		return nil
	}
	top := copies[0]
	for _, i := range copies[1:] {
		if prior[i] > prior[top] {
			top = i
		}
	}
	return []int{top}
}

// bundleCopies returns the indices in valid of each device's best
// measured configuration (Bundle.Measured) at its shape nearest t, on a
// log scale, but the device slug's own.
func bundleCopies(b *features.Bundle, slug string, t features.Task, space *features.Space, valid []features.Config) []int {
	at := make(map[int]int, len(valid))
	for i, c := range valid {
		at[space.Index(c)] = i
	}
	byDevice := map[string]*deviceBest{}
	var devices []*deviceBest
	for _, m := range b.Measured {
		if m.Device == slug || len(m.Task) != len(t) {
			continue
		}
		db := byDevice[m.Device]
		if db == nil {
			db = &deviceBest{device: m.Device}
			byDevice[m.Device] = db
			devices = append(devices, db)
		}
		db.tasks = append(db.tasks, m.Task)
		db.logs = append(db.logs, features.TaskLogs(nil, m.Task))
		db.config = append(db.config, space.Format(m.Config))
	}
	var out []int
	for _, db := range devices {
		_, name := db.nearest(t)
		if c, err := space.Parse(name); err == nil {
			if i, ok := at[space.Index(c)]; ok {
				out = append(out, i)
			}
		}
	}
	return out
}

// priorScores scores cs on t with the bundle's model for plat: the
// device's own model when the bundle has one, else the fleet model given
// plat's features. When plat is nil or its features are unknown (all
// zero), it is the mean of the fleet model's scores over the fleet's
// devices: fleet, or when nil the devices the bundle has models of. It
// returns the scores and the model's source as runtime names it.
func priorScores(b *features.Bundle, plat *features.Platform, fleet []features.Platform, t features.Task, cs []features.Config) ([]float64, string, error) {
	var plats []*features.Platform
	switch {
	case plat != nil && slices.ContainsFunc(plat.Vector(), func(v float64) bool { return v != 0 }):
		plats = append(plats, plat)
	case fleet != nil:
		for i := range fleet {
			plats = append(plats, &fleet[i])
		}
	default:
		for i := range b.Models {
			if p := b.Models[i].Platform; p != nil {
				plats = append(plats, p)
			}
		}
	}
	if len(plats) == 0 {
		return nil, "", fmt.Errorf("%w: the device's platform features are unknown and the bundle names no device to average the fleet model over", ErrNoPrior)
	}
	out := make([]float64, len(cs))
	vals, ok := make([]float64, len(cs)), make([]bool, len(cs))
	source := ""
	for _, p := range plats {
		opts := runtime.Options{Platform: p}
		if len(plats) > 1 {
			opts.Model = train.FleetModel
		}
		ch, err := runtime.FromBundle(b, opts)
		if err != nil {
			return nil, "", fmt.Errorf("eval: %w", err)
		}
		if ch.Model() == nil {
			return nil, "", fmt.Errorf("%w: the bundle has no model for %s and no fleet model", ErrNoPrior, p.Slug())
		}
		source = ch.Source()
		ch.Model().Scorer(t).ScoreBatch(cs, vals, ok)
		for i, v := range vals {
			out[i] += v / float64(len(plats))
		}
	}
	if len(plats) > 1 {
		source = "fleet (mean over the bundle's devices)"
	}
	return out, source, nil
}

// encoder is the layout of d's rows.
func encoder(d *train.Data, derive features.Deriver) features.Encoder {
	enc := features.Encoder{TaskNames: d.TaskNames}.WithDerived(derive)
	for _, p := range d.Params {
		enc.ParamNames = append(enc.ParamNames, p.Name)
	}
	return enc
}

// FleetPriorSpace is what the fleet-prior tuner (search.PriorSearch)
// starts from to tune shape t of kernel k on the device plat with bundle
// b: every valid configuration, encoded; the bundle's prior score of each;
// the configurations it measures first (another device's best, copied);
// and the refitter of its correction. source names the prior. The replay
// of Evaluate and the live tuner share it.
func FleetPriorSpace(b *features.Bundle, plat features.Platform, k *datasets.Kernel, t features.Task) (search.PriorSpace, search.Refitter, string, error) {
	valid := k.Space.All()
	prior, source, err := priorScores(b, &plat, nil, t, valid)
	if err != nil {
		return search.PriorSpace{}, nil, "", err
	}
	enc := features.NewEncoder(k.TaskNames, k.Space).WithDerived(k.Derived)
	nf := enc.Len()
	ps := search.PriorSpace{X: make([]float64, len(valid)*nf), NumFeatures: nf, Prior: prior, Configs: valid,
		First: topCopy(bundleCopies(b, plat.Slug(), t, k.Space, valid), prior), Pruned: Pruned(k, t, plat, valid)}
	pv := plat.Vector()
	for i, c := range valid {
		enc.Encode(ps.X[i*nf:(i+1)*nf], t, c, pv)
	}
	return ps, refitter{correction}, source, nil
}

// correction is the learner of the fleet-prior tuner's correction: small
// trees for the few dozen measurements it sees.
var correction = train.GBRTOptions{Trees: 50, MaxDepth: 3, MinLeaf: 3}

// refitter adapts a train.Learner to search.Refitter.
type refitter struct{ learner train.Learner }

var _ search.Refitter = refitter{}

// Refit fits the learner to x and y.
func (r refitter) Refit(x []float64, nFeatures int, y []float64) (search.Predictor, error) {
	m, err := r.learner.Fit(x, nFeatures, y)
	if err != nil {
		return nil, err
	}
	return m, nil
}

// priorShape replays the fleet-prior tuner, random search and the
// two-stage tuner on g.
func priorShape(d *train.Data, space *features.Space, valid []features.Config, enc features.Encoder, prior []float64, first []int, g *group, opt Options) (FleetPriorResult, error) {
	n := len(valid)
	plat := d.Platforms[g.platform]
	res := FleetPriorResult{Device: plat.Slug(), Shape: features.FormatTask(d.TaskNames, g.task), SpaceSize: n, Seeds: opt.TwoStageSeeds}
	nf := enc.Len()
	ts, err := newTwoStage(d, space, g, enc)
	if err != nil {
		return res, err
	}
	// The fleet-prior tuner, random search and the two-stage tuner all
	// measure within the device's limits (groupPruned).
	pruned := ts.pruned(opt)
	ps := search.PriorSpace{X: make([]float64, n*nf), NumFeatures: nf, Prior: prior, Configs: valid, First: first, Pruned: pruned}
	pv := plat.Vector()
	for i, c := range valid {
		enc.Encode(ps.X[i*nf:(i+1)*nf], g.task, c, pv)
	}
	// pct is each candidate's speed as % of the best; 0 when it failed or
	// was never recorded, as the replayed strategies count it. within is
	// the same for the candidates within the limits, random search's.
	pct := make([]float64, n)
	var within []float64
	for i, c := range valid {
		if t, ok := g.times[space.Format(c)]; ok {
			pct[i] = 100 * g.bestNs / t
		}
		if pruned == nil || !pruned[i] {
			within = append(within, pct[i])
		}
	}
	top := 0
	for i, v := range ps.Prior {
		if v > ps.Prior[top] {
			top = i
		}
	}
	res.PriorTop1Pct = pct[top]
	fracs := opt.PriorFractions
	if fracs == nil {
		fracs = priorFractions
	}
	counts := make([]int, len(fracs))
	for i, f := range fracs {
		counts[i] = max(1, int(math.Round(f*float64(n))))
	}
	// The replay runs on to a tenth of the space, so that the stopping
	// rule has room to act.
	budget := max(slices.Max(counts), n/10)
	sums := make([]float64, len(fracs))
	worst := slices.Repeat([]float64{math.Inf(1)}, len(fracs))
	var stops, stopPct, stopRand []float64
	measure := func(idx []int) ([]float64, error) {
		ys := make([]float64, len(idx))
		for j, i := range idx {
			ys[j] = math.NaN()
			if pct[i] > 0 {
				ys[j] = math.Log(g.refNs / (100 * g.bestNs / pct[i]))
			}
		}
		return ys, nil
	}
	for seed := range opt.TwoStageSeeds {
		ts := search.PriorSearch{Budget: budget, Full: true, Seed: opt.Seed + uint64(seed)}
		r, err := ts.Run(ps, refitter{correction}, measure)
		if err != nil {
			return res, fmt.Errorf("eval: fleet prior: %w", err)
		}
		for k, c := range counts {
			p := bestPct(pct, r.Order[:min(c, len(r.Order))])
			sums[k] += p
			worst[k] = min(worst[k], p)
		}
		stop := r.StopAt
		if stop == 0 {
			stop = len(r.Order)
			res.Unstopped++
		}
		stops = append(stops, float64(stop))
		stopPct = append(stopPct, bestPct(pct, r.Order[:stop]))
		stopRand = append(stopRand, randomPct(within, stop))
	}
	for k, c := range counts {
		pt := PriorPoint{Share: fracs[k], MeasuredPct: 100 * float64(c) / float64(n), Measurements: c, Pct: sums[k] / float64(opt.TwoStageSeeds),
			WorstPct: worst[k], RandomPct: randomPct(within, c)}
		// The two-stage tuner given c measurements: half at random, half
		// in predicted order (a threshold that never stops it).
		for seed := range opt.TwoStageSeeds {
			run, err := ts.run(opt, max(2, c/2), c, 1e-12, opt.Seed+uint64(seed))
			if err != nil {
				return res, err
			}
			pt.TwoStagePct += run.pct / float64(opt.TwoStageSeeds)
		}
		res.Points = append(res.Points, pt)
	}
	res.StopMeasurements = median(stops)
	res.StopMeasuredPct = 100 * res.StopMeasurements / float64(n)
	res.StopPct, res.StopRandomPct = mean(stopPct), mean(stopRand)
	return res, nil
}

// bestPct is the best of pct over the measured indices.
func bestPct(pct []float64, measured []int) float64 {
	best := 0.0
	for _, i := range measured {
		best = max(best, pct[i])
	}
	return best
}

// randomPct is the expected best of pct over c candidates drawn at random
// without replacement: with pct sorted in decreasing order, the i-th (from
// 0) is the best of the draw with probability C(n-1-i, c-1)/C(n, c).
func randomPct(pct []float64, c int) float64 {
	n := len(pct)
	if c >= n {
		return slices.Max(pct)
	}
	s := slices.Clone(pct)
	slices.SortFunc(s, func(a, b float64) int {
		switch {
		case a > b:
			return -1
		case a < b:
			return 1
		}
		return 0
	})
	lchoose := func(n, k int) float64 {
		a, _ := math.Lgamma(float64(n + 1))
		b, _ := math.Lgamma(float64(k + 1))
		e, _ := math.Lgamma(float64(n - k + 1))
		return a - b - e
	}
	total := lchoose(n, c)
	e := 0.0
	for i, v := range s {
		if n-1-i < c-1 {
			break
		}
		if v == 0 {
			break
		}
		e += v * math.Exp(lchoose(n-1-i, c-1)-total)
	}
	return e
}

func mean(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x / float64(len(v))
	}
	return s
}

// twoStageSpace is one shape prepared for replays of the two-stage tuner:
// every valid configuration encoded as d's rows are, and the row of d
// that recorded it.
type twoStageSpace struct {
	d     *train.Data
	space *features.Space
	g     *group
	valid []features.Config
	x     []float64
	nf    int
	row   map[string]int
	times []float64 // of the valid configurations that ran, for search.RandomMedian
	enc   features.Encoder
	pv    []float64
	// prune marks the valid configurations known to fail before
	// compiling, once computed (pruned).
	prune      []bool
	prunedDone bool
}

// pruned says which valid configurations are known to fail before
// compiling (groupPruned), computed once; nil when nothing is known.
func (ts *twoStageSpace) pruned(opt Options) []bool {
	if !ts.prunedDone {
		ts.prune, ts.prunedDone = groupPruned(ts.d, ts.space, ts.g, ts.valid, opt), true
	}
	return ts.prune
}

// sameParams says whether a and b name the same parameters with the same
// values, in the same order.
func sameParams(a, b []features.Param) bool {
	return slices.EqualFunc(a, b, func(p, q features.Param) bool { return p.Name == q.Name && slices.Equal(p.Values, q.Values) })
}

func newTwoStage(d *train.Data, space *features.Space, g *group, enc features.Encoder) (*twoStageSpace, error) {
	ts := &twoStageSpace{d: d, space: space, g: g, valid: space.All(), nf: enc.Len(), row: map[string]int{}, enc: enc}
	if ts.nf != len(d.Features) {
		return nil, fmt.Errorf("eval: two-stage encoder has %d features, the data %d", ts.nf, len(d.Features))
	}
	pv := d.Platforms[g.platform].Vector()
	ts.pv = pv
	ts.x = make([]float64, len(ts.valid)*ts.nf)
	for i, c := range ts.valid {
		enc.Encode(ts.x[i*ts.nf:(i+1)*ts.nf], g.task, c, pv)
	}
	for _, r := range g.rows {
		ts.row[space.Format(d.Sample(r).Config)] = r
	}
	for _, c := range ts.valid {
		if t, ok := g.times[space.Format(c)]; ok {
			ts.times = append(ts.times, t)
		}
	}
	return ts, nil
}

// twoStageRun is one replay of the two-stage tuner.
type twoStageRun struct {
	total      int     // measurements in both stages
	pct, top1  float64 // % of best found, and of the model's favourite
	randomPct  float64 // random search's best with total measurements
	randomMed  float64 // the median of that over random orders (search.RandomMedian)
	firstStage int
	fitted     bool // false when too few first-stage measurements ran
	failed     int  // measurements, both stages, that failed
	passed     int  // configurations passed over as predicted to fail
	// firstPct is the first stage's best, measuredPct the best of every
	// configuration measured in both stages (% of best), which pct must
	// equal: the answer is never worse than a configuration measured.
	firstPct, measuredPct float64
}

// run replays the tuner with a first stage of at most n0 measurements
// (FirstStage), then measurements in predicted order while the chance of
// beating the best stays above threshold, budget in all (0: no cap; at
// least one in the second stage). Its model is fitted by train with the
// learner of opt (train's own selection when opt.Learner is auto).
func (ts *twoStageSpace) run(opt Options, n0, budget int, threshold float64, seed uint64) (twoStageRun, error) {
	g, space, valid, nf := ts.g, ts.space, ts.valid, ts.nf
	logSpeed := func(c features.Config) (float64, error) {
		t, ok := g.times[space.Format(c)]
		if !ok {
			return 0, search.ErrNotRecorded
		}
		return math.Log(g.refNs / t), nil
	}
	rng := rand.New(rand.NewPCG(seed, 0x2574))
	// The first stage draws in rounds, stratified by parameter value, and
	// learns what fails while it draws (FirstStage), as 'augur tune'
	// measures it; what failed teaches the second stage too.
	fails := NewFailureForest(nf, func(dst []float64, c features.Config) { ts.enc.Encode(dst, g.task, c, ts.pv) }, seed)
	var rows []int
	best, bestC := math.Inf(-1), features.Config(nil)
	seen := map[string]bool{}
	// The configurations known to fail before compiling are neither
	// measured nor ranked (Pruned), as in 'augur tune'.
	pruned := ts.pruned(opt)
	first, err := DrawFirstStage(valid, rng.Perm(len(valid)), pruned, n0, fails, func(idx []int) ([]bool, error) {
		failed := make([]bool, len(idx))
		for j, i := range idx {
			name := space.Format(valid[i])
			seen[name] = true
			v, err := logSpeed(valid[i])
			if failed[j] = err != nil; failed[j] {
				continue
			}
			if r, ok := ts.row[name]; ok {
				rows = append(rows, r)
			}
			if v > best {
				best, bestC = v, valid[i]
			}
		}
		return failed, nil
	})
	if err != nil {
		return twoStageRun{}, err
	}
	perm, n0 := first.Order, first.Measured
	out := twoStageRun{firstStage: n0, failed: first.Failed}
	if bestC != nil {
		out.firstPct = 100 * math.Exp(best) * g.bestNs / g.refNs
	}
	out.measuredPct = out.firstPct
	if len(rows) < 2 {
		out.total = n0
		if bestC != nil {
			out.pct = 100 * math.Exp(best) * g.bestNs / g.refNs
		}
		return out, nil
	}
	out.fitted = true
	fs, err := FitFirstStage(ts.d.Subset(rows), opt)
	if err != nil {
		return out, err
	}
	// Ranked in the random order's ties (search.RankInOrder), as 'augur
	// tune' ranks.
	perm = slices.DeleteFunc(perm, func(i int) bool { return pruned != nil && pruned[i] })
	ranked := search.RankInOrder(valid, perm, func(i int) float64 { return fs.Model.Predict(ts.x[i*nf : (i+1)*nf]) })
	if v, err := logSpeed(ranked[0].Config); err == nil {
		out.top1 = 100 * math.Exp(v) * g.bestNs / g.refNs
	}
	sigma := fs.Sigma
	// The random draws continue the first stage's random order.
	random := make([]features.Config, 0, len(perm)-n0)
	for _, i := range perm[n0:] {
		random = append(random, valid[i])
	}
	if budget > 0 {
		budget = max(1, budget-n0)
	}
	st, err := search.SecondStage{Threshold: threshold, Sigma: sigma, Budget: budget, Random: random, Failures: fails}.Run(ranked, best, bestC,
		func(c features.Config) bool { return seen[space.Format(c)] }, logSpeed)
	if err != nil {
		return out, fmt.Errorf("eval: %w", err)
	}
	out.failed += st.Failed
	out.passed = st.Passed
	out.total = n0 + len(st.Measured)
	for _, m := range st.Measured {
		if !math.IsNaN(m.LogSpeedup) {
			out.measuredPct = max(out.measuredPct, 100*math.Exp(m.LogSpeedup)*g.bestNs/g.refNs)
		}
	}
	if !math.IsInf(st.LogSpeedup, -1) {
		out.pct = 100 * math.Exp(st.LogSpeedup) * g.bestNs / g.refNs
	}
	// Random search with the same number of measurements, within the
	// device's limits as the tuner (randomSearch).
	out.randomPct, out.randomMed = ts.randomSearch(pruned, out.total, rng)
	return out, nil
}
