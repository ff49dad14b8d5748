package search

import (
	"fmt"
	"math"
	"slices"

	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/predict"
)

// SecondStage configures the second stage of Falch and Elster's two-stage
// tuner (section 5.3): after a model was trained on a random sample, the
// pruned space is measured in order of predicted speed for as long as the
// probability that the next configuration beats the best measured so far
// stays above Threshold. The probability comes from a Gaussian error model
// on the log-speedup whose variance is re-estimated from the errors of the
// configurations measured in this stage.
//
// With Random set, a share of the stage's measurements are random draws
// instead, interleaved with the ranking's: a model fitted on a 2% sample
// can rank the top of the space badly (the Kernel Tuner A4000 space: its
// ranking's first 100 configurations held nothing better than the sample's
// best), and the sample cannot tell (a cross-validated measure of how well
// the model ranks held-out sample rows spread as widely on the A4000 as on
// the H200, where the ranking wins); random draws bound how far the stage
// falls behind random search, and cost little where the ranking is good.
type SecondStage struct {
	// Threshold is T, the probability below which the stage stops; 0 means
	// 0.1. It must be in (0, 1).
	Threshold float64
	// Sigma is the standard deviation of the model's error before any
	// measurement, in log-speedup (e.g. its cross-validated RMSE); 0 means
	// 0.3.
	Sigma float64
	// Budget caps the measurements of this stage; 0 means no cap.
	Budget int
	// Random is the space in a random order (the first stage's random
	// sample continued); nil measures the ranking alone.
	Random []features.Config
	// Explore is the share of the stage's measurements drawn from Random,
	// interleaved with the ranking's, while the ranking's next
	// configuration may still beat the best; 0 means 0.5. It must be in
	// [0, 1). 0.5 is measured in bench/RESULTS.md (2026-11-26): against
	// 0.25 and the ranking alone it kept the tuner at or above random
	// search at equal count on the most (platform, threshold) pairs.
	Explore float64
	// Failures, when set, predicts which configurations fail on the
	// device (a build error, an invalid work-group size, out of
	// resources) from those measured so far; the stage tells it every
	// outcome. A configuration can beat the best only if it runs, so the
	// ranking's next configuration is measured when P(it runs) x P(it
	// beats the best | it runs) is at least Threshold, and passed over
	// otherwise (reconsidered when the model changes); a random draw is
	// passed over when P(it runs) is below Threshold. The stage still
	// stops at the first configuration of the ranking whose P(beats the
	// best | it runs) is below Threshold, as without it. nil measures
	// every configuration the ranking or the random order proposes.
	Failures FailureModel
}

// FailureModel predicts whether a configuration fails on the device from
// the outcomes of the configurations measured so far (SecondStage's
// Failures). eval.FailureForest, a random-forest classifier of the
// measured configurations, is the one eval's replays and 'augur tune'
// use.
type FailureModel interface {
	// Observe records that c was measured and whether it failed, and
	// reports whether PFail's answers may have changed.
	Observe(c features.Config, failed bool) (changed bool)
	// PFail returns the probability, in [0, 1], that c fails.
	PFail(c features.Config) float64
}

// Measured is one configuration measured by the second stage.
type Measured struct {
	Config     features.Config
	LogSpeedup float64 // NaN when the measurement failed
}

// StageResult is the outcome of the second stage.
type StageResult struct {
	Best       features.Config
	LogSpeedup float64 // of Best; -Inf when nothing succeeded
	// Measured lists every configuration measured, in order.
	Measured []Measured
	// Drawn is the number of Measured drawn from SecondStage.Random.
	Drawn int
	// Failed is the number of Measured that failed.
	Failed int
	// Passed is the number of configurations of the ranking or of the
	// random draws passed over as predicted to fail (SecondStage.Failures)
	// at least once; some may be measured later.
	Passed int
}

// Run measures ranked (fastest predicted first) with measure, starting from
// the best log-speedup measured in the first stage, best (-Inf if none),
// and its configuration bestConfig. measure returns the measured
// log-speedup or an error for a configuration that failed; failed ones are
// skipped and do not update the error model. Configurations in skip (keyed
// by Space.Format, e.g. those already measured in the first stage) are not
// measured again.
func (o SecondStage) Run(ranked []predict.Scored, best float64, bestConfig features.Config, skip func(features.Config) bool,
	measure func(features.Config) (float64, error)) (StageResult, error) {
	t, sigma := o.Threshold, o.Sigma
	if t == 0 {
		t = 0.1
	}
	if sigma == 0 {
		sigma = 0.3
	}
	if !(t > 0 && t < 1) {
		return StageResult{}, fmt.Errorf("search: SecondStage.Threshold must be in (0, 1), got %g", o.Threshold)
	}
	if !(sigma > 0) || o.Budget < 0 {
		return StageResult{}, fmt.Errorf("search: SecondStage.Sigma must be > 0 and Budget >= 0, got %g and %d", o.Sigma, o.Budget)
	}
	explore := o.Explore
	if explore == 0 {
		explore = 0.5
	}
	if !(explore >= 0 && explore < 1) {
		return StageResult{}, fmt.Errorf("search: SecondStage.Explore must be in [0, 1), got %g", o.Explore)
	}
	st := &stage{o: o, t: t, explore: explore, ranked: ranked, skip: skip, measure: measure,
		res: StageResult{Best: bestConfig, LogSpeedup: best}, n: 1, sumSq: sigma * sigma,
		measured: map[string]bool{}, q: map[int]float64{}, passedOver: map[string]bool{}}
	st.loop()
	return st.res, nil
}

// stage is one run of a SecondStage.
type stage struct {
	o          SecondStage
	t, explore float64
	ranked     []predict.Scored
	skip       func(features.Config) bool
	measure    func(features.Config) (float64, error)
	res        StageResult
	// Running variance of the ranking's errors: the prior counts as one
	// observation of sigma^2, so that the first measurements do not
	// collapse it.
	n, sumSq float64
	// Configurations measured by this stage, so that the ranking and the
	// random draws skip each other's.
	measured map[string]bool
	// next is the first index of ranked not yet measured or passed over;
	// passed holds the indices before it passed over as predicted to fail,
	// in rank order, and q their P(fail) since the failure model last
	// changed.
	next, nextRand int
	passed         []int
	q              map[int]float64
	// keys holds key(ranked[j].Config) once computed: the passed-over
	// configurations are looked up at every step.
	keys       []string
	passedOver map[string]bool // every configuration passed over, for Passed
}

func key(c features.Config) string { return fmt.Sprint([]int(c)) }

// rankKey is key(ranked[j].Config), computed once.
func (s *stage) rankKey(j int) string {
	if s.keys == nil {
		s.keys = make([]string, len(s.ranked))
	}
	if s.keys[j] == "" {
		s.keys[j] = key(s.ranked[j].Config)
	}
	return s.keys[j]
}

func (s *stage) fresh(c features.Config) bool {
	return !s.measured[key(c)] && (s.skip == nil || !s.skip(c))
}

func (s *stage) loop() {
	for s.o.Budget == 0 || len(s.res.Measured) < s.o.Budget {
		j, ok := s.nextRanked()
		if !ok {
			return
		}
		if s.o.Random != nil && float64(s.res.Drawn) < s.explore*float64(len(s.res.Measured)+1) {
			if r, ok := s.nextRandom(); ok {
				s.res.Drawn++
				s.take(r, math.NaN())
				continue
			}
		}
		s.take(s.ranked[j].Config, s.ranked[j].LogSpeedup)
	}
}

// nextRanked returns the index of the ranking's next configuration to
// measure: the first, passed-over ones included, whose chance of beating
// the best is at least T; false when the stage stops (the chance given
// that it runs is below T for the first of them, so for every later one)
// or the ranking is done.
func (s *stage) nextRanked() (int, bool) {
	sd := math.Sqrt(s.sumSq / s.n)
	keep := s.passed[:0]
	defer func() { s.passed = keep }()
	try := func(j int) (take, stop bool) {
		c := s.ranked[j]
		// P(y > best) for y ~ N(prediction, sd^2).
		p := 1.0
		if !math.IsInf(s.res.LogSpeedup, -1) {
			p = 0.5 * math.Erfc((s.res.LogSpeedup-c.LogSpeedup)/(sd*math.Sqrt2))
		}
		if p < s.t {
			return false, true
		}
		return (1-s.pFail(j))*p >= s.t, false
	}
	for k, j := range s.passed {
		if s.measured[s.rankKey(j)] {
			continue // measured since as a random draw
		}
		take, stop := try(j)
		if take || stop {
			keep = append(keep, s.passed[k:]...)
			return j, take
		}
		keep = append(keep, j)
	}
	for ; s.next < len(s.ranked); s.next++ {
		j := s.next
		if !s.fresh(s.ranked[j].Config) {
			continue
		}
		take, stop := try(j)
		if take || stop {
			return j, take
		}
		keep = append(keep, j)
		s.passOver(s.ranked[j].Config)
	}
	return 0, false
}

// pFail is the failure model's P(fail) of ranked[j], kept until the model
// changes; 0 without a model.
func (s *stage) pFail(j int) float64 {
	if s.o.Failures == nil {
		return 0
	}
	q, ok := s.q[j]
	if !ok {
		q = s.o.Failures.PFail(s.ranked[j].Config)
		s.q[j] = q
	}
	return q
}

// nextRandom returns the next random draw to measure, passing over those
// whose chance to run is below T; false when none is left.
func (s *stage) nextRandom() (features.Config, bool) {
	for ; s.nextRand < len(s.o.Random); s.nextRand++ {
		r := s.o.Random[s.nextRand]
		if !s.fresh(r) {
			continue
		}
		if s.o.Failures != nil && 1-s.o.Failures.PFail(r) < s.t {
			s.passOver(r)
			continue
		}
		s.nextRand++
		return r, true
	}
	return nil, false
}

// passOver counts c, passed over as predicted to fail, once.
func (s *stage) passOver(c features.Config) {
	if k := key(c); !s.passedOver[k] {
		s.passedOver[k] = true
		s.res.Passed++
	}
}

// take measures c, predicted at pred (NaN for a random draw, which does
// not update the error model), and records the outcome.
func (s *stage) take(c features.Config, pred float64) {
	s.measured[key(c)] = true
	y, err := s.measure(c)
	failed := err != nil
	if s.o.Failures != nil && s.o.Failures.Observe(c, failed) {
		clear(s.q)
	}
	if failed {
		s.res.Failed++
		s.res.Measured = append(s.res.Measured, Measured{Config: c, LogSpeedup: math.NaN()})
		return
	}
	s.res.Measured = append(s.res.Measured, Measured{Config: c, LogSpeedup: y})
	if !math.IsNaN(pred) {
		e := y - pred
		s.n++
		s.sumSq += e * e
	}
	if y > s.res.LogSpeedup {
		s.res.LogSpeedup, s.res.Best = y, c
	}
}

// RandomMedian returns the median of the best time that random search
// finds with k measurements drawn without replacement from a space of n
// configurations, of which those in times ran (in any unit; the other n -
// len(times) failed): exact, from the hypergeometric law, where one
// replay of random search is one draw of it. The best of k is at most
// times' j-th smallest with probability 1 - C(n-j, k)/C(n, k); the median
// is the first of them where that reaches 1/2. It is +Inf when k < 1 or
// when k draws more likely than not find nothing that ran. times is not
// modified.
//
// Replayed with 100 seeds, the median of random search's figure on the
// Kernel Tuner A4000 space at 255 measurements moved between 86.2% and
// 94.3% of the optimum over 20 sets of seeds (bench/RESULTS.md,
// 2026-11-26, session 14): too coarse to tell a tuner from it by a point.
func RandomMedian(times []float64, n, k int) float64 {
	if k < 1 || len(times) == 0 {
		return math.Inf(1)
	}
	s := slices.Clone(times)
	slices.Sort(s)
	if k >= n {
		return s[0]
	}
	lcomb := func(a, b int) float64 {
		x, _ := math.Lgamma(float64(a + 1))
		y, _ := math.Lgamma(float64(b + 1))
		z, _ := math.Lgamma(float64(a - b + 1))
		return x - y - z
	}
	all := lcomb(n, k)
	for j, t := range s {
		rest := n - (j + 1) // configurations slower than t, or failed
		if rest < k || 1-math.Exp(lcomb(rest, k)-all) >= 0.5 {
			return t
		}
	}
	return math.Inf(1)
}
