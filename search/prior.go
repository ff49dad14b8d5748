package search

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/augur-tuning/augur/features"
)

// Predictor is a fitted model of one row's target.
type Predictor interface {
	Predict(x []float64) float64
}

// Refitter fits a Predictor to the rows of x (row-major, nFeatures values
// a row) and targets y. PriorSearch refits its correction of the prior with
// it after every batch.
type Refitter interface {
	Refit(x []float64, nFeatures int, y []float64) (Predictor, error)
}

// PriorSearch tunes one shape on a device with no measurements, starting
// from a prior: a fleet model's predicted log-speedups for the device.
// After the candidates PriorSpace.First names (other devices' best
// configurations, which the runtime would copy), it measures in batches, each mostly the configurations ranked best and partly
// configurations drawn at random (so that a prior that misleads costs a
// share of each batch, not the search), fits a correction of the prior to
// what it measured and ranks the rest again. It stops when, under a
// Gaussian model of the prediction error, the probability that any
// unmeasured configuration beats the best measured by more than Epsilon
// falls below Threshold, or at Budget.
//
// The ranking is by one of two predictions, whichever predicted the
// configurations measured since both existed more closely: the prior plus
// w*correction, where the correction is fitted on the residuals of the
// measurements (with the prior as one of its inputs) and w = m/(m+Shrink)
// grows with the m measurements, so that the prior rules while there are
// few and the measurements once there are many; or a model of the
// measurements alone (again with the prior as an input), which wins where
// the prior misleads. A failed measurement counts as ten times slower than
// the reference. Until the ranked picks have done better on average than
// the random ones, the share drawn at random is at least half and, when
// PriorSpace.Configs is set, the ranked picks of a batch differ pairwise in
// at least half the parameters: a prior that ranks one region of the space
// first, wrongly, then costs one ranked pick a batch rather than all of
// them, and the region it favours is tried at several places. Once they
// have done better, the ranked picks are the best ranked, so that the
// search refines around what measured best.
//
// The error model's variance is that of the errors of predictions made
// before each configuration was measured, with Sigma counted as one
// observation; configurations are taken as independent, which makes the
// rule cautious: over thousands of candidates it holds only once the
// predictions are close.
type PriorSearch struct {
	// Batch is the number of configurations measured between refits; 0
	// means 4.
	Batch int
	// Explore is the share of each batch drawn at random from the
	// unmeasured configurations; 0 means 0.25. It must be in (0, 1]: with
	// 1 the search is random search.
	Explore float64
	// Threshold is the probability below which the search stops; 0 means
	// 0.05. It must be in (0, 1).
	Threshold float64
	// Epsilon is the improvement in log-speedup that still counts as
	// better; 0 means 0.01 (about 1%). It must be >= 0.
	Epsilon float64
	// Sigma is the prior's error in log-speedup before any measurement;
	// 0 means 0.3.
	Sigma float64
	// Shrink is the number of measurements at which the correction gets
	// half its weight; 0 means 8.
	Shrink float64
	// Budget caps the measurements; 0 means every candidate.
	Budget int
	// Full keeps measuring to Budget after the stopping rule held (for
	// replays that read the search at fixed counts); PriorResult.StopAt
	// still says where it would have stopped.
	Full bool
	// Seed draws the exploring share.
	Seed uint64
}

// PriorSpace is what PriorSearch searches: the candidate configurations'
// feature vectors and their prior log-speedups, in the same order.
type PriorSpace struct {
	// X holds one feature vector per candidate, NumFeatures values each.
	X           []float64
	NumFeatures int
	// Prior is the prior's predicted log-speedup of each candidate; -Inf
	// (a configuration the prior rules out) ranks last.
	Prior []float64
	// Configs are the candidates' configurations, in the same order, or
	// nil. With them the ranked picks of a batch are kept apart while the
	// prior has not proven itself (see PriorSearch).
	Configs []features.Config
	// First indexes candidates to measure before any ranked or random
	// one, in order, a batch at a time: the configurations that ran
	// fastest on other devices at the nearest shapes, so that the search
	// is never below copying one of them. They count neither as ranked
	// nor as random picks.
	First []int
	// Pruned marks, when set, the candidates known to fail before
	// compiling (over the device's limits): never measured, ranked, drawn
	// or counted against the budget, as the two-stage tuner passes them
	// over and a user's random search never draws them. nil: none.
	Pruned []bool
}

// PriorResult is the outcome of PriorSearch.Run.
type PriorResult struct {
	// Best indexes the candidate measured fastest, -1 when every
	// measurement failed; LogSpeedup is its log-speedup.
	Best       int
	LogSpeedup float64
	// Order lists the candidates measured, in order, and Values their
	// measured log-speedups (NaN for a failed measurement).
	Order  []int
	Values []float64
	// StopAt is the number of measurements after which the stopping rule
	// held; 0 when the search ended by its budget first.
	StopAt int
	// Sigma is the error model's final standard deviation.
	Sigma float64
}

// failedLogSpeedup stands in, for the correction, for the log-speedup of a
// configuration whose measurement failed: ten times slower than the
// reference, as train.DefaultZeta.
var failedLogSpeedup = math.Log(0.1)

// ErrNoCandidates is returned by PriorSearch.Run for an empty space, or
// one whose every candidate is pruned (PriorSpace.Pruned).
var ErrNoCandidates = errors.New("search: no candidate configurations")

func (o PriorSearch) withDefaults(n int) (PriorSearch, error) {
	if o.Batch == 0 {
		o.Batch = 4
	}
	if o.Explore == 0 {
		o.Explore = 0.25
	}
	if o.Threshold == 0 {
		o.Threshold = 0.05
	}
	if o.Epsilon == 0 {
		o.Epsilon = 0.01
	}
	if o.Sigma == 0 {
		o.Sigma = 0.3
	}
	if o.Shrink == 0 {
		o.Shrink = 8
	}
	if o.Budget == 0 || o.Budget > n {
		o.Budget = n
	}
	switch {
	case o.Batch < 1:
		return o, fmt.Errorf("search: PriorSearch.Batch must be >= 1, got %d", o.Batch)
	case !(o.Explore > 0 && o.Explore <= 1):
		return o, fmt.Errorf("search: PriorSearch.Explore must be in (0, 1], got %g", o.Explore)
	case !(o.Threshold > 0 && o.Threshold < 1):
		return o, fmt.Errorf("search: PriorSearch.Threshold must be in (0, 1), got %g", o.Threshold)
	case !(o.Epsilon >= 0):
		return o, fmt.Errorf("search: PriorSearch.Epsilon must be >= 0, got %g", o.Epsilon)
	case !(o.Sigma > 0):
		return o, fmt.Errorf("search: PriorSearch.Sigma must be > 0, got %g", o.Sigma)
	case !(o.Shrink > 0):
		return o, fmt.Errorf("search: PriorSearch.Shrink must be > 0, got %g", o.Shrink)
	case o.Budget < 0:
		return o, fmt.Errorf("search: PriorSearch.Budget must be >= 0, got %d", o.Budget)
	}
	return o, nil
}

// Run searches s. measure measures the candidates at the given indices and
// returns their log-speedups, NaN for one that failed; an error from it
// (no device, say) ends the search with that error. fit refits the
// correction; its rows are a candidate's features followed by its prior.
func (o PriorSearch) Run(s PriorSpace, fit Refitter, measure func(idx []int) ([]float64, error)) (PriorResult, error) {
	n := len(s.Prior)
	if n == 0 {
		return PriorResult{}, ErrNoCandidates
	}
	if len(s.X) != n*s.NumFeatures {
		return PriorResult{}, fmt.Errorf("search: PriorSpace has %d feature values for %d candidates of %d features", len(s.X), n, s.NumFeatures)
	}
	if s.Configs != nil && len(s.Configs) != n {
		return PriorResult{}, fmt.Errorf("search: PriorSpace has %d configurations for %d candidates", len(s.Configs), n)
	}
	if s.Pruned != nil && len(s.Pruned) != n {
		return PriorResult{}, fmt.Errorf("search: PriorSpace has %d pruned marks for %d candidates", len(s.Pruned), n)
	}
	pruned := func(i int) bool { return s.Pruned != nil && s.Pruned[i] }
	var first []int
	for j, i := range s.First {
		if i < 0 || i >= n {
			return PriorResult{}, fmt.Errorf("search: PriorSpace.First[%d] is %d, want in [0, %d)", j, i, n)
		}
		if !slices.Contains(first, i) && !pruned(i) {
			first = append(first, i)
		}
	}
	runs := n
	for i := range n {
		if pruned(i) {
			runs--
		}
	}
	if runs == 0 {
		return PriorResult{}, ErrNoCandidates
	}
	o, err := o.withDefaults(runs)
	if err != nil {
		return PriorResult{}, err
	}
	// A prior of -Inf ranks last but must not poison the correction's
	// inputs or the error model.
	prior := slices.Clone(s.Prior)
	lowest := math.Inf(1)
	for _, v := range prior {
		if !math.IsInf(v, 0) && !math.IsNaN(v) {
			lowest = min(lowest, v)
		}
	}
	if math.IsInf(lowest, 1) {
		lowest = 0
	}
	for i, v := range prior {
		if math.IsInf(v, 0) || math.IsNaN(v) {
			prior[i] = lowest - 1
		}
	}
	st := &priorState{o: o, s: s, fit: fit, prior: prior, muA: slices.Clone(prior), measured: make([]bool, n),
		errN: 1, errSq: o.Sigma * o.Sigma}
	// A pruned candidate counts as measured without a measurement: no
	// batch, ranking or stopping rule considers it, and nothing learns
	// from it.
	for i := range n {
		st.measured[i] = pruned(i)
	}
	rng := rand.New(rand.NewPCG(o.Seed, 0x9e10))
	res := PriorResult{Best: -1, LogSpeedup: math.Inf(-1)}
	for len(res.Order) < o.Budget {
		mu := st.mu()
		var apart []features.Config
		if !st.proven() {
			apart = s.Configs
		}
		k := min(o.Batch, o.Budget-len(res.Order))
		var idx []int
		explored, seeded := 0, len(first) > 0
		if seeded {
			k = min(k, len(first))
			idx, first = first[:k], first[k:]
		} else {
			idx, explored = o.nextBatch(mu, st.measured, k, st.explore(), apart, rng)
		}
		if len(idx) == 0 {
			break
		}
		ys, err := measure(idx)
		if err != nil {
			return res, err
		}
		if len(ys) != len(idx) {
			return res, fmt.Errorf("search: measure returned %d values for %d configurations", len(ys), len(idx))
		}
		for j, i := range idx {
			y := ys[j]
			res.Order, res.Values = append(res.Order, i), append(res.Values, y)
			if !math.IsNaN(y) && y > res.LogSpeedup {
				res.Best, res.LogSpeedup = i, y
			}
			kind := ranked
			switch {
			case seeded:
				kind = given
			case j >= len(idx)-explored:
				kind = random
			}
			st.add(i, y, mu[i], kind)
		}
		if err := st.refit(); err != nil {
			return res, err
		}
		res.Sigma = math.Sqrt(st.errSq / st.errN)
		if res.StopAt == 0 && res.Best >= 0 && o.chanceOfBetter(st.mu(), st.measured, res.LogSpeedup, res.Sigma) < o.Threshold {
			res.StopAt = len(res.Order)
			if !o.Full {
				break
			}
		}
	}
	res.Sigma = math.Sqrt(st.errSq / st.errN)
	return res, nil
}

// priorState is what PriorSearch.Run knows between batches. It keeps two
// predictions of every candidate: A, the prior plus the weighted
// correction, and B, a model of the measurements alone (with the prior as
// one input), which wins where the prior misleads. The one whose
// predictions of the configurations measured since were closer ranks the
// next batch.
type priorState struct {
	o        PriorSearch
	s        PriorSpace
	fit      Refitter
	prior    []float64
	muA, muB []float64 // muB is nil until B is fitted
	measured []bool
	// cx and cy are the measured rows: a candidate's features and its
	// prior, and its log-speedup (the stand-in when it failed).
	cx, cy []float64
	// errN and errSq are the error model's count and sum of squares.
	errN, errSq float64
	// sqA and sqB are the squared errors of A and B on the measurements
	// made while both existed, nAB their count.
	sqA, sqB float64
	nAB      int
	// sums of the targets of exploiting and exploring picks, and counts.
	exploit, explored   float64
	nExploit, nExplored int
}

// mu is the prediction that ranks the next batch.
func (st *priorState) mu() []float64 {
	if st.muB != nil && st.nAB >= 4 && st.sqB < st.sqA {
		return st.muB
	}
	return st.muA
}

// explore is the share of the next batch drawn at random: Explore, or at
// least half while the ranked picks have not yet done better on average
// than the random ones (or either has fewer than two measurements), so
// that a prior that misleads costs half of each batch, not most of it.
func (st *priorState) explore() float64 {
	e := st.o.Explore
	if !st.proven() {
		e = max(e, 0.5)
	}
	return e
}

// proven reports whether the ranked picks have done better on average than
// the random ones, each with two measurements or more.
func (st *priorState) proven() bool {
	return st.nExplored >= 2 && st.nExploit >= 2 && st.explored/float64(st.nExplored) < st.exploit/float64(st.nExploit)
}

// Kinds of pick, for priorState.add.
const (
	ranked = iota // the best ranked
	random        // drawn at random
	given         // PriorSpace.First
)

// add records the measurement y (NaN: failed) of candidate i, a pick of
// the given kind, which the ranking predicted at pred.
func (st *priorState) add(i int, y, pred float64, kind int) {
	st.measured[i] = true
	target := failedLogSpeedup
	if !math.IsNaN(y) {
		e := y - pred
		st.errN, st.errSq = st.errN+1, st.errSq+e*e
		if st.muB != nil {
			a, b := y-st.muA[i], y-st.muB[i]
			st.sqA, st.sqB, st.nAB = st.sqA+a*a, st.sqB+b*b, st.nAB+1
		}
		target = y
	}
	switch kind {
	case random:
		st.explored, st.nExplored = st.explored+target, st.nExplored+1
	case ranked:
		st.exploit, st.nExploit = st.exploit+target, st.nExploit+1
	}
	nf := st.s.NumFeatures
	st.cx = append(st.cx, st.s.X[i*nf:(i+1)*nf]...)
	st.cx = append(st.cx, st.prior[i])
	st.cy = append(st.cy, target)
}

// refit fits A's correction and B on the measured rows and predicts every
// unmeasured candidate with both.
func (st *priorState) refit() error {
	m := len(st.cy)
	if m < 2 {
		return nil
	}
	nf := st.s.NumFeatures + 1
	resid := make([]float64, m)
	for j, y := range st.cy {
		resid[j] = y - st.cx[j*nf+nf-1]
	}
	corr, err := st.fit.Refit(st.cx, nf, resid)
	if err != nil {
		return fmt.Errorf("search: refit on %d measurements: %w", m, err)
	}
	direct, err := st.fit.Refit(st.cx, nf, st.cy)
	if err != nil {
		return fmt.Errorf("search: refit on %d measurements: %w", m, err)
	}
	if st.muB == nil {
		st.muB = make([]float64, len(st.prior))
	}
	w := float64(m) / (float64(m) + st.o.Shrink)
	x := make([]float64, nf)
	for i := range st.prior {
		if st.measured[i] {
			continue
		}
		copy(x, st.s.X[i*st.s.NumFeatures:(i+1)*st.s.NumFeatures])
		x[nf-1] = st.prior[i]
		st.muA[i] = st.prior[i] + w*corr.Predict(x)
		st.muB[i] = direct.Predict(x)
	}
	return nil
}

// nextBatch picks k unmeasured candidates: the best ranked by mu, and a
// share explore of them (rounded at random, so that it holds on average)
// drawn uniformly from the rest, which come last. With apart (the
// candidates' configurations) the ranked picks are the best ranked that
// differ from each other in at least half the parameters, as far as there
// are such. It returns the picks with the number drawn at random.
func (o PriorSearch) nextBatch(mu []float64, measured []bool, k int, explore float64, apart []features.Config, rng *rand.Rand) ([]int, int) {
	var free []int
	for i, m := range measured {
		if !m {
			free = append(free, i)
		}
	}
	k = min(k, len(free))
	r := explore * float64(k)
	drawn := int(r)
	if rng.Float64() < r-float64(drawn) {
		drawn++
	}
	// Ties are broken at random: a tree model predicts one value for
	// every configuration in a leaf, and the space's own order would
	// always measure the same corner of it.
	tie := make([]float64, len(mu))
	for _, i := range free {
		tie[i] = rng.Float64()
	}
	slices.SortFunc(free, func(a, b int) int {
		if c := cmpDesc(mu[a], mu[b]); c != 0 {
			return c
		}
		return cmpDesc(tie[a], tie[b])
	})
	out, rest := rankedPicks(free, k-drawn, apart)
	for _, j := range rng.Perm(len(rest))[:drawn] {
		out = append(out, rest[j])
	}
	return out, drawn
}

// rankedPicks returns the first n of ranked and the others, in order.
// With apart it takes, in ranked order, those that differ from every one
// taken before in at least half the parameters, then, when there are too
// few such, the best ranked of the others.
func rankedPicks(ranked []int, n int, apart []features.Config) ([]int, []int) {
	if apart == nil || n < 2 {
		return slices.Clone(ranked[:n]), ranked[n:]
	}
	out := make([]int, 0, n)
	rest := make([]int, 0, len(ranked))
	for j, i := range ranked {
		if len(out) == n {
			rest = append(rest, ranked[j:]...)
			break
		}
		if slices.ContainsFunc(out, func(a int) bool { return 2*differ(apart[a], apart[i]) < len(apart[i]) }) {
			rest = append(rest, i)
			continue
		}
		out = append(out, i)
	}
	if short := n - len(out); short > 0 {
		out = append(out, rest[:short]...)
		rest = rest[short:]
	}
	return out, rest
}

// differ is the number of parameters in which a and b differ.
func differ(a, b features.Config) int {
	n := 0
	for f := range a {
		if a[f] != b[f] {
			n++
		}
	}
	return n
}

// chanceOfBetter is P(some unmeasured candidate beats best by more than
// Epsilon) when each one's log-speedup is N(mu, sigma^2), independently.
func (o PriorSearch) chanceOfBetter(mu []float64, measured []bool, best, sigma float64) float64 {
	logNone := 0.0
	for i, v := range mu {
		if measured[i] {
			continue
		}
		p := 0.5 * math.Erfc((best+o.Epsilon-v)/(sigma*math.Sqrt2))
		logNone += math.Log1p(-min(p, 1))
	}
	return -math.Expm1(logNone)
}

// cmpDesc orders a before b when it is larger.
func cmpDesc(a, b float64) int {
	switch {
	case a > b:
		return -1
	case a < b:
		return 1
	}
	return 0
}
