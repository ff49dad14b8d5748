package predict

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
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
// from a prior: a fleet model's predicted log-speedups for the device. It
// measures in batches, each mostly the configurations ranked best and partly
// configurations drawn at random (so that a prior that misleads costs a
// share of each batch, not the search), fits a correction of the prior to
// what it measured and ranks the rest again. It stops when, under a
// Gaussian model of the prediction error, the probability that any
// unmeasured configuration beats the best measured by more than Epsilon
// falls below Threshold, or at Budget.
//
// The prediction of a configuration is prior + w*correction, where the
// correction is fitted on the residuals of the measurements (with the prior
// as one of its inputs) and w = m/(m+Shrink) grows with the m measurements:
// the prior rules while there are few, the measurements once there are
// many. The error model's variance is that of the errors of predictions
// made before each configuration was measured, with the prior's Sigma
// counted as one observation.
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

// ErrNoCandidates is returned by PriorSearch.Run for an empty space.
var ErrNoCandidates = errors.New("predict: no candidate configurations")

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
		return o, fmt.Errorf("predict: PriorSearch.Batch must be >= 1, got %d", o.Batch)
	case !(o.Explore > 0 && o.Explore <= 1):
		return o, fmt.Errorf("predict: PriorSearch.Explore must be in (0, 1], got %g", o.Explore)
	case !(o.Threshold > 0 && o.Threshold < 1):
		return o, fmt.Errorf("predict: PriorSearch.Threshold must be in (0, 1), got %g", o.Threshold)
	case !(o.Epsilon >= 0):
		return o, fmt.Errorf("predict: PriorSearch.Epsilon must be >= 0, got %g", o.Epsilon)
	case !(o.Sigma > 0):
		return o, fmt.Errorf("predict: PriorSearch.Sigma must be > 0, got %g", o.Sigma)
	case !(o.Shrink > 0):
		return o, fmt.Errorf("predict: PriorSearch.Shrink must be > 0, got %g", o.Shrink)
	case o.Budget < 0:
		return o, fmt.Errorf("predict: PriorSearch.Budget must be >= 0, got %d", o.Budget)
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
		return PriorResult{}, fmt.Errorf("predict: PriorSpace has %d feature values for %d candidates of %d features", len(s.X), n, s.NumFeatures)
	}
	o, err := o.withDefaults(n)
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
	mu := slices.Clone(prior)
	measured := make([]bool, n)
	rng := rand.New(rand.NewPCG(o.Seed, 0x9e10))
	res := PriorResult{Best: -1, LogSpeedup: math.Inf(-1)}
	errN, errSq := 1.0, o.Sigma*o.Sigma
	var cx, cy []float64
	for len(res.Order) < o.Budget {
		idx := o.nextBatch(mu, measured, min(o.Batch, o.Budget-len(res.Order)), rng)
		if len(idx) == 0 {
			break
		}
		ys, err := measure(idx)
		if err != nil {
			return res, err
		}
		if len(ys) != len(idx) {
			return res, fmt.Errorf("predict: measure returned %d values for %d configurations", len(ys), len(idx))
		}
		for j, i := range idx {
			measured[i] = true
			y := ys[j]
			res.Order, res.Values = append(res.Order, i), append(res.Values, y)
			target := failedLogSpeedup
			if !math.IsNaN(y) {
				e := y - mu[i]
				errN, errSq = errN+1, errSq+e*e
				if y > res.LogSpeedup {
					res.Best, res.LogSpeedup = i, y
				}
				target = y
			}
			cx = append(cx, s.X[i*s.NumFeatures:(i+1)*s.NumFeatures]...)
			cx = append(cx, prior[i])
			cy = append(cy, target-prior[i])
		}
		if err := o.correct(mu, prior, measured, s, fit, cx, cy); err != nil {
			return res, err
		}
		res.Sigma = math.Sqrt(errSq / errN)
		if res.StopAt == 0 && res.Best >= 0 && o.chanceOfBetter(mu, measured, res.LogSpeedup, res.Sigma) < o.Threshold {
			res.StopAt = len(res.Order)
			if !o.Full {
				break
			}
		}
	}
	res.Sigma = math.Sqrt(errSq / errN)
	return res, nil
}

// nextBatch picks k unmeasured candidates: the best ranked by mu, and a
// share Explore of them (rounded at random, so that it holds on average)
// drawn uniformly from the rest.
func (o PriorSearch) nextBatch(mu []float64, measured []bool, k int, rng *rand.Rand) []int {
	var free []int
	for i, m := range measured {
		if !m {
			free = append(free, i)
		}
	}
	k = min(k, len(free))
	r := o.Explore * float64(k)
	explore := int(r)
	if rng.Float64() < r-float64(explore) {
		explore++
	}
	// Stable, so that ties keep the candidates' order and a run is
	// reproducible.
	slices.SortStableFunc(free, func(a, b int) int {
		switch {
		case mu[a] > mu[b]:
			return -1
		case mu[a] < mu[b]:
			return 1
		}
		return 0
	})
	out := slices.Clone(free[:k-explore])
	rest := free[k-explore:]
	for _, j := range rng.Perm(len(rest))[:explore] {
		out = append(out, rest[j])
	}
	return out
}

// correct refits the correction on the measured rows (cx, cy) and sets mu
// of every unmeasured candidate to its prior plus the weighted correction.
func (o PriorSearch) correct(mu, prior []float64, measured []bool, s PriorSpace, fit Refitter, cx, cy []float64) error {
	m := len(cy)
	if m < 2 {
		return nil
	}
	nf := s.NumFeatures + 1
	p, err := fit.Refit(cx, nf, cy)
	if err != nil {
		return fmt.Errorf("predict: refit on %d measurements: %w", m, err)
	}
	w := float64(m) / (float64(m) + o.Shrink)
	x := make([]float64, nf)
	for i := range mu {
		if measured[i] {
			continue
		}
		copy(x, s.X[i*s.NumFeatures:(i+1)*s.NumFeatures])
		x[nf-1] = prior[i]
		mu[i] = prior[i] + w*p.Predict(x)
	}
	return nil
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
