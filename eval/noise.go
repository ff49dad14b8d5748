package eval

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"

	"github.com/augur-tuning/augur/collect/record"
	"github.com/augur-tuning/augur/features"
)

// noiseMeaning is NoiseReport.Meaning, written into every report so that
// the JSON explains itself.
const noiseMeaning = "Split-half noise ceiling. Each configuration's timed runs are split in two halves: " +
	"the row's own runs where its file keeps them (times_ns; rows_kept_runs counts those rows) or its " +
	"summary determines them (3 runs or fewer; rows_recorded_runs counts both kinds); otherwise runs " +
	"rebuilt from the row's minimum, median and coefficient of variation, none faster than its minimum " +
	"(rows_drawn_runs counts rows with no such runs, drawn lognormal instead). An oracle picks the " +
	"configuration fastest by one half's median and is judged by the other half against that half's " +
	"fastest configuration, and the reverse, averaged over random splits: what a pick that measured " +
	"everything once scores when judged as eval judges picks. recorded_best is the recorded " +
	"optimum's configuration, pick the held-out model's pick, re-judged by the same rule. " +
	"Percent of the other half's best, geometric mean over shapes (worst shape)."

// Timing is what a dataset row keeps of one configuration's timed runs:
// record.Row's TimeNs, TimeMinNs, TimeCV and Repeats, and its Runs where
// its file keeps them.
type Timing struct {
	MedianNs, MinNs float64
	// CV is the runs' population standard deviation over their mean.
	CV      float64
	Repeats int
	// Runs are the timed runs in nanoseconds (record.Row.Runs), nil
	// where the row does not keep them: SplitHalf then rebuilds them
	// from the summary above. When set, they are the runs split, and
	// their count stands for Repeats.
	Runs []float64
}

// NoiseOptions configure SplitHalf and the noise ceiling of Evaluate.
type NoiseOptions struct {
	// Draws is the number of random splits a shape is judged over (each
	// judged both ways); 0 means 200.
	Draws int
	// Seed drives the splits and the drawn runs.
	Seed uint64
}

// check returns an error naming the first invalid field of o.
func (o NoiseOptions) check() error {
	if o.Draws < 0 {
		return fmt.Errorf("eval: NoiseOptions.Draws must be >= 0, got %d", o.Draws)
	}
	return nil
}

// defaultNoiseDraws is NoiseOptions.Draws' default: over 200 splits the
// ceiling of testdata/h200 moves by 0.1 point at the geometric mean and
// 0.5 at the worst shape between seeds 1 to 4, in about a second.
const defaultNoiseDraws = 200

// NoiseReport is the split-half noise ceiling of a report's shapes
// (noiseMeaning says what the figures are).
type NoiseReport struct {
	Meaning string       `json:"meaning"`
	Shapes  []NoiseShape `json:"shapes"`
	// Pct and Worst are the oracle's geometric mean over the shapes and
	// its worst shape, in % of the other half's best.
	Pct   float64 `json:"oracle_pct_of_best"`
	Worst float64 `json:"oracle_worst_pct_of_best"`
	// RecordedBestPct and RecordedBestWorst are the same for the
	// configuration with the fastest recorded median.
	RecordedBestPct   float64 `json:"recorded_best_pct_of_best"`
	RecordedBestWorst float64 `json:"recorded_best_worst_pct_of_best"`
	// PickPct and PickWorst are the held-out picks re-judged, over the
	// Picks shapes whose pick was recorded ok (0 without a holdout).
	PickPct   float64 `json:"pick_pct_of_best,omitempty"`
	PickWorst float64 `json:"pick_worst_pct_of_best,omitempty"`
	Picks     int     `json:"picks,omitempty"`
	// PicksFewerRuns counts, of Picks, those whose row was timed with
	// fewer runs than its shape's recorded optimum's: an optimum re-timed
	// by collect's second pass (collect.Confirm) beside a pick timed once.
	// Their misses rest on the noisier timing: on the H100's 29 conv2d
	// shapes the seven worst picks were such, and with every pick timed
	// again like the optima the set's picks scored 2.1 points more
	// (bench/RESULTS.md, session 22).
	PicksFewerRuns int `json:"picks_fewer_runs,omitempty"`
	// OptimaOnce counts the shapes whose recorded optimum was timed with
	// no more runs than the shape's least-timed rows: nothing timed it again
	// (collect.Confirm). The fastest of many first timings is partly
	// luck, and it judges every pick: the Xeon's 8 whole spaces (3 runs a
	// row) re-timed had their recorded optima at 86-90% of the re-timed
	// best, and picks judged at 80% by the first timings scored 93%
	// (bench/RESULTS.md, session 24).
	OptimaOnce int `json:"optima_timed_once,omitempty"`
	// The configurations split from their recorded runs, from rebuilt
	// runs and from drawn runs (Split's counts, summed over the shapes);
	// RowsKept counts, of RowsRecorded, those whose runs their file kept.
	RowsRecorded int `json:"rows_recorded_runs"`
	RowsKept     int `json:"rows_kept_runs"`
	RowsRebuilt  int `json:"rows_rebuilt_runs"`
	RowsDrawn    int `json:"rows_drawn_runs"`
	Draws        int `json:"draws"`
}

// NoiseShape is one shape's figures of a NoiseReport; PickPct is 0 when
// the shape has no recorded pick.
type NoiseShape struct {
	Platform        string  `json:"platform"`
	Shape           string  `json:"shape"`
	Configs         int     `json:"configs"`
	Pct             float64 `json:"oracle_pct_of_best"`
	RecordedBestPct float64 `json:"recorded_best_pct_of_best"`
	PickPct         float64 `json:"pick_pct_of_best,omitempty"`
	// BestRuns and PickRuns are the timed runs of the recorded optimum's
	// row and of the pick's (0 without a recorded pick).
	BestRuns int `json:"best_runs"`
	PickRuns int `json:"pick_runs,omitempty"`
}

// Split is SplitHalf's answer for one shape. Oracle is the score of the
// configuration fastest by one half, judged by the other half against that
// half's fastest, and Scores[k] that of SplitHalf's judged[k] by the same
// rule, in % of the best: geometric means over the splits, each judged
// both ways. Recorded, Rebuilt and Drawn count the configurations whose
// runs were their recorded ones (kept, Timing.Runs, or determined by a
// summary of 3 runs or fewer), rebuilt (RebuildRuns) or, where no runs
// have the row's summary, drawn lognormal around its median with its CV;
// Kept counts those of Recorded whose runs were kept.
type Split struct {
	Oracle                   float64
	Scores                   []float64
	Recorded, Rebuilt, Drawn int
	Kept                     int
}

// SplitHalf judges one shape's configurations, ts, by split halves of
// their timed runs (see Split); judged are indexes into ts.
func SplitHalf(ts []Timing, judged []int, opt NoiseOptions) (Split, error) {
	var sp Split
	if err := opt.check(); err != nil {
		return sp, err
	}
	if opt.Draws == 0 {
		opt.Draws = defaultNoiseDraws
	}
	if len(ts) == 0 {
		return sp, fmt.Errorf("eval: SplitHalf needs a configuration")
	}
	for _, j := range judged {
		if j < 0 || j >= len(ts) {
			return sp, fmt.Errorf("eval: SplitHalf: judged index %d outside [0, %d)", j, len(ts))
		}
	}
	runs := make([][]float64, len(ts)) // nil where drawn
	sigma := make([]float64, len(ts))
	for i, t := range ts {
		if t.Runs != nil {
			t.Repeats = len(t.Runs)
		}
		if t.Repeats < 2 {
			return sp, fmt.Errorf("%w: configuration %d has %d", ErrNoRepeats, i, t.Repeats)
		}
		if !(t.MedianNs > 0) {
			return sp, fmt.Errorf("eval: SplitHalf: configuration %d has median %g ns", i, t.MedianNs)
		}
		if t.Runs != nil {
			for _, ns := range t.Runs {
				if !(ns > 0) {
					return sp, fmt.Errorf("eval: SplitHalf: configuration %d has a run of %g ns", i, ns)
				}
			}
			runs[i] = t.Runs
			sp.Recorded++
			sp.Kept++
			continue
		}
		if runs[i] = RebuildRuns(t); runs[i] != nil {
			if t.Repeats <= 3 {
				sp.Recorded++
			} else {
				sp.Rebuilt++
			}
			continue
		}
		// Drawn runs have a fast tail that no recorded run showed: on the
		// Xeon's 3-run rows, whose runs are known, drawing them would put
		// the ceiling at 33% instead of 91%. They stand in only where no
		// runs have the row's summary (none in the shipped data).
		// The population CV of n runs underestimates the runs' spread by
		// sqrt((n-1)/n); a lognormal of that spread has this sigma.
		n := float64(t.Repeats)
		cv := t.CV * math.Sqrt(n/(n-1))
		sigma[i] = math.Sqrt(math.Log1p(cv * cv))
		sp.Drawn++
	}
	rng := rand.New(rand.NewPCG(opt.Seed, 0x5e1f))
	a, b := make([]float64, len(ts)), make([]float64, len(ts))
	var buf []float64
	var sumOracle float64
	sums := make([]float64, len(judged))
	for range opt.Draws {
		for i, t := range ts {
			buf = buf[:0]
			if runs[i] != nil {
				buf = append(buf, runs[i]...)
				rng.Shuffle(len(buf), func(x, y int) { buf[x], buf[y] = buf[y], buf[x] })
			} else {
				for range t.Repeats {
					buf = append(buf, t.MedianNs*math.Exp(sigma[i]*rng.NormFloat64()))
				}
			}
			h := len(buf) / 2
			a[i], b[i] = sortedMedian(buf[:h]), sortedMedian(buf[h:])
		}
		for _, dir := range [2][2][]float64{{a, b}, {b, a}} {
			choose, judge := dir[0], dir[1]
			best := slices.Min(judge)
			sumOracle += math.Log(best / judge[argmin(choose)])
			for k, j := range judged {
				sums[k] += math.Log(best / judge[j])
			}
		}
	}
	n := float64(2 * opt.Draws)
	sp.Oracle = 100 * math.Exp(sumOracle/n)
	sp.Scores = make([]float64, len(judged))
	for k := range sums {
		sp.Scores[k] = 100 * math.Exp(sums[k]/n)
	}
	return sp, nil
}

// RebuildRuns returns runs that have a row's summary: its minimum, its
// median and its coefficient of variation, or nil when it finds none.
// Up to 3 runs the summary determines them: 2 runs are the minimum and
// twice the median less it; 3 runs the minimum, the median and the maximum
// that gives the CV. For more, the runs below the median are spread evenly
// between the minimum and the median, and those above it evenly from the
// median up to the maximum that gives the CV (or, when even spacing below
// already spreads them more than the CV, those above equal the median and
// those below move up towards it): one set of runs among the many with
// that summary, none faster than the recorded minimum.
func RebuildRuns(t Timing) []float64 {
	lo, mid, n := t.MinNs, t.MedianNs, t.Repeats
	if !(lo > 0 && lo <= mid) || n < 2 {
		return nil
	}
	if n == 2 {
		return []float64{lo, 2*mid - lo}
	}
	// Sorted runs x[0..n-1] = c + d w: x[0] = lo; the median is x[m] (odd
	// n) or the mean of x[m-1] = x[m] = mid (even n).
	m := n / 2
	below := m // runs before the median's position
	if n%2 == 0 {
		below = m - 1
	}
	c, w := make([]float64, n), make([]float64, n)
	for i := range n {
		switch {
		case i < below:
			c[i] = lo + (mid-lo)*float64(i)/float64(below)
		case i <= m:
			c[i] = mid
		default:
			c[i], w[i] = mid, float64(i-m)/float64(n-1-m)
		}
	}
	if _, d, ok := spreadRoots(c, w, t.CV); ok && d >= 0 {
		return addScaled(c, w, d)
	}
	// The runs above the median equal it; x[i] = mid - e (below-i)/below
	// below it, even spacing at e = mid - lo.
	for i := range n {
		c[i], w[i] = mid, 0
		if i < below {
			w[i] = -float64(below-i) / float64(below)
		}
	}
	c[0], w[0] = lo, 0
	r1, r2, ok := spreadRoots(c, w, t.CV)
	for _, e := range []float64{r2, r1} {
		if ok && e >= 0 && e <= mid-lo {
			return addScaled(c, w, e)
		}
	}
	return nil
}

// spreadRoots returns the roots r1 <= r2 of d for which the runs c + d w
// have the coefficient of variation cv (population standard deviation
// over mean): n Σx² = (1+cv²) (Σx)², a quadratic in d.
func spreadRoots(c, w []float64, cv float64) (r1, r2 float64, ok bool) {
	var sc, sw, scc, scw, sww float64
	for i := range c {
		sc, sw = sc+c[i], sw+w[i]
		scc, scw, sww = scc+c[i]*c[i], scw+c[i]*w[i], sww+w[i]*w[i]
	}
	k, n := 1+cv*cv, float64(len(c))
	qa, qb, qc := n*sww-k*sw*sw, 2*(n*scw-k*sc*sw), n*scc-k*sc*sc
	disc := qb*qb - 4*qa*qc
	if !(qa > 0) || disc < -1e-9*qb*qb {
		return 0, 0, false
	}
	sq := math.Sqrt(max(disc, 0))
	return (-qb - sq) / (2 * qa), (-qb + sq) / (2 * qa), true
}

// addScaled sets c to c + d w and returns it.
func addScaled(c, w []float64, d float64) []float64 {
	for i := range c {
		c[i] += d * w[i]
	}
	return c
}

// sortedMedian is record.Summarize's median of xs, which it sorts (median
// clones; this runs once a configuration a split).
func sortedMedian(xs []float64) float64 {
	slices.Sort(xs)
	n := len(xs)
	if n%2 == 0 {
		return (xs[n/2-1] + xs[n/2]) / 2
	}
	return xs[n/2]
}

func argmin(xs []float64) int {
	at := 0
	for i, x := range xs {
		if x < xs[at] {
			at = i
		}
	}
	return at
}

// noiseShape is one (platform, task)'s recorded timings, read from the
// dataset files.
type noiseShape struct {
	platform, shape string
	names           []string // space.Format of each configuration
	times           []Timing
}

// readTimings reads the ok rows' timings of kernel under dir, one
// noiseShape a (platform, task), keeping of a configuration recorded twice
// the row with more runs (the later on a tie), as train.LoadWith does.
func readTimings(dir string, space *features.Space, opt Options) ([]*noiseShape, error) {
	paths, err := record.Files(filepath.Join(dir, opt.Kernel))
	if err != nil {
		return nil, err // record names itself
	}
	type key struct{ platform, shape string }
	byKey := map[key]*noiseShape{}
	var out []*noiseShape
	at := map[key]map[string]int{}
	for _, path := range paths {
		meta, rows, err := record.ReadFileWith(path, record.ReadOptions{Tasks: opt.Tasks, Runs: true})
		if err != nil {
			return nil, err // record names itself and the file
		}
		slug := meta.Platform.Slug()
		for _, r := range rows {
			if r.Status != record.StatusOK || !(r.TimeNs > 0) {
				continue
			}
			k := key{slug, features.FormatTask(meta.TaskNames, r.Task)}
			s := byKey[k]
			if s == nil {
				s = &noiseShape{platform: k.platform, shape: k.shape}
				byKey[k], at[k] = s, map[string]int{}
				out = append(out, s)
			}
			t := Timing{MedianNs: r.TimeNs, MinNs: r.TimeMinNs, CV: r.TimeCV, Repeats: r.Repeats}
			if r.Runs != nil {
				t.Runs = make([]float64, len(r.Runs))
				for j, ns := range r.Runs {
					t.Runs[j] = float64(ns)
				}
			}
			name := space.Format(r.Config)
			if i, dup := at[k][name]; dup {
				if t.Repeats >= s.times[i].Repeats {
					s.times[i] = t
				}
				continue
			}
			at[k][name] = len(s.times)
			s.names = append(s.names, name)
			s.times = append(s.times, t)
		}
	}
	return out, nil
}

// noiseCeiling is Evaluate's split-half noise ceiling of the data under
// dir: over the held-out shapes, and their picks, when h is not nil, else
// over every shape. Shapes with a configuration timed fewer than twice are
// left out; nil when none is left.
func noiseCeiling(dir string, space *features.Space, h *HoldoutReport, opt Options) (*NoiseReport, error) {
	shapes, err := readTimings(dir, space, opt)
	if err != nil {
		return nil, err
	}
	picks := map[[2]string]string{}
	if h != nil {
		for _, s := range h.Shapes {
			picks[[2]string{s.Platform, s.Shape}] = s.Chosen
		}
	}
	nopt := opt.Noise
	nopt.Seed = opt.Seed
	rep := &NoiseReport{Meaning: noiseMeaning, Draws: cmp.Or(nopt.Draws, defaultNoiseDraws)}
	var logO, logR, logP float64
	for _, s := range shapes {
		chosen, held := picks[[2]string{s.platform, s.shape}]
		if h != nil && !held {
			continue
		}
		judged := []int{argminTiming(s.times)}
		pick := slices.Index(s.names, chosen)
		if held && pick >= 0 {
			judged = append(judged, pick)
		}
		sp, err := SplitHalf(s.times, judged, nopt)
		if errors.Is(err, ErrNoRepeats) {
			continue
		}
		if err != nil {
			return nil, err
		}
		oracle, scores := sp.Oracle, sp.Scores
		rep.RowsRecorded += sp.Recorded
		rep.RowsKept += sp.Kept
		rep.RowsRebuilt += sp.Rebuilt
		rep.RowsDrawn += sp.Drawn
		ns := NoiseShape{Platform: s.platform, Shape: s.shape, Configs: len(s.times), Pct: oracle, RecordedBestPct: scores[0],
			BestRuns: s.times[judged[0]].Repeats}
		if ns.BestRuns <= minRepeats(s.times) {
			rep.OptimaOnce++
		}
		logO += math.Log(oracle)
		logR += math.Log(scores[0])
		if rep.Worst == 0 || oracle < rep.Worst {
			rep.Worst = oracle
		}
		if rep.RecordedBestWorst == 0 || scores[0] < rep.RecordedBestWorst {
			rep.RecordedBestWorst = scores[0]
		}
		if len(scores) > 1 {
			ns.PickPct, ns.PickRuns = scores[1], s.times[judged[1]].Repeats
			if ns.PickRuns < ns.BestRuns {
				rep.PicksFewerRuns++
			}
			logP += math.Log(scores[1])
			rep.Picks++
			if rep.PickWorst == 0 || scores[1] < rep.PickWorst {
				rep.PickWorst = scores[1]
			}
		}
		rep.Shapes = append(rep.Shapes, ns)
	}
	if len(rep.Shapes) == 0 {
		return nil, nil
	}
	n := float64(len(rep.Shapes))
	rep.Pct, rep.RecordedBestPct = math.Exp(logO/n), math.Exp(logR/n)
	if rep.Picks > 0 {
		rep.PickPct = math.Exp(logP / float64(rep.Picks))
	}
	return rep, nil
}

// medianRepeats is the median of the rows' timed runs.
// minRepeats is the fewest runs a row of ts was timed with: a first
// pass's count, which a row timed again exceeds (most rows may have been
// timed again, after several second passes).
func minRepeats(ts []Timing) int {
	least := ts[0].Repeats
	for _, t := range ts[1:] {
		least = min(least, t.Repeats)
	}
	return least
}

func argminTiming(ts []Timing) int {
	at := 0
	for i, t := range ts {
		if t.MedianNs < ts[at].MedianNs {
			at = i
		}
	}
	return at
}
