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
	res := StageResult{Best: bestConfig, LogSpeedup: best}
	// Running variance of the errors: the prior counts as one observation
	// of sigma^2, so that the first measurements do not collapse it.
	n, sumSq := 1.0, sigma*sigma
	// Configurations measured by this stage, so that the ranking and the
	// random draws skip each other's.
	measured := map[string]bool{}
	key := func(c features.Config) string { return fmt.Sprint([]int(c)) }
	fresh := func(c features.Config) bool { return !measured[key(c)] && (skip == nil || !skip(c)) }
	next, nextRand := 0, 0
	for o.Budget == 0 || len(res.Measured) < o.Budget {
		for next < len(ranked) && !fresh(ranked[next].Config) {
			next++
		}
		if next == len(ranked) {
			break
		}
		c := ranked[next]
		sd := math.Sqrt(sumSq / n)
		// P(y > best) for y ~ N(prediction, sd^2).
		if !math.IsInf(res.LogSpeedup, -1) {
			p := 0.5 * math.Erfc((res.LogSpeedup-c.LogSpeedup)/(sd*math.Sqrt2))
			if p < t {
				break
			}
		}
		if o.Random != nil && float64(res.Drawn) < explore*float64(len(res.Measured)+1) {
			for nextRand < len(o.Random) && !fresh(o.Random[nextRand]) {
				nextRand++
			}
			if nextRand < len(o.Random) {
				r := o.Random[nextRand]
				measured[key(r)] = true
				res.Drawn++
				y, err := measure(r)
				if err != nil {
					res.Measured = append(res.Measured, Measured{Config: r, LogSpeedup: math.NaN()})
					continue
				}
				res.Measured = append(res.Measured, Measured{Config: r, LogSpeedup: y})
				if y > res.LogSpeedup {
					res.LogSpeedup, res.Best = y, r
				}
				continue
			}
		}
		measured[key(c.Config)] = true
		y, err := measure(c.Config)
		if err != nil {
			res.Measured = append(res.Measured, Measured{Config: c.Config, LogSpeedup: math.NaN()})
			continue
		}
		res.Measured = append(res.Measured, Measured{Config: c.Config, LogSpeedup: y})
		e := y - c.LogSpeedup
		n++
		sumSq += e * e
		if y > res.LogSpeedup {
			res.LogSpeedup, res.Best = y, c.Config
		}
	}
	return res, nil
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
