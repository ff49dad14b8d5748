package train

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/augur-tuning/augur/features"
)

// FleetModel is the name of the model fitted on the rows of all platforms.
const FleetModel = "fleet"

// Options configure Train.
type Options struct {
	// Kernel is the kernel family to train for; its files are under
	// <dir>/<Kernel>/.
	Kernel string
	// Model is the learner: "auto" (Select chooses among candidate
	// settings by the picks they make on held-out shapes), "gbrt"
	// (gradient-boosted trees, configured by GBRT) or "rf" (a random
	// forest, configured by Forest); "" means "auto", or "gbrt" when GBRT
	// is not the zero value.
	Model string
	// Folds is the number of cross-validation folds; 0 means 5, or no
	// cross-validation for a model whose data holds fewer than 5
	// distinct (shape, configuration) pairs (a small import); 1 means no
	// cross-validation (the models then carry no Stats). A Folds given
	// that the data cannot fill is an error.
	Folds int
	// Seed draws the cross-validation folds. The learners have seeds of
	// their own, in GBRT and Forest.
	Seed   uint64
	GBRT   GBRTOptions
	Forest ForestOptions
	// Load says how rows that are not ok are used: left out (the
	// default) or kept with a stand-in target.
	Load LoadOptions
	// Select configures the learner selection of Model "auto".
	Select SelectOptions
	// Classify, when its Target is set, adds a classifier of that
	// parameter, fitted on the groups of every platform, to the bundle.
	Classify ClassifyOptions
	// Progress, when not nil, is told as the run goes how many of its
	// steps are done out of total and what it does now (a candidate's
	// held-out folds, a cross-validation, a fit); a step can take from
	// milliseconds to a minute. nil means quiet.
	Progress ProgressFunc
	// Context, when not nil, cancels the run: its fits stop at their next
	// tree, and the run returns an error that wraps the context's
	// (errors.Is(err, context.Canceled)). nil means the run is never
	// cancelled.
	Context context.Context
}

// done returns the channel that cancels opt's run: nil (never) without a
// Context.
func (opt Options) done() <-chan struct{} {
	if opt.Context == nil {
		return nil
	}
	return opt.Context.Done()
}

// stoppedBy returns err, or the context's error when opt's Context was
// cancelled: a fit it stopped reports that, whatever it failed with.
func (opt Options) stoppedBy(err error) error {
	if err != nil && opt.Context != nil && opt.Context.Err() != nil {
		return fmt.Errorf("train: %w", context.Cause(opt.Context))
	}
	return err
}

// ProgressFunc receives the progress of a long run: done of total steps
// are finished and step says what runs now. It is called from the
// goroutine that called the run, never concurrently.
type ProgressFunc func(done, total int, step string)

func (f ProgressFunc) report(done, total int, step string) {
	if f != nil {
		f(done, total, step)
	}
}

// Report summarizes a Train run.
type Report struct {
	Kernel        string
	KernelVersion string
	Rows          int
	// Shapes is the number of distinct tasks over all platforms.
	Shapes    int
	Platforms []string
	// Models are one per platform, in the order of Platforms, then the
	// fleet model's when there are two platforms or more.
	Models []ModelReport
	// Classifier is the classifier's report; nil when none was trained.
	Classifier *ClassReport
}

// ModelReport is one model's part of a Report.
type ModelReport struct {
	Name       string
	Rows       int
	Trees      int
	FitSeconds float64
	// CV is the zero value when cross-validation was off.
	CV CV
	// Selection is the learner selection's report; nil when the learner
	// was given.
	Selection *Selection

	// fitted is the learner the model was fitted with, resolved, for
	// RefitFleetBundle.
	fitted fitter
}

// String lays the report out as a table, one line per model.
func (r *Report) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "kernel %s (version %s): %d rows, %d shapes, %d platforms\n",
		r.Kernel, r.KernelVersion, r.Rows, r.Shapes, len(r.Platforms))
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "model\trows\ttrees\tfit_s\tcv_folds\tcv_mre_time\tcv_rmse_log_speedup\tcv_spearman\tcv_shapes\t")
	for _, m := range r.Models {
		if m.CV.Folds == 0 {
			// No cross-validation: no figures, rather than zeros that
			// read as a perfect model.
			fmt.Fprintf(tw, "%s\t%d\t%d\t%.2f\t0\t-\t-\t-\t-\t\n", m.Name, m.Rows, m.Trees, m.FitSeconds)
			continue
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.2f\t%d\t%.3f\t%.3f\t%.3f\t%d\t\n", m.Name, m.Rows, m.Trees, m.FitSeconds,
			m.CV.Folds, m.CV.MRETime, m.CV.RMSELogSpeedup, m.CV.Spearman, m.CV.Shapes)
	}
	tw.Flush()
	for _, m := range r.Models {
		if m.Selection == nil || len(m.Selection.Scores) == 0 {
			continue
		}
		heldOut := "shapes"
		if m.Selection.HeldOut == "configurations" {
			heldOut = "folds of the one shape's configurations"
		}
		deals, sd, dash := "", "", ""
		if m.Selection.Deals > 1 {
			// Each figure is a mean over the deals; sd is the geometric
			// mean's standard deviation over them.
			deals, sd, dash = fmt.Sprintf(", means over %d deals of the shapes", m.Selection.Deals), "sd\t", "-\t"
		}
		fmt.Fprintf(&b, "\nlearner selection for %s (top-1 pick on held-out %s, %% of the best measured%s):\n", m.Name, heldOut, deals)
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "learner\tgeomean %\t"+sd+"worst %\tspearman\tshapes\tfit_s\tcost\t\t")
		for _, s := range m.Selection.Scores {
			mark := ""
			if s.Name == m.Selection.Chosen {
				mark = "chosen"
			}
			if s.Skipped != "" {
				fmt.Fprintf(tw, "%s\t-\t"+dash+"-\t-\t-\t-\t%d\tskipped (%s)\t\n", s.Name, s.Cost, s.Skipped)
				continue
			}
			spread := ""
			if sd != "" {
				spread = fmt.Sprintf("%.1f\t", s.PctSpread)
			}
			fmt.Fprintf(tw, "%s\t%.1f\t%s%.1f\t%.3f\t%d\t%.1f\t%d\t%s\t\n", s.Name, s.PctGeomean, spread, s.PctWorst, s.Spearman, s.Shapes, s.FitSeconds, s.Cost, mark)
		}
		tw.Flush()
		if c := m.Selection.Consensus; c != nil {
			verdict := "not applied: the model picks alone"
			if c.Applied {
				verdict = "applied: the model carries it"
			}
			fmt.Fprintf(&b, "nearest-shape rule on the chosen learner's first %d: %.1f (worst %.1f) against its own picks' %.1f (%.1f), %d of %d picks changed; %s\n",
				DefaultConsensus.Candidates, c.PctGeomean, c.PctWorst, c.ModelPctGeomean, c.ModelPctWorst, c.Changed, c.Picks, verdict)
		}
		if f := m.Selection.Fixed; f != nil {
			verdict := "not applied: the model picks"
			if f.Applied {
				verdict = "applied: the model serves it at new shapes"
			}
			fmt.Fprintf(&b, "one fixed configuration (the training shapes' fastest overall): %.1f (worst %.1f) against the model's %.1f (%.1f) on %d picks; %s\n",
				f.PctGeomean, f.PctWorst, f.ModelPctGeomean, f.ModelPctWorst, f.Picks, verdict)
		}
	}
	if r.Classifier != nil {
		b.WriteString("\n" + r.Classifier.String())
	}
	return b.String()
}

// Train loads the datasets of opt.Kernel under dir and trains on them as
// TrainData does. It checks opt before it loads anything.
//
// It trains on what opt.Load gives it: to train as `augur train` does, set
// opt.Load.Derived to the kernel's derived features (datasets.Lookup(k)
// .Derived for a family, the spec kernel's Derived for a spec), and
// opt.Load.TaskNames (a family's) or opt.Load.KernelVersion (a spec's
// Version); without them the model trains on the raw features alone,
// which picks worse, and the bundle records no derived features.
func Train(dir string, opt Options) (*features.Bundle, *Report, error) {
	if err := opt.Check(); err != nil {
		return nil, nil, err
	}
	d, err := LoadWith(dir, opt.Kernel, opt.Load)
	if err != nil {
		return nil, nil, err
	}
	return TrainData(d, opt)
}

// Check reports what makes opt unusable, before any data is loaded.
func (opt Options) Check() error {
	if opt.Kernel == "" {
		return fmt.Errorf("train: Options.Kernel is empty")
	}
	_, _, err := prepare(opt)
	return err
}

// prepare checks opt and resolves its learner and number of folds.
func prepare(opt Options) (fitter, int, error) {
	folds := opt.Folds
	if folds == 0 {
		folds = 5
	}
	if folds < 1 {
		return fitter{}, 0, fmt.Errorf("train: Options.Folds must be >= 0, got %d", opt.Folds)
	}
	fit, err := newFitter(opt)
	if err != nil {
		return fitter{}, 0, err
	}
	if opt.Classify.Target != "" && opt.Classify.Learner != "" && opt.Classify.Learner != LearnerAuto {
		if _, _, err := opt.Classify.classLearner(opt.Classify.Learner, opt.Seed); err != nil {
			return fitter{}, 0, err
		}
	}
	return fit, folds, nil
}

// TrainData fits one model per platform of d and, when there are two or
// more platforms, a fleet model on all rows, cross-validates each, and
// returns them in a bundle with a report.
func TrainData(d *Data, opt Options) (*features.Bundle, *Report, error) {
	b, rep, err := trainData(d, opt)
	if err = opt.stoppedBy(err); err != nil {
		return nil, nil, err
	}
	return b, rep, nil
}

func trainData(d *Data, opt Options) (*features.Bundle, *Report, error) {
	if d == nil || d.Len() == 0 {
		return nil, nil, errors.New("train: no rows to train on")
	}
	fit, folds, err := prepare(opt)
	if err != nil {
		return nil, nil, err
	}
	b := newBundle(d)
	rep := &Report{Kernel: d.Kernel, KernelVersion: d.KernelVersion, Rows: d.Len()}
	tasks := map[features.TaskKey]bool{}
	for _, s := range d.Samples() {
		tasks[s.Task.Key()] = true
	}
	rep.Shapes = len(tasks)

	type job struct {
		name     string
		platform *features.Platform
		pi       int // the platform's rows, or all rows when -1
	}
	var jobs []job
	for pi := range d.Platforms {
		p := d.Platforms[pi]
		rep.Platforms = append(rep.Platforms, p.Slug())
		jobs = append(jobs, job{p.Slug(), &p, pi})
	}
	if len(d.Platforms) >= 2 {
		jobs = append(jobs, job{FleetModel, nil, -1})
	}
	// Each model's steps: its selection's candidates, its cross-validation
	// and its fit; then the classifier.
	per := 2
	if fit.auto {
		per += fit.candidates()
	}
	total := per * len(jobs)
	if opt.Classify.Target != "" {
		total++
	}
	for i, j := range jobs {
		if opt.Context != nil && opt.Context.Err() != nil {
			return nil, nil, opt.Context.Err()
		}
		fit.progress = func(done, _ int, step string) {
			opt.Progress.report(i*per+done, total, "model "+j.name+": "+step)
		}
		data := d
		if j.pi >= 0 {
			// One device's rows are listed and copied when its model is
			// fitted, so that one copy of a device's rows is alive at a time.
			var rows []int
			for i, s := range d.Samples() {
				if s.Platform == j.pi {
					rows = append(rows, i)
				}
			}
			data = d.Subset(rows)
		}
		m, mr, err := fit.model(data, folds, opt.Seed)
		if err != nil {
			return nil, nil, fmt.Errorf("train: model %s: %w", j.name, err)
		}
		m.Name, m.Platform, mr.Name = j.name, j.platform, j.name
		b.Models = append(b.Models, m)
		rep.Models = append(rep.Models, mr)
	}
	if opt.Classify.Target != "" {
		opt.Progress.report(total-1, total, "classifier of "+opt.Classify.Target)
		c, cr, err := FitClassifier(d, opt.Classify, opt.Seed)
		if err != nil {
			return nil, nil, err
		}
		b.Classifiers = append(b.Classifiers, c)
		rep.Classifier = cr
	}
	return b, rep, nil
}

// fitter is the learner Train uses with its resolved options.
type fitter struct {
	// auto selects the learner per model (Select); otherwise learner is
	// used as given.
	auto    bool
	sel     SelectOptions
	zeta    *float64 // the stand-in target of invalid rows, when used
	learner Learner
	kind    string
	options map[string]float64
	// progress hears of the steps of one model: the selection's
	// candidates, then the cross-validation and the fit.
	progress ProgressFunc
	// cvRows bounds the cross-validation's rows (SelectOptions.MaxRows).
	cvRows int
	// defaultFolds is set when Options.Folds was 0: data too small for
	// the 5 folds is then fitted without cross-validation.
	defaultFolds bool
	// done stops the fits (Options.Context); nil never does.
	done <-chan struct{}
}

// candidates is the number of candidate settings the selection tries.
func (f fitter) candidates() int {
	if f.sel.Candidates != nil {
		return len(f.sel.Candidates)
	}
	return len(DefaultCandidates(f.sel.Seed))
}

func newFitter(opt Options) (fitter, error) {
	var f fitter
	model := opt.Model
	if model == "" && opt.GBRT != (GBRTOptions{}) {
		model = "gbrt"
	}
	switch model {
	case "", "auto":
		f = fitter{auto: true, sel: opt.Select}
		if f.sel.Seed == 0 {
			f.sel.Seed = opt.Seed
		}
	case "gbrt":
		o, err := opt.GBRT.withDefaults()
		if err != nil {
			return f, err
		}
		f = fitter{learner: opt.GBRT, kind: "gbrt", options: o.options()}
	case "rf":
		o, err := opt.Forest.withDefaults()
		if err != nil {
			return f, err
		}
		f = fitter{learner: opt.Forest, kind: "rf", options: o.options()}
	default:
		return f, fmt.Errorf("train: Options.Model must be \"auto\", \"gbrt\", \"rf\" or empty, got %q", opt.Model)
	}
	f.cvRows = opt.Select.MaxRows
	f.defaultFolds = opt.Folds == 0
	f.done = opt.done()
	f.sel.done = f.done
	zeta, err := opt.Load.zeta()
	if err != nil {
		return f, err
	}
	if opt.Load.Invalid == InvalidZeta {
		f.zeta = &zeta
	}
	return f, nil
}

// model selects (when auto), cross-validates and fits one model on d.
func (f fitter) model(d *Data, folds int, seed uint64) (features.Model, ModelReport, error) {
	learner, kind, options := f.learner, f.kind, f.options
	var sel *Selection
	step := 0
	if f.auto {
		so := f.sel
		so.Progress = f.progress
		step = f.candidates()
		c, s, err := Select(d, so)
		if err != nil {
			return features.Model{}, ModelReport{}, err
		}
		learner, kind, options, sel = c.Learner, c.Kind, maps.Clone(c.options), &s
	}
	if f.zeta != nil {
		options = maps.Clone(options)
		options["zeta"] = *f.zeta
	}
	var cv CV
	if folds > 1 {
		f.progress.report(step, 0, fmt.Sprintf("%d-fold cross-validation", folds))
		var err error
		if cv, err = crossValidateAtMost(d, f.cvRows, folds, learner, seed, f.done); err != nil {
			if !f.defaultFolds || !errors.Is(err, errFewPairs) {
				return features.Model{}, ModelReport{}, err
			}
			cv = CV{} // no figures: the report's cv_folds says 0
		}
	}
	f.progress.report(step+1, 0, fmt.Sprintf("fitting %s on %d rows", kind, d.Len()))
	start := time.Now()
	r, err := fitRowsWith(learner, d, nil, &fitBuffers{done: f.done}) // a blend's second model reuses the first's buffers
	if err != nil {
		return features.Model{}, ModelReport{}, err
	}
	fit := time.Since(start).Seconds()
	var text strings.Builder
	if err := r.WriteLightGBM(&text, d.Features); err != nil {
		return features.Model{}, ModelReport{}, err
	}
	m := features.Model{Kind: kind, Target: "log_speedup", LightGBM: text.String(),
		TrainRows: d.Len(), Shapes: len(d.Shapes()), FitSeconds: fit, Options: maps.Clone(options), Candidates: Candidates(d, 0),
		Limits: d.limits(), TypeLimits: d.typeLimits()}
	if len(d.groupParams) > 0 {
		if m.Options == nil {
			m.Options = map[string]float64{}
		}
		m.Options[features.OptionSmallerGroups] = 1
	}
	if folds > 1 && cv.Folds > 0 {
		m.Stats = cv.Stats()
	}
	if sel != nil {
		if m.Stats == nil {
			m.Stats = map[string]float64{}
		}
		m.Learner = sel.Chosen
		for _, sc := range sel.Scores {
			if sc.Name == sel.Chosen {
				m.Stats["holdout_pct_geomean"] = sc.PctGeomean
				m.Stats["holdout_pct_worst"] = sc.PctWorst
				m.Stats["holdout_spearman"] = sc.Spearman
				if sel.HeldOut == "configurations" {
					// One shape: the selection held out folds of its
					// configurations, which Shapes counts.
					m.Stats["holdout_folds"] = float64(sc.Shapes)
				} else {
					m.Stats["holdout_shapes"] = float64(sc.Shapes)
				}
			}
		}
		if c := sel.Consensus; c != nil {
			m.Stats["holdout_consensus_pct_geomean"] = c.PctGeomean
			m.Stats["holdout_consensus_pct_worst"] = c.PctWorst
		}
		if c := sel.Fixed; c != nil {
			m.Stats["holdout_fixed_pct_geomean"] = c.PctGeomean
			m.Stats["holdout_fixed_pct_worst"] = c.PctWorst
		}
	}
	m.Known = d.Known()
	if m.Starts, err = starts(d, r, startsPerShape); err != nil {
		return features.Model{}, ModelReport{}, err
	}
	if sel != nil && sel.Consensus != nil && sel.Consensus.Applied {
		if m.Consensus, err = consensusTable(d, DefaultConsensus); err != nil {
			return features.Model{}, ModelReport{}, err
		}
	}
	if sel != nil && sel.Fixed != nil && sel.Fixed.Applied {
		m.Fixed = fixedPick(d, sel.Fixed)
	}
	return m, ModelReport{Rows: d.Len(), Trees: r.NumTrees(), FitSeconds: fit, CV: cv, Selection: sel,
		fitted: fitter{learner: learner, kind: kind, options: options, zeta: f.zeta}}, nil
}

// FitBundle fits one model on all of d as Train would for a platform (the
// learner selected when opt.Model is "auto" or empty, no cross-validation)
// and returns it in a bundle, with name and platform recorded. eval uses
// it to train on some shapes and choose for others exactly as a user's
// bundle would.
func FitBundle(d *Data, opt Options, name string, platform *features.Platform) (*features.Bundle, ModelReport, error) {
	fit, err := newFitter(opt)
	if err != nil {
		return nil, ModelReport{}, err
	}
	m, mr, err := fit.model(d, 1, opt.Seed)
	if err != nil {
		return nil, ModelReport{}, opt.stoppedBy(fmt.Errorf("train: %w", err))
	}
	m.Name, m.Platform, mr.Name = name, platform, name
	b := newBundle(d)
	b.Measured = nil
	b.Models = []features.Model{m}
	return b, mr, nil
}

// FitFleetBundle fits the fleet model on d as Train does (the learner
// selected when opt.Model is "auto" or empty, no cross-validation) and
// returns it in a bundle with d's measured bests. eval uses it to choose
// for a held-out device exactly as a user's fleet bundle would, without
// the per-device models the runtime would not use for that device.
func FitFleetBundle(d *Data, opt Options) (*features.Bundle, ModelReport, error) {
	fit, err := newFitter(opt)
	if err != nil {
		return nil, ModelReport{}, err
	}
	b, mr, err := fit.fleetBundle(d)
	return b, mr, opt.stoppedBy(err)
}

// RefitFleetBundle fits a fleet model on d with the learner that fitted
// fleet's model, as resolved then: a selected learner is used again, not
// selected anew on d, and with the same handling of invalid rows. It
// returns the model in a bundle with d's measured bests, as
// FitFleetBundle does. eval uses it to leave each device out of the data
// of a fleet model and fit the others' (Bundle.Unseen). fleet is a model
// report of Train, FitBundle or FitFleetBundle.
func RefitFleetBundle(d *Data, fleet ModelReport) (*features.Bundle, error) {
	if fleet.fitted.learner == nil {
		return nil, fmt.Errorf("train: model report %q records no fitted learner", fleet.Name)
	}
	b, _, err := fleet.fitted.fleetBundle(d)
	return b, err
}

// fleetBundle fits a fleet model on d with f's learner, without
// cross-validation, and returns it in a bundle with d's measured bests.
func (f fitter) fleetBundle(d *Data) (*features.Bundle, ModelReport, error) {
	// The seed draws cross-validation folds only, and there are none.
	m, mr, err := f.model(d, 1, 0)
	if err != nil {
		return nil, ModelReport{}, fmt.Errorf("train: %w", err)
	}
	m.Name, mr.Name = FleetModel, FleetModel
	b := newBundle(d)
	b.Models = []features.Model{m}
	return b, mr, nil
}

// newBundle returns a bundle of d's kernel, space, features and measured
// bests, with no models.
func newBundle(d *Data) *features.Bundle {
	return &features.Bundle{
		Format: features.BundleFormat, Kernel: d.Kernel, KernelVersion: d.KernelVersion,
		AugurVersion: features.Version, TaskNames: d.TaskNames, Params: d.Params,
		Constraints: d.Constraints, Features: d.Features, Reference: d.Reference,
		Derived: d.Derived, DerivedExprs: d.DerivedExprs, TrainShapes: d.Shapes(),
		Measured: measuredBests(d),
	}
}

// MeasuredBests returns the fastest measured row of each (platform, task)
// of d, in the order the pairs first appear: the Bundle.Measured that
// Train writes. eval gives it to the bundles of FitBundle, which have
// none, where the runtime's candidates need them.
func MeasuredBests(d *Data) []features.MeasuredBest { return measuredBests(d) }

// measuredBests returns the fastest measured row of each (platform, task)
// of d, in the order the pairs first appear; of rows equally fast, the one
// whose configuration, written "name=value,...", sorts first, as eval
// judges a device's best (its copies of another device's best are then
// the runtime's).
func measuredBests(d *Data) []features.MeasuredBest {
	type key struct {
		p int
		t features.TaskKey
	}
	at := map[key]int{}
	var out []features.MeasuredBest
	for _, s := range d.Samples() {
		if !s.Measured() {
			continue
		}
		k := key{s.Platform, s.Task.Key()}
		i, ok := at[k]
		if !ok {
			at[k] = len(out)
			out = append(out, features.MeasuredBest{Device: d.Platforms[s.Platform].Slug(), Type: d.Platforms[s.Platform].Type, Task: append(features.Task(nil), s.Task...),
				Config: s.Config.Clone(), TimeNs: s.TimeNs})
			continue
		}
		if s.TimeNs < out[i].TimeNs || (s.TimeNs == out[i].TimeNs &&
			features.FormatConfig(d.Params, s.Config) < features.FormatConfig(d.Params, out[i].Config)) {
			out[i].Config, out[i].TimeNs = s.Config.Clone(), s.TimeNs
		}
	}
	return out
}

// FitRegressor fits one model on all of d with the learner opt names, or
// the one Select chooses when opt.Model is "auto" or empty (with a single
// shape, by held-out configurations), and returns it with the learner's
// name. Unlike FitBundle it writes nothing: eval refits with it many times.
func FitRegressor(d *Data, opt Options) (Regressor, string, error) {
	fit, err := newFitter(opt)
	if err != nil {
		return nil, "", err
	}
	learner, name := fit.learner, fit.kind
	if fit.auto {
		c, _, err := Select(d, fit.sel)
		if err != nil {
			return nil, "", opt.stoppedBy(err)
		}
		learner, name = c.Learner, c.Name
	}
	r, err := fitRowsWith(learner, d, nil, &fitBuffers{done: fit.done})
	if err != nil {
		return nil, "", opt.stoppedBy(fmt.Errorf("train: %w", err))
	}
	return r, name, nil
}
