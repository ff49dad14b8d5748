package tune

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/augur-tuning/augur/collect"
	"github.com/augur-tuning/augur/collect/record"
	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/eval"
	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/predict"
	"github.com/augur-tuning/augur/search"
	"github.com/augur-tuning/augur/train"
)

// TuneOptions configure Tune. Zero values mean the documented defaults.
type TuneOptions struct {
	// Device is the OpenCL device index.
	Device int
	// Budget is the most configurations the first stage measures, the
	// size of the uniform random sample it stands for; 0 means 2% of the
	// valid space (at least 10). The stage stops sooner when the
	// configurations it predicts to fail are many (eval.DrawFirstStage).
	Budget int
	// Threshold is the second stage's T; 0 means 0.1.
	Threshold float64
	// Max caps the measurements of both stages together, a measurement
	// budget as other tuners' max_fevals: the first stage then measures
	// half of it (Budget, when set, if smaller), the second stage the
	// rest, stopping sooner when Threshold says so. Half, not the default
	// 2%: a model fitted on more of the budget ranks better, and the
	// second stage measures at random too (bench/RESULTS.md, session 30:
	// at 11% of a space a first stage of 2% ended below random search). 0 means no cap; otherwise it
	// must be at least 2 (a model needs two rows). With Prior it caps the
	// fleet-prior tuner's measurements as Budget does (the smaller wins).
	Max int
	// Batch is the number of configurations the second stage measures per
	// device session; 0 means 8. Larger batches waste up to Batch-1
	// measurements at the end but amortize setting the device up.
	Batch int
	// Repeats is the number of timed runs per configuration; 0 means 5.
	Repeats int
	// Out is the dataset directory every measurement is written to; ""
	// writes nothing.
	Out  string
	Seed uint64
	// Prior, when set, is a model bundle of the kernel whose ranking the
	// fleet-prior tuner (search.PriorSearch) starts from instead of the
	// two-stage tuner's random sample: the device's own model when the
	// bundle has one, else its fleet model given the device's platform
	// features. Budget then caps all the measurements (0: 2% of the valid
	// space, at least 10), Threshold is the tuner's stopping probability
	// (0: 0.05) and Batch the measurements between refits (0: 8).
	Prior *features.Bundle
	// Progress receives a line as each batch of measurements starts
	// (and the first stage's progress bar on a terminal); nil means quiet.
	Progress io.Writer
}

// say writes one progress line.
func (o TuneOptions) say(format string, args ...any) {
	if o.Progress != nil {
		fmt.Fprintf(o.Progress, format+"\n", args...)
	}
}

// TuneResult is the outcome of Tune.
type TuneResult struct {
	Task        features.Task
	Best        features.Config
	BestNs      float64
	RefNs       float64
	FirstStage  int // configurations measured at random, stratified by parameter value, in rounds (eval.DrawFirstStage)
	SecondStage int // configurations measured after the first stage: in predicted order and, interleaved, at random
	SpaceSize   int
	// Runnable is the configurations of the space within the device's
	// limits (not eval.Pruned), the ones the two-stage tuner draws from;
	// 0 for the fleet-prior tuner.
	Runnable  int
	Path      string
	Wall      time.Duration
	TaskNames []string
	Space     *features.Space
	// Kernel is the kernel tuned; its FormatConfig and NamedConfig name a
	// spec's string and float parameters' values by their texts.
	Kernel       *datasets.Kernel
	PlatformSlug string
	// Learner is the two-stage tuner's first-stage model: the setting
	// train's selection chose on the first stage's measurements
	// (eval.FitFirstStage); empty for the fleet-prior tuner.
	Learner string
	// Prior is the model the fleet-prior tuner ranked with ("fleet" or
	// "model:NAME"), empty for the two-stage tuner; Stopped says whether
	// its error model stopped it before the budget.
	Prior   string
	Stopped bool
	// BestIsReference says that no configuration measured beat the
	// reference (Best is the reference configuration).
	BestIsReference bool
	// Failed is the number of configurations measured, both stages, that
	// failed on the device (status other than ok); Passed the number the
	// stages passed over, unmeasured, as predicted to fail
	// (eval.FailureForest), not counting those over the device's limits.
	Failed, Passed int
}

// Tune is Falch and Elster's two-stage tuner on a real device: it measures
// a random sample of the space on one shape, stratified by parameter value
// and drawn in rounds that learn what fails (eval.DrawFirstStage), trains a
// model on the configurations that ran, and then measures
// configurations in predicted order (ties in the sample's random order,
// search.RankInOrder), every other one drawn at random instead
// (search.SecondStage.Random), while the chance that the next one beats
// the best so far stays above the threshold. Configurations that failed,
// in either stage, teach a classifier (eval.FailureForest), and the second
// stage passes over those it predicts to fail (search.SecondStage's
// Failures), as eval's replays of the tuner do.
//
// With opt.Prior it runs the fleet-prior tuner instead: see TuneOptions.
func Tune(ctx context.Context, k *datasets.Kernel, t features.Task, opt TuneOptions) (*TuneResult, error) {
	start := time.Now()
	if err := k.CheckTask(t); err != nil {
		return nil, fmt.Errorf("tune: %w", err)
	}
	if n := k.Space.Len(); n > collect.MaxSampleAll {
		return nil, fmt.Errorf("tune: the two-stage and fleet-prior tuners score every valid configuration, and kernel %s has %d (at most %d): collect a sample (augur collect --sample random:N), train, and measure the model's top candidates (augur tune --model M --top K)", k.Name, n, collect.MaxSampleAll)
	}
	if opt.Prior != nil {
		return tunePrior(ctx, k, t, opt, start)
	}
	valid := k.Space.All()
	if err := opt.twoStageDefaults(len(valid)); err != nil {
		return nil, err
	}
	copt := collect.Options{Device: opt.Device, Repeats: opt.Repeats, Seed: opt.Seed}
	devs, err := collect.ListDevices()
	if err != nil {
		return nil, fmt.Errorf("tune: %w", err)
	}
	if opt.Device < 0 || opt.Device >= len(devs) {
		return nil, fmt.Errorf("tune: no device %d: the OpenCL devices are 0 to %d (augur devices lists them)", opt.Device, len(devs)-1)
	}
	plat := devs[opt.Device]
	enc := features.NewEncoder(k.TaskNames, k.Space).WithDerived(k.Derived)
	pv := plat.Vector()
	fs := newFirstStage(k, enc, plat, t, opt.Seed)
	// The first stage draws in rounds, stratified by parameter value, and
	// learns what fails while it draws (eval.DrawFirstStage), as eval's
	// replays of the tuner measure it; the second stage's random draws
	// continue the same order. The configurations that collect would prune
	// are neither measured nor ranked (eval.Pruned).
	pruned := eval.Pruned(k, t, plat, valid)
	runnable := len(valid)
	for _, p := range pruned {
		if p {
			runnable--
		}
	}
	rng := rand.New(rand.NewPCG(opt.Seed, 0x7e57))
	opt.say("tune: first stage: up to %d random configurations of %d (%d within the device's limits)", min(opt.Budget, len(valid)), len(valid), runnable)
	first, err := fs.draw(valid, rng.Perm(len(valid)), pruned, opt.Budget, func(cs []features.Config) ([]record.Row, error) {
		return collect.Measure(ctx, k, t, cs, copt)
	})
	res := &TuneResult{Task: t, FirstStage: first.Measured, SpaceSize: len(valid), Runnable: runnable, TaskNames: k.TaskNames, Space: k.Space, Kernel: k, PlatformSlug: plat.Slug()}
	if ctx.Err() != nil {
		return res.stop(ctx, opt.Out, k, plat, fs.rows)
	}
	if err != nil {
		return nil, fmt.Errorf("tune: %w", err)
	}
	order := slices.DeleteFunc(first.Order, func(i int) bool { return pruned != nil && pruned[i] })
	res.RefNs = fs.refNs
	if fs.d.Len() < 2 {
		return nil, fmt.Errorf("tune: only %d of %d first-stage configurations ran; nothing to learn from", fs.d.Len(), first.Measured)
	}
	opt.say("tune: first stage: selecting the learner on %d measured configurations", fs.d.Len())
	ranked, fit, err := fs.rank(enc, t, pv, valid, order, opt.Seed)
	if err != nil {
		return nil, fmt.Errorf("tune: %w", err)
	}
	res.Learner = fit.Learner
	// The second stage's random draws, interleaved with the ranking's
	// (search.SecondStage.Random); the first stage's configurations are
	// skipped.
	random := make([]features.Config, 0, len(valid))
	for _, i := range order[first.Measured:] {
		random = append(random, valid[i])
	}
	// With a cap, the second stage measures what the first left of it.
	limit := 0
	if opt.Max > 0 {
		limit = max(1, opt.Max-first.Measured)
	}
	bm := &batchMeasurer{ctx: ctx, k: k, t: t, copt: copt, ranked: ranked, random: random, seen: fs.seen, batch: opt.Batch,
		cache: map[string]record.Row{}, all: append([]record.Row(nil), fs.rows...), say: opt.say,
		fails: fs.fails, threshold: cmp.Or(opt.Threshold, 0.1), limit: limit}
	st, err := search.SecondStage{Threshold: opt.Threshold, Sigma: fit.Sigma, Budget: limit, Random: random, Failures: fs.fails}.Run(ranked, fs.best, fs.bestC,
		func(c features.Config) bool { return fs.seen[k.Space.Format(c)] }, bm.measure)
	res.SecondStage, res.Passed = len(bm.cache), first.Passed+st.Passed
	for _, r := range bm.all {
		if r.Status != record.StatusOK {
			res.Failed++
		}
	}
	if ctx.Err() != nil {
		res.Wall = time.Since(start)
		return res.stop(ctx, opt.Out, k, plat, bm.all)
	}
	if err != nil {
		return nil, fmt.Errorf("tune: %w", err)
	}
	// A batch measures ahead of the stage, which may stop before it asks
	// for every configuration measured: the answer is the best of them
	// all, the reference among them.
	res.setBest(k, bm.all)
	if err := res.write(opt.Out, k, plat, bm.all); err != nil {
		return nil, err
	}
	res.Wall = time.Since(start)
	return res, nil
}

// ErrInterrupted is Tune's error when its context was cancelled (an
// interrupt): its result then holds the best of what it measured, and
// TuneOptions.Out the measurements.
var ErrInterrupted = errors.New("tune: interrupted")

// stop ends an interrupted Tune: the best of rows so far, rows written
// to out, and ErrInterrupted.
func (res *TuneResult) stop(ctx context.Context, out string, k *datasets.Kernel, plat features.Platform, rows []record.Row) (*TuneResult, error) {
	res.setBest(k, rows)
	if err := res.write(out, k, plat, rows); err != nil {
		return nil, err
	}
	return res, fmt.Errorf("%w after %d measured configurations (%v): the best so far is above", ErrInterrupted, len(dedupe(rows)), context.Cause(ctx))
}

// setBest sets the result's answer to the measured row of the highest
// log-speedup among rows, each over the reference timed in the same
// session (so that the sessions' drift does not decide), and its times to
// that row's measured times: never a configuration slower than another
// measured one, the reference included.
func (res *TuneResult) setBest(k *datasets.Kernel, rows []record.Row) {
	best := math.Inf(-1)
	for _, r := range rows {
		v, err := rowScore(r)
		if err != nil || !(v > best) {
			continue
		}
		best = v
		res.Best, res.BestNs, res.RefNs = r.Config, r.TimeNs, r.RefTimeNs
	}
	// Every session timed the reference beside its configurations: when
	// none beat it, the reference is the answer.
	if best <= 0 && !math.IsInf(best, -1) {
		res.Best, res.BestNs = k.Reference.Clone(), res.RefNs
	}
	res.BestIsReference = res.Best != nil && res.Best.Equal(k.Reference)
}

// twoStageDefaults fills the two-stage tuner's zero options for a space of
// n valid configurations and checks them.
func (o *TuneOptions) twoStageDefaults(n int) error {
	if o.Batch == 0 {
		o.Batch = 8
	}
	if o.Budget < 0 || o.Batch < 0 {
		return fmt.Errorf("tune: TuneOptions.Budget and Batch must be >= 0, got %d and %d", o.Budget, o.Batch)
	}
	if err := o.checkMax(); err != nil {
		return err
	}
	switch {
	case o.Max > 0 && o.Budget == 0:
		o.Budget = (o.Max + 1) / 2
	case o.Max > 0:
		o.Budget = min(o.Budget, (o.Max+1)/2)
	case o.Budget == 0:
		o.Budget = max(10, n/50)
	}
	return nil
}

// checkMax checks TuneOptions.Max.
func (o *TuneOptions) checkMax() error {
	if o.Max < 0 || o.Max == 1 {
		return fmt.Errorf("tune: TuneOptions.Max must be 0 (no cap) or at least 2, got %d", o.Max)
	}
	return nil
}

// firstStage is the two-stage tuner's first stage, encoded for training
// as eval's replays of the tuner encode it (the kernel's derived features
// included).
type firstStage struct {
	d     *train.Data // the configurations that ran, one row each
	best  float64     // the best log-speedup measured, -Inf when none ran
	bestC features.Config
	seen  map[string]bool // every configuration measured, ran or not
	refNs float64
	// fails learns which configurations fail from every row measured,
	// ran or not, as eval's replays do.
	fails *eval.FailureForest
	rows  []record.Row // every row measured, in order
	k     *datasets.Kernel
	enc   features.Encoder
	t     features.Task
	pv    []float64
}

// newFirstStage starts the first stage of task t on device plat, its rows
// encoded with enc; seed seeds the failure model's forests.
func newFirstStage(k *datasets.Kernel, enc features.Encoder, plat features.Platform, t features.Task, seed uint64) *firstStage {
	d := &train.Data{Kernel: k.Name, TaskNames: k.TaskNames, Params: k.Space.Params, Reference: k.Reference,
		Features: enc.Names(), Platforms: []features.Platform{plat}}
	pv := plat.Vector()
	return &firstStage{d: d, best: math.Inf(-1), seen: map[string]bool{}, k: k, enc: enc, t: t, pv: pv,
		fails: eval.NewFailureForest(enc.Len(), func(dst []float64, c features.Config) { enc.Encode(dst, t, c, pv) }, seed)}
}

// draw measures the first stage (eval.DrawFirstStage: at most n0 of valid
// in rounds from order, the pruned passed over, learning what fails) with
// measure, which returns the rows of a batch of configurations in their
// order.
func (fs *firstStage) draw(valid []features.Config, order []int, pruned []bool, n0 int, measure func([]features.Config) ([]record.Row, error)) (search.FirstStageResult, error) {
	return eval.DrawFirstStage(valid, order, pruned, n0, fs.fails, func(idx []int) ([]bool, error) {
		cs := make([]features.Config, len(idx))
		for j, i := range idx {
			cs[j] = valid[i]
		}
		rows, err := measure(cs)
		if err != nil {
			return nil, err
		}
		return fs.add(rows)
	})
}

// add records the first stage's rows: every one as seen, those that ran
// as training rows. It reports which failed (status other than ok), in
// order; the failure model learns them from eval.DrawFirstStage.
func (fs *firstStage) add(rows []record.Row) ([]bool, error) {
	failed := make([]bool, len(rows))
	vec := make([]float64, fs.enc.Len())
	for j, r := range rows {
		fs.rows = append(fs.rows, r)
		fs.seen[fs.k.Space.Format(r.Config)] = true
		fs.refNs = r.RefTimeNs
		if failed[j] = r.Status != record.StatusOK || math.IsNaN(r.LogSpeedup); failed[j] {
			continue
		}
		fs.enc.Encode(vec, fs.t, r.Config, fs.pv)
		s := train.Sample{Task: fs.t, Config: r.Config, TimeNs: r.TimeNs, RefTimeNs: r.RefTimeNs}
		if err := fs.d.Append(vec, r.LogSpeedup, s); err != nil {
			return nil, fmt.Errorf("tune: %w", err)
		}
		if r.LogSpeedup > fs.best {
			fs.best, fs.bestC = r.LogSpeedup, r.Config
		}
	}
	return failed, nil
}

// rank fits the first stage's model with eval.FitFirstStage (the learner
// train's selection chooses on the sample, as eval's replays do) and
// returns the configurations valid[order[j]] in predicted order, ties in
// order's (search.RankInOrder), with the fit.
func (fs *firstStage) rank(enc features.Encoder, t features.Task, pv []float64, valid []features.Config, order []int, seed uint64) ([]predict.Scored, eval.FirstStage, error) {
	m, err := eval.FitFirstStage(fs.d, eval.Options{Kernel: fs.d.Kernel, Seed: seed})
	if err != nil {
		return nil, eval.FirstStage{}, err
	}
	vec := make([]float64, enc.Len())
	ranked := search.RankInOrder(valid, order, func(i int) float64 {
		enc.Encode(vec, t, valid[i], pv)
		return m.Model.Predict(vec)
	})
	return ranked, m, nil
}

// batchMeasurer serves the second stage from batches: asked for one
// configuration, it measures it with the next ones of the same stream, in
// predicted order or the random draws' order.
type batchMeasurer struct {
	ctx      context.Context
	k        *datasets.Kernel
	t        features.Task
	copt     collect.Options
	ranked   []predict.Scored
	random   []features.Config
	seen     map[string]bool // the first stage's configurations
	batch    int
	say      func(format string, args ...any)
	cache    map[string]record.Row // second-stage rows by configuration
	all      []record.Row          // every row measured, both stages
	next     int                   // the next index of ranked to batch
	nextRand int                   // the next index of random to batch
	// A batch leaves out the configurations the stage would pass over,
	// those whose chance to run by fails is below threshold.
	fails     search.FailureModel
	threshold float64
	// limit caps the configurations the stage measures, batches
	// included (TuneOptions.Max); 0 means no cap.
	limit int
}

// room is how many configurations a batch may hold: the batch size, or
// what the limit leaves.
func (bm *batchMeasurer) room() int {
	if bm.limit == 0 {
		return bm.batch
	}
	return max(1, min(bm.batch, bm.limit-len(bm.cache)))
}

// fresh says whether the configuration named n is still to be measured.
func (bm *batchMeasurer) fresh(n string) bool { return !bm.seen[n] && bm.cache[n].Config == nil }

// worth says whether c may fill a batch: the failure model gives it a
// chance to run of at least the stage's threshold.
func (bm *batchMeasurer) worth(c features.Config) bool {
	return bm.fails == nil || 1-bm.fails.PFail(c) >= bm.threshold
}

// measure returns c's score, measuring it with the batch it starts when
// it was not measured yet.
func (bm *batchMeasurer) measure(c features.Config) (float64, error) {
	if err := bm.ctx.Err(); err != nil {
		return 0, err // interrupted: the stage stops here
	}
	space := bm.k.Space
	key := space.Format(c)
	if r, ok := bm.cache[key]; ok {
		return rowScore(r)
	}
	// c is the ranking's when it is the first of the ranking still to be
	// measured; else a random draw.
	for bm.next < len(bm.ranked) && !bm.fresh(space.Format(bm.ranked[bm.next].Config)) {
		bm.next++
	}
	batch := []features.Config{c}
	if bm.next < len(bm.ranked) && space.Format(bm.ranked[bm.next].Config) == key {
		for ; bm.next < len(bm.ranked) && len(batch) < bm.room(); bm.next++ {
			if n := space.Format(bm.ranked[bm.next].Config); n != key && bm.fresh(n) && bm.worth(bm.ranked[bm.next].Config) {
				batch = append(batch, bm.ranked[bm.next].Config)
			}
		}
		bm.say("tune: second stage: %d measured, %d more in predicted order", len(bm.cache), len(batch))
	} else {
		for ; bm.nextRand < len(bm.random) && len(batch) < bm.room(); bm.nextRand++ {
			if n := space.Format(bm.random[bm.nextRand]); n != key && bm.fresh(n) && bm.worth(bm.random[bm.nextRand]) {
				batch = append(batch, bm.random[bm.nextRand])
			}
		}
		bm.say("tune: second stage: %d measured, %d more at random", len(bm.cache), len(batch))
	}
	got, err := collect.Measure(bm.ctx, bm.k, bm.t, batch, bm.copt)
	if err != nil {
		return 0, err
	}
	// got[0] is c itself, the configuration the second stage asked for:
	// its row is the answer and must be kept with the others.
	for _, r := range got {
		bm.cache[space.Format(r.Config)] = r
	}
	bm.all = append(bm.all, got...)
	return rowScore(bm.cache[key])
}

// write writes rows under dir as a dataset file of the tuned shape; an
// empty dir writes nothing.
func (res *TuneResult) write(dir string, k *datasets.Kernel, plat features.Platform, rows []record.Row) error {
	if dir == "" {
		return nil
	}
	res.Path = filepath.Join(dir, k.Name, plat.Slug(), fmt.Sprintf("tune-%s-%s.arrow",
		strings.ReplaceAll(features.FormatTask(k.TaskNames, res.Task), ",", "_"), time.Now().UTC().Format("20060102T150405Z")))
	if err := os.MkdirAll(filepath.Dir(res.Path), 0o755); err != nil {
		return fmt.Errorf("tune: %w", err)
	}
	if err := writeRows(res.Path, collect.Meta(k, plat), dedupe(rows)); err != nil {
		return fmt.Errorf("tune: %w", err)
	}
	return nil
}

// tunePrior is Tune with a prior: the fleet-prior tuner measuring on the
// device through collect.
func tunePrior(ctx context.Context, k *datasets.Kernel, t features.Task, opt TuneOptions, start time.Time) (*TuneResult, error) {
	if opt.Budget < 0 || opt.Batch < 0 {
		return nil, fmt.Errorf("tune: TuneOptions.Budget and Batch must be >= 0, got %d and %d", opt.Budget, opt.Batch)
	}
	if err := opt.checkMax(); err != nil {
		return nil, err
	}
	if opt.Prior.Kernel != k.Name {
		return nil, fmt.Errorf("tune: the prior bundle is of kernel %q, not %q", opt.Prior.Kernel, k.Name)
	}
	devs, err := collect.ListDevices()
	if err != nil {
		return nil, fmt.Errorf("tune: %w", err)
	}
	if opt.Device < 0 || opt.Device >= len(devs) {
		return nil, fmt.Errorf("tune: no device %d: the OpenCL devices are 0 to %d (augur devices lists them)", opt.Device, len(devs)-1)
	}
	plat := devs[opt.Device]
	// A bundle trained with the measured platform features scores the
	// device with them: measure them, as collect does.
	if n, err := features.PlatformColumns(opt.Prior.Features); err == nil && n > features.LegacyPlatformFeatures {
		b, err := collect.Benchmark(ctx, opt.Device)
		if err != nil {
			return nil, err // it names its package
		}
		plat = b.Platform
	}
	ps, refit, source, err := eval.FleetPriorSpace(opt.Prior, plat, k, t)
	if err != nil {
		return nil, err
	}
	valid := ps.Configs
	if opt.Budget == 0 {
		opt.Budget = max(10, len(valid)/50)
	}
	if opt.Max > 0 {
		opt.Budget = min(opt.Budget, opt.Max)
	}
	if opt.Batch == 0 {
		opt.Batch = 8
	}
	res := &TuneResult{Task: t, SpaceSize: len(valid), TaskNames: k.TaskNames, Space: k.Space, Kernel: k, PlatformSlug: plat.Slug(), Prior: source}
	copt := collect.Options{Device: opt.Device, Repeats: opt.Repeats, Seed: opt.Seed}
	var all []record.Row
	measure := func(idx []int) ([]float64, error) {
		if err := ctx.Err(); err != nil {
			return nil, err // interrupted: the search stops here
		}
		batch := make([]features.Config, len(idx))
		for j, i := range idx {
			batch[j] = valid[i]
		}
		opt.say("tune: %d measured, %d more from the fleet prior's ranking", len(all), len(batch))
		rows, err := collect.Measure(ctx, k, t, batch, copt)
		if err != nil {
			return nil, err
		}
		byName := map[string]record.Row{}
		for _, r := range rows {
			byName[k.Space.Format(r.Config)] = r
			res.RefNs = r.RefTimeNs
		}
		all = append(all, rows...)
		ys := make([]float64, len(idx))
		for j, c := range batch {
			ys[j] = math.NaN()
			if v, err := rowScore(byName[k.Space.Format(c)]); err == nil {
				ys[j] = v
			}
		}
		return ys, nil
	}
	threshold := opt.Threshold
	st, err := search.PriorSearch{Batch: opt.Batch, Threshold: threshold, Budget: opt.Budget, Seed: opt.Seed}.Run(ps, refit, measure)
	if ctx.Err() != nil {
		res.Wall = time.Since(start)
		return res.stop(ctx, opt.Out, k, plat, all)
	}
	if err != nil {
		return nil, fmt.Errorf("tune: %w", err)
	}
	res.SecondStage, res.Stopped = len(st.Order), st.StopAt > 0
	res.setBest(k, all)
	if err := res.write(opt.Out, k, plat, all); err != nil {
		return nil, err
	}
	res.Wall = time.Since(start)
	return res, nil
}

// rowScore is a measured row's log-speedup, or an error when it failed.
func rowScore(r record.Row) (float64, error) {
	if r.Status != record.StatusOK || math.IsNaN(r.LogSpeedup) {
		return 0, fmt.Errorf("%s: %s", r.Status, r.Error)
	}
	return r.LogSpeedup, nil
}

// dedupe keeps the first row of each configuration: every Measure call
// times the reference again.
func dedupe(rows []record.Row) []record.Row {
	seen := map[string]bool{}
	var out []record.Row
	for _, r := range rows {
		key := fmt.Sprint(r.Config)
		if !seen[key] {
			seen[key] = true
			out = append(out, r)
		}
	}
	return out
}

// String prints the result in a few lines.
func (r *TuneResult) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "shape %s on %s\n", features.FormatTask(r.TaskNames, r.Task), r.PlatformSlug)
	total := r.FirstStage + r.SecondStage
	if r.Prior != "" {
		stop := "the budget"
		if r.Stopped {
			stop = "the error model"
		}
		fmt.Fprintf(&b, "measured %d of %d configurations (%.2f%%) in the fleet prior's order (its source: %s) and at random; stopped by %s\n",
			total, r.SpaceSize, 100*float64(total)/float64(r.SpaceSize), r.Prior, stop)
	} else {
		fmt.Fprintf(&b, "measured %d of %d configurations (%.2f%%; %d within the device's limits): %d at random, %d in the order %s predicted; %d failed, %d passed over as predicted to fail\n",
			total, r.SpaceSize, 100*float64(total)/float64(r.SpaceSize), r.Runnable, r.FirstStage, r.SecondStage, r.Learner, r.Failed, r.Passed)
	}
	switch {
	case r.BestIsReference:
		fmt.Fprintf(&b, "best: the reference configuration %s, %.4f ms: no configuration measured beat it\n", formatConfig(r.Kernel, r.Space, r.Best), r.RefNs/1e6)
	case r.Best != nil:
		fmt.Fprintf(&b, "best %s: %.4f ms, reference %.4f ms timed beside it (%.2fx)\n", formatConfig(r.Kernel, r.Space, r.Best), r.BestNs/1e6, r.RefNs/1e6, r.RefNs/r.BestNs)
	}
	if r.Path != "" {
		fmt.Fprintf(&b, "measurements in %s\n", r.Path)
	}
	fmt.Fprintf(&b, "wall %s", r.Wall.Round(time.Millisecond))
	return b.String()
}

// formatConfig writes c by the kernel's FormatConfig (a spec's string
// values by their texts) or, without a kernel, space's Format.
func formatConfig(k *datasets.Kernel, space *features.Space, c features.Config) string {
	if k != nil {
		return k.FormatConfig(c)
	}
	return space.Format(c)
}
