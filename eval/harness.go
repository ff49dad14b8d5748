package eval

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"math/rand/v2"
	goruntime "runtime"
	"slices"
	"strings"
	"sync"

	"github.com/augur-tuning/augur/collect/record"
	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/runtime"
	"github.com/augur-tuning/augur/search"
	"github.com/augur-tuning/augur/train"
)

// Options configure Evaluate. The zero value runs every part with the
// defaults below.
type Options struct {
	// Kernel is the kernel whose data under the directory is evaluated.
	Kernel string
	// Spec is the kernel when it was read from a spec file
	// (datasets.ReadSpec): the bundles fitted along the way carry it, so
	// that the runtime scores them with its derived features and plans.
	// nil for augur's own kernels and imported data.
	Spec *datasets.Kernel
	// Seeds is the number of seeds per strategy and budget; 0 means 100.
	Seeds int
	// Budgets are the strategies' evaluation budgets; nil means 16, 32,
	// 64 and 128.
	Budgets []int
	// Thresholds are the two-stage tuner's T values; nil means 0.1 and
	// 0.01.
	Thresholds []float64
	// SampleFraction is the share of the valid space the two-stage tuner
	// measures at random first; 0 means 0.02.
	SampleFraction float64
	// TwoStageSeeds is the number of seeds per shape and threshold; 0
	// means 20.
	TwoStageSeeds int
	// MaxShares, in % of the valid space, replay the two-stage tuner with
	// a measurement budget (tune.TuneOptions.Max, 'augur tune --max') of
	// each share, spent whole (its stopping rule off), beside random
	// search's best of as many (Report.TwoStageMax); nil replays none.
	MaxShares []float64
	// Holdout adds leave-one-shape-out: Choose with zero measurements on
	// each shape from a model trained on the platform's other shapes.
	Holdout bool
	// Pool, with Holdout, trains each held-out shape's model on every
	// device's rows with that shape removed from all of them (a shape
	// unseen by the device is unseen by the fleet): the fleet model, with
	// the platform features as inputs, chooses for the device with its
	// platform features, and the runtime's table and candidates hold
	// every device's measured bests of the other shapes. It tells whether
	// the other devices' data helps a device's picks. It needs data of
	// two devices or more. false (the zero value) trains as 'augur train'
	// does on the fold's rows: the device's own model and, with two
	// devices or more, the fleet model and train's choice between them
	// (train.PoolChoices, made inside each fold), which then picks.
	Pool bool
	// PoolFigures, on a fleet's folds (Holdout without Pool or Test),
	// also fits the models whose figures cannot change a pick: in a fold
	// where every device with the held-out shape has more than
	// train.PoolMaxShapes other shapes, and so keeps its own model, the
	// fleet model and train's scoring of both models on the device's
	// shapes (train.PoolOptions.Figures). They give each shape's
	// HoldoutShape.OwnPct and FleetPct and each device's DeviceHoldout
	// lines of both models. false (the zero value): such a shape's Pool
	// holds its device's shapes alone and the two figures are 0; the
	// picks are the same.
	PoolFigures bool
	// HoldoutDevice, when set, adds leave-one-device-out instead: a fleet
	// model trained on every other device (platform features as inputs)
	// chooses for this device's shapes (slug or name, case-insensitive),
	// scored with its platform features and no measurement of it, against
	// copying another device's best configuration: every shape of the
	// device with a measured configuration, judged against its fastest
	// recorded one (Coverage does not apply). It excludes Holdout.
	HoldoutDevice string
	// HoldoutOf, with Holdout, chooses only for the shapes of this device
	// (its slug or name), training every fold as without it: one
	// device's figures of a fleet's leave-one-shape-out, in a fraction of
	// its time. "" chooses for every device.
	HoldoutOf string
	// HoldoutShapes, with Holdout, chooses only for these shapes
	// ("name=value,...", every shape feature named once, in any order),
	// training every fold as without them: a run shared among machines,
	// each taking some of the shapes. A shape no device measured is an
	// error. nil chooses for every shape.
	HoldoutShapes []string
	// HoldoutOnly, with Holdout or HoldoutDevice, runs only the holdout
	// (and the noise ceiling that judges it): no learning curve,
	// strategies or two-stage tuner, whose fields of the Report stay
	// empty. false runs them all.
	HoldoutOnly bool
	// Coverage is the share of a shape's valid space that must be
	// recorded for strategies and the two-stage tuner to run on it; 0
	// means 0.9. Replayed configurations that were never recorded count
	// as failed measurements.
	Coverage float64
	// Invalid says how the holdout models treat configurations that
	// failed: ignored (the zero value) or trained on with the stand-in
	// log-speedup Zeta (0 means train.DefaultZeta).
	Invalid train.Invalid
	Zeta    float64
	// GBRT are the options of every model eval trains when Learner is
	// "gbrt", and of the learning curve's also when it is "" or "auto"
	// (selecting a learner for each point of the curve would cost more
	// than the rest of the run); the zero value is train's defaults.
	GBRT train.GBRTOptions
	// Learner is the learner of every model eval trains (the holdout and
	// fleet models, the two-stage tuner's, the learning curve's) as
	// train.Options.Model has it: "" or "auto" selects one per model, as
	// 'augur train' does (for the two-stage tuner's model of one shape,
	// that is the selection's first candidate).
	Learner string
	// NoRule trains every model without the nearest-shape rule
	// (train.SelectOptions.NoConsensus): the picks of the learners alone,
	// to compare with the default.
	NoRule bool
	// NoFixed trains every model without a fixed configuration
	// (train.SelectOptions.NoFixed).
	NoFixed bool
	// SelectRepeats deals the training shapes into every selection's
	// folds this many times (train.SelectOptions.Repeats); 0 means once.
	SelectRepeats int
	// Derived computes the kernel's derived features (datasets); nil
	// trains without them, as augur eval does only with --derived=false:
	// set datasets.Lookup(Kernel).Derived, or a spec kernel's, to
	// evaluate what augur train would ship.
	Derived features.Deriver
	// GroupParams are the kernel's work-group parameters
	// (train.LoadOptions.GroupParams), to train as 'augur train
	// --smaller-groups' does; nil: not.
	GroupParams []string
	// Test, when set, is a dataset directory whose shapes the holdout
	// chooses for, with models trained on every shape of the evaluated
	// data instead of leaving one out.
	Test string
	// FleetPrior adds the fleet-prior tuner's replay: for each device
	// in turn, a fleet model trained on the other devices ranks each of
	// its fully recorded shapes, and the tuner (search.PriorSearch)
	// measures from that ranking; it is compared with random search and
	// the two-stage tuner at PriorFractions of the space, over
	// TwoStageSeeds seeds. With HoldoutDevice set, only that device is
	// tuned.
	FleetPrior bool
	// PriorFractions are the shares of the space measured at which the
	// fleet-prior replay compares the tuners; nil means 0.005, 0.01 and
	// 0.02.
	PriorFractions []float64
	// Tasks returns the task space that each dataset file's shapes are
	// checked against when read (train.LoadOptions.Tasks); nil: none.
	Tasks func(record.Meta) record.TaskChecker
	// Noise configures the noise ceiling (Report.Noise); its Seed is
	// replaced by Seed.
	Noise NoiseOptions
	// Seed drives every random choice.
	Seed uint64
	// Progress receives one line per stage; nil means quiet.
	Progress io.Writer
	// Workers is the number of leave-one-shape-out models fitted at once;
	// 0 means half of GOMAXPROCS, at least one, since each fit's selection
	// scores its folds two at a time (one fit at a time kept 1.8 of the
	// 2-core VM's cores busy). The picks are the same whatever the number:
	// each fold's model depends on its rows and these options alone.
	// Memory grows with it, by about one fit's working set a worker.
	// PickCurve fits its points' models this many at a time too (0: one a
	// core there, since those fits run no selection).
	Workers int
	// Steps, when not nil, is told how many of a long stage's steps are
	// done (leave-one-shape-out on each device's own rows: the held-out
	// shapes' fits), before the first and after each; nil: no count. Its
	// signature is train.Options.Progress's.
	Steps func(done, total int, stage string)
	// Context, when not nil, cancels the evaluation: every model it fits
	// stops at its next tree (train.Options.Context), each stage ends at
	// its next shape, and Evaluate returns an error that wraps the
	// context's (errors.Is(err, context.Canceled)) and no report. nil
	// means never cancelled.
	Context context.Context
}

// cancelled returns the context's error once opt's Context is cancelled.
func (opt Options) cancelled() error {
	if opt.Context == nil {
		return nil
	}
	return opt.Context.Err()
}

// Report is everything Evaluate measured. Percentages of best are
// t_best/t_pick*100 against the shape's fastest recorded configuration.
type Report struct {
	Kernel        string           `json:"kernel"`
	Rows          int              `json:"rows"`
	Shapes        []ShapeInfo      `json:"shapes"`
	LearningCurve []CurvePoint     `json:"learning_curve"`
	Strategies    []StrategyResult `json:"strategies"`
	TwoStage      []TwoStageResult `json:"two_stage"`
	// TwoStageMax is Options.MaxShares' replays, one a shape and share.
	TwoStageMax []MaxResult    `json:"two_stage_max,omitempty"`
	Holdout     *HoldoutReport `json:"holdout,omitempty"`
	// FleetPrior is Options.FleetPrior's replay, one result a shape, and
	// FleetPriorSummary its means over the shapes, one a share of the space.
	FleetPrior        []FleetPriorResult  `json:"fleet_prior,omitempty"`
	FleetPriorSummary []PriorSummaryPoint `json:"fleet_prior_summary,omitempty"`
	// Noise is the split-half noise ceiling of the judged shapes (and the
	// held-out picks re-judged by it); nil where no shape has repeats.
	Noise *NoiseReport `json:"noise_ceiling,omitempty"`
	// OtherVersions are the data's files left out for holding another
	// version of the spec kernel (train.Data.OtherVersions).
	OtherVersions []string `json:"other_versions,omitempty"`
}

// ShapeInfo describes one (platform, task) of the data.
type ShapeInfo struct {
	Platform string  `json:"platform"`
	Shape    string  `json:"shape"`
	Recorded int     `json:"recorded"`
	OK       int     `json:"ok"`
	Coverage float64 `json:"coverage"`
	// BestNs is the fastest ok row's time; 0 when none ran (OK is 0).
	BestNs float64 `json:"best_ns"`
	RefPct float64 `json:"reference_pct_of_best"`
}

// CurvePoint is the error of a model trained on part of the rows and
// tested on the rest (Falch and Elster, Fig. 6).
type CurvePoint struct {
	Platform  string  `json:"platform"`
	Fraction  float64 `json:"fraction"`
	TrainRows int     `json:"train_rows"`
	RMSE      float64 `json:"rmse_log_speedup"`
	MRE       float64 `json:"mre_time"`
	Spearman  float64 `json:"spearman"`
}

// StrategyResult is the distribution, over shapes and seeds, of the best
// configuration a strategy found within a budget (CLTune, Fig. 5). Where
// the device's limits are known (Pruned), the configurations over them are
// neither measured nor counted against the budget (search.Settings.Pruned),
// as a tuner that reads the limits never compiles them; a configuration
// that fails on the device counts.
type StrategyResult struct {
	Strategy string  `json:"strategy"`
	Budget   int     `json:"budget"`
	Runs     int     `json:"runs"`
	Median   float64 `json:"pct_of_best"`
	P10      float64 `json:"p10_pct_of_best"`
	P90      float64 `json:"p90_pct_of_best"`
	Mean     float64 `json:"mean_pct_of_best"`
}

// TwoStageResult compares the two-stage tuner with random search using the
// same number of measurements on one shape (Falch and Elster, Fig. 10);
// figures are medians over seeds. Both sides measure within the device's
// limits where they are known (Pruned): the tuner passes over the
// configurations beyond them unmeasured, and random search draws from the
// RandomSpace configurations within them, as a user's random search
// (Kernel Tuner's) would; a configuration that fails on the device is a
// measurement on either side. (Before session 18 random search drew from
// the whole space, those beyond the limits counted as measurements.)
type TwoStageResult struct {
	Platform     string  `json:"platform"`
	Shape        string  `json:"shape"`
	Threshold    float64 `json:"threshold"`
	SpaceSize    int     `json:"space_size"`
	Sample       int     `json:"first_stage_measurements"`
	Measurements float64 `json:"measurements"`
	MeasuredPct  float64 `json:"measured_pct_of_space"`
	Pct          float64 `json:"pct_of_best"`
	Top1Pct      float64 `json:"model_top1_pct_of_best"`
	// RandomPct is random search with each seed's count of measurements,
	// one random order of the RandomSpace configurations a seed.
	RandomPct float64 `json:"random_pct_of_best"`
	// RandomMedianPct is random search's median at each seed's count,
	// exact (search.RandomMedian) rather than one random order a seed.
	RandomMedianPct float64 `json:"random_median_pct_of_best"`
	// RandomSpace is the configurations random search draws from: those
	// of SpaceSize within the device's limits, all of them where the
	// limits are unknown (imported data).
	RandomSpace int `json:"random_space_size"`
	Seeds       int `json:"seeds"`
	// Failed is the median over seeds of the measurements, both stages,
	// of configurations that failed on the device; Passed those the
	// second stage passed over as predicted to fail (search.SecondStage's
	// Failures).
	Failed float64 `json:"failed_measurements"`
	Passed float64 `json:"passed_over"`
}

// MaxResult is the two-stage tuner given a measurement budget on one
// shape (Options.MaxShares): the first stage half of it, the second the
// rest, spent whole. Figures are medians over seeds, as TwoStageResult's,
// but MeanPct and WorstPct.
type MaxResult struct {
	Platform     string  `json:"platform"`
	Shape        string  `json:"shape"`
	SharePct     float64 `json:"share_pct_of_space"`
	Measurements int     `json:"measurements"`
	FirstStage   int     `json:"first_stage_measurements"`
	Pct          float64 `json:"pct_of_best"`
	MeanPct      float64 `json:"mean_pct_of_best"`
	WorstPct     float64 `json:"worst_seed_pct_of_best"`
	// SampleBestPct is the best of the first stage's sample alone;
	// RandomMedianPct random search's exact median with Measurements
	// draws within the device's limits (search.RandomMedian).
	SampleBestPct   float64 `json:"first_stage_best_pct_of_best"`
	RandomMedianPct float64 `json:"random_median_pct_of_best"`
	Seeds           int     `json:"seeds"`
}

// HoldoutReport is Choose with zero measurements on shapes left out of
// training.
type HoldoutReport struct {
	// Mode is "shapes" (leave one shape out) or "device" (leave one
	// device out: Device is the held-out one, TrainedOn the others).
	Mode      string         `json:"mode"`
	Device    string         `json:"device,omitempty"`
	TrainedOn []string       `json:"trained_on,omitempty"`
	Shapes    []HoldoutShape `json:"shapes"`
	// Geomean is Pct under the name the fleet evaluation reports it by.
	Geomean float64 `json:"geomean_pct_of_best"`
	// Pct is the geometric mean over shapes of the chosen configuration's
	// speed as % of the shape's best (a pick that failed on the device
	// counts as the reference, which is what a library falls back to).
	Pct float64 `json:"pct_of_best"`
	// PctInterval is a 95% bootstrap interval of Pct over the shapes
	// (resampled with replacement): how far another set of shapes like
	// these could move it.
	PctInterval [2]float64 `json:"pct_of_best_interval95"`
	// Worst is the lowest % of best of a recorded pick.
	Worst float64 `json:"worst_pct_of_best"`
	// Top1Pct is the same for the model's favourite among the recorded
	// configurations, RefPct for the reference configuration.
	Top1Pct float64 `json:"top1_recorded_pct_of_best"`
	RefPct  float64 `json:"reference_pct_of_best"`
	// FixedPct and FixedWorst are the geometric mean and the lowest of
	// HoldoutShape.FixedPct over the shapes that have one (shapes mode):
	// a model's picks should beat one configuration for every shape.
	FixedPct   float64 `json:"fixed_pct_of_best,omitempty"`
	FixedWorst float64 `json:"fixed_worst_pct_of_best,omitempty"`
	// Unrecorded counts picks that were never measured and so are left
	// out of Pct; Failed counts picks that failed on the device.
	Unrecorded int `json:"unrecorded_picks"`
	Failed     int `json:"failed_picks"`
	// Copies are, per other device, the geometric mean of copying its
	// best configuration of the shape (or of its nearest shape), and
	// CopyBestPct that of the best such copy of each shape (an oracle
	// over the devices); device mode only.
	Copies      []CopyResult `json:"copies,omitempty"`
	CopyBestPct float64      `json:"copy_best_pct_of_best,omitempty"`
	// Policy is the runtime's source for the held-out device (device mode
	// only): "fleet" (the fleet model's search) or "copy" (other devices'
	// measured bests, from the device the fleet model ranks first), as the
	// bundle's leave-one-device-out (Unseen) or its default chose.
	// FleetSearchPct is the geometric mean of the fleet model's search
	// forced, CopyPolicyPct of copying forced, for comparison.
	Policy         string        `json:"policy,omitempty"`
	FleetSearchPct float64       `json:"fleet_search_pct_of_best,omitempty"`
	CopyPolicyPct  float64       `json:"copy_policy_pct_of_best,omitempty"`
	Unseen         *UnseenReport `json:"unseen,omitempty"`
	// NewShapesPct, NewShapesWorst and NewShapesCopyPct are Pct, Worst
	// and CopyPolicyPct with each shape removed from the other devices'
	// measured bests while it is chosen for: the held-out device's shapes
	// as shapes no device measured (device mode only).
	NewShapesPct     float64 `json:"new_shapes_pct_of_best,omitempty"`
	NewShapesWorst   float64 `json:"new_shapes_worst_pct_of_best,omitempty"`
	NewShapesCopyPct float64 `json:"new_shapes_copy_policy_pct_of_best,omitempty"`
	// TopK is the best of the runtime's first k candidates
	// (Chooser.Candidates) measured once, for k = 2, 3, 5 and 8.
	TopK []TopK `json:"top_k,omitempty"`
	// Pooled says the shapes' models were trained on every device's rows
	// (Options.Pool); shapes mode only.
	Pooled bool `json:"pooled,omitempty"`
	// Devices are the figures above for each device's shapes alone, when
	// the shapes are of two devices or more (shapes mode only).
	Devices []DeviceHoldout `json:"devices,omitempty"`
}

// DeviceHoldout is one device's part of a leave-one-shape-out: its
// shapes' figures as HoldoutReport has them for all.
type DeviceHoldout struct {
	Device      string     `json:"device"`
	Shapes      int        `json:"shapes"`
	Pct         float64    `json:"pct_of_best"`
	PctInterval [2]float64 `json:"pct_of_best_interval95"`
	Worst       float64    `json:"worst_pct_of_best"`
	TopK        []TopK     `json:"top_k,omitempty"`
	// OwnPct and FleetPct are the geometric means of the shapes'
	// HoldoutShape.OwnPct and FleetPct, OwnWorst and FleetWorst their
	// worst: the device's picks with its own model in every fold and with
	// the fleet model in every fold, beside Pct, the fold's choice. 0
	// outside a fleet's folds (HoldoutShape.Pool).
	OwnPct     float64 `json:"own_pct_of_best,omitempty"`
	OwnWorst   float64 `json:"own_worst_pct_of_best,omitempty"`
	FleetPct   float64 `json:"fleet_pct_of_best,omitempty"`
	FleetWorst float64 `json:"fleet_worst_pct_of_best,omitempty"`
}

// HoldoutShape is one left-out shape.
type HoldoutShape struct {
	Platform string  `json:"platform"`
	Shape    string  `json:"shape"`
	Chosen   string  `json:"chosen"`
	Pct      float64 `json:"pct_of_best"` // 0 when the pick was not recorded
	Top1Pct  float64 `json:"top1_recorded_pct_of_best"`
	RefPct   float64 `json:"reference_pct_of_best"`
	// FixedPct is the same for one configuration for every shape: the
	// training shapes' best by geometric mean (shapes mode; 0 when there
	// is none or the shape did not record it).
	FixedPct float64 `json:"fixed_pct_of_best,omitempty"`
	Status   string  `json:"status"` // ok, failed, unrecorded
	// Learner is the setting model selection chose for this shape's model.
	Learner string `json:"learner,omitempty"`
	// Consensus says the shape's model carries the nearest-shape rule
	// (features.Consensus): its selection found the rule picked better.
	Consensus bool `json:"consensus,omitempty"`
	// Rule is the rule's score beside the learner's in the selection of
	// the shape's model (train.Selection.Consensus): why it was carried
	// or not; nil when the selection did not score it.
	Rule *train.ConsensusScore `json:"rule,omitempty"`
	// Fixed is the fixed configuration's score beside the model's in the
	// same selection (train.FixedScore): where Applied, the fold's model
	// served it.
	Fixed *train.FixedScore `json:"fixed,omitempty"`
	// Copies and CopyBestPct are the copy baselines (device mode only).
	Copies      []CopyPick `json:"copies,omitempty"`
	CopyBestPct float64    `json:"copy_best_pct_of_best,omitempty"`
	// Source is the pick's Pick.Source (device mode, and shapes mode of a
	// fleet, where it says which model the fold's choice, Pool, used);
	// FleetSearchPct and CopyPolicyPct are the picks of the fleet model's
	// search and of copying, each forced (device mode only; 0 when
	// unrecorded).
	Source         string  `json:"source,omitempty"`
	FleetSearchPct float64 `json:"fleet_search_pct_of_best,omitempty"`
	CopyPolicyPct  float64 `json:"copy_policy_pct_of_best,omitempty"`
	// NewShapePct and NewShapeCopyPct are Pct and CopyPolicyPct with the
	// shape removed from the other devices' measured bests (device mode).
	NewShapePct     float64 `json:"new_shape_pct_of_best,omitempty"`
	NewShapeCopyPct float64 `json:"new_shape_copy_policy_pct_of_best,omitempty"`
	// TopK is the best of the first k candidates, one entry a k of
	// HoldoutReport.TopK.
	TopK []TopKShape `json:"top_k,omitempty"`
	// Candidates are the runtime's first candidates for the shape
	// (runtime.Chooser.Candidates, as many as the largest k), in its
	// order: what a user would measure, and time again to judge them.
	Candidates []string `json:"candidates,omitempty"`
	// Pool is the choice between the device's own model and the fleet
	// model that training made inside this shape's fold (train.PoolChoices,
	// as 'augur train' makes it for a fleet); nil with one device, with
	// Options.Pool or Options.Test.
	Pool *features.PoolChoice `json:"pool,omitempty"`
	// OwnPct and FleetPct are, with Pool, the picks of the device's own
	// model and of the fleet model, as Pct has them (a failed pick counts
	// as the reference): one is Pct, the other the pick had the choice
	// gone the other way. 0 when the pick was not recorded.
	OwnPct   float64 `json:"own_pct_of_best,omitempty"`
	FleetPct float64 `json:"fleet_pct_of_best,omitempty"`
}

// group is the recorded data of one (platform, task).
type group struct {
	platform int
	task     features.Task
	rows     []int              // every row, ok or not
	times    map[string]float64 // ok rows: Format(config) -> ns
	failed   map[string]bool
	refNs    float64
	bestNs   float64
}

func (o *Options) defaults() error {
	if o.Kernel == "" {
		return fmt.Errorf("eval: Options.Kernel is empty")
	}
	if o.Seeds == 0 {
		o.Seeds = 100
	}
	if o.Budgets == nil {
		o.Budgets = []int{16, 32, 64, 128}
	}
	if o.Thresholds == nil {
		o.Thresholds = []float64{0.1, 0.01}
	}
	if o.SampleFraction == 0 {
		o.SampleFraction = 0.02
	}
	if o.TwoStageSeeds == 0 {
		o.TwoStageSeeds = 20
	}
	if o.Coverage == 0 {
		o.Coverage = 0.9
	}
	if err := o.Noise.check(); err != nil {
		return err
	}
	switch {
	case o.Seeds < 1 || o.TwoStageSeeds < 1:
		return fmt.Errorf("eval: Seeds and TwoStageSeeds must be >= 1")
	case !(o.SampleFraction > 0 && o.SampleFraction < 1):
		return fmt.Errorf("eval: SampleFraction must be in (0, 1), got %g", o.SampleFraction)
	case !(o.Coverage > 0 && o.Coverage <= 1):
		return fmt.Errorf("eval: Coverage must be in (0, 1], got %g", o.Coverage)
	case slices.ContainsFunc(o.Budgets, func(n int) bool { return n < 1 }):
		return fmt.Errorf("eval: Budgets must be >= 1, got %v", o.Budgets)
	case slices.ContainsFunc(o.PriorFractions, func(f float64) bool { return !(f > 0 && f < 1) }):
		return fmt.Errorf("eval: PriorFractions must be in (0, 1), got %v", o.PriorFractions)
	case o.Holdout && o.HoldoutDevice != "":
		return fmt.Errorf("eval: Holdout and HoldoutDevice exclude each other")
	case o.HoldoutOnly && !o.Holdout && o.HoldoutDevice == "":
		return fmt.Errorf("eval: HoldoutOnly needs Holdout or HoldoutDevice")
	case o.Pool && !o.Holdout:
		return fmt.Errorf("eval: Pool needs Holdout (leave-one-shape-out)")
	case o.PoolFigures && (!o.Holdout || o.Pool || o.Test != ""):
		return fmt.Errorf("eval: PoolFigures needs Holdout without Pool or Test (the fleet's folds)")
	case o.Workers < 0:
		return fmt.Errorf("eval: Workers must be >= 0 (0: one for two cores), got %d", o.Workers)
	case o.SelectRepeats < 0:
		return fmt.Errorf("eval: SelectRepeats must be >= 0 (0: one deal), got %d", o.SelectRepeats)
	}
	return nil
}

// attach gives b the spec kernel's definition (Options.Spec), if any.
func (o *Options) attach(b *features.Bundle) error {
	if o.Spec == nil {
		return nil
	}
	return o.Spec.Attach(b)
}

// loadOptions are the options the evaluation reads data with: invalid
// rows at Zeta, the kernel's derived features and task space, and only the
// files of a spec kernel's version (Options.Spec); its work-group
// parameters with groups (training data; not held-out test data).
func (o *Options) loadOptions(groups bool) train.LoadOptions {
	lo := train.LoadOptions{Invalid: train.InvalidZeta, Zeta: o.Zeta, Derived: o.Derived, Tasks: o.Tasks}
	if groups {
		lo.GroupParams = o.GroupParams
	}
	if o.Spec != nil {
		lo.KernelVersion = o.Spec.Version()
	} else if k, err := datasets.Lookup(o.Kernel); err == nil {
		lo.TaskNames = k.TaskNames
	}
	return lo
}

// step passes done of total to Steps, if any.
func (o *Options) step(done, total int, stage string) {
	if o.Steps != nil {
		o.Steps(done, total, stage)
	}
}

func (o *Options) say(format string, args ...any) {
	if o.Progress != nil {
		fmt.Fprintf(o.Progress, format+"\n", args...)
	}
}

// Evaluate runs the evaluation over the recorded data of opt.Kernel under
// dir: a learning curve, search strategies and the two-stage tuner replayed
// on every shape whose space is (nearly) fully recorded, optionally
// leave-one-shape-out Choose, and the split-half noise ceiling of the
// judged shapes where their rows have repeats (Report.Noise).
func Evaluate(dir string, opt Options) (*Report, error) {
	rep, err := evaluate(dir, opt)
	if opt.cancelled() != nil {
		return nil, fmt.Errorf("eval: %w", context.Cause(opt.Context))
	}
	return rep, err
}

func evaluate(dir string, opt Options) (*Report, error) {
	if err := opt.defaults(); err != nil {
		return nil, err
	}
	all, err := train.LoadWith(dir, opt.Kernel, opt.loadOptions(true))
	if err != nil {
		return nil, err // train and record name themselves
	}
	space, err := features.NewSpace(all.Params, all.Constraints)
	if err != nil {
		return nil, err // features names itself
	}
	var okRows []int
	for i, s := range all.Samples() {
		if s.Measured() {
			okRows = append(okRows, i)
		}
	}
	d := all.Subset(okRows)
	rep := &Report{Kernel: opt.Kernel, Rows: all.Len(), OtherVersions: all.OtherVersions}
	groups := groupRows(all, space)
	rep.Shapes = shapeInfos(all, groups, space)
	// The holdouts' cheap refusals come before the costly parts.
	if err := checkHoldouts(all, groups, opt); err != nil {
		return nil, err
	}
	if !opt.HoldoutOnly {
		rng := rand.New(rand.NewPCG(opt.Seed, 0xe7a1))
		opt.say("learning curve on %d measured rows", d.Len())
		rep.LearningCurve = deviceCurves(d, opt, rng)
		if err := opt.cancelled(); err != nil {
			return nil, err
		}
		if rep.TwoStageMax, err = twoStageMax(all, groups, space, opt); err != nil {
			return nil, err
		}
		if rep.Strategies, rep.TwoStage, err = tuners(all, groups, space, opt); err != nil {
			return nil, err
		}
	}
	// The holdout models train on the measured rows, or on every row when
	// failures count with a stand-in.
	hd := d
	if opt.Invalid == train.InvalidZeta {
		hd = all
	}
	if err := opt.cancelled(); err != nil {
		return nil, err
	}
	if opt.Holdout {
		if rep.Holdout, err = shapeHoldout(hd, groups, space, opt); err != nil {
			return nil, err
		}
	}
	if opt.FleetPrior {
		if rep.FleetPrior, err = fleetPrior(all, hd, groups, space, opt); err != nil {
			return nil, err
		}
		rep.FleetPriorSummary = summarizePrior(rep.FleetPrior)
	}
	if opt.HoldoutDevice != "" {
		if rep.Holdout, err = holdoutDevice(hd, groups, space, opt); err != nil {
			return nil, err
		}
	}
	src := dir
	if opt.Test != "" {
		src = opt.Test
	}
	if rep.Noise, err = noiseCeiling(src, space, rep.Holdout, opt); err != nil {
		return nil, err
	}
	rep.Holdout.relabel(opt.Spec, space)
	return rep, nil
}

// shapeInfos describes every group of all.
func shapeInfos(all *train.Data, groups []*group, space *features.Space) []ShapeInfo {
	var out []ShapeInfo
	for _, g := range groups {
		info := ShapeInfo{Platform: all.Platforms[g.platform].Slug(), Shape: features.FormatTask(all.TaskNames, g.task),
			Recorded: len(g.rows), OK: len(g.times), Coverage: float64(len(g.rows)) / float64(space.Len())}
		if len(g.times) > 0 {
			info.BestNs = g.bestNs
		}
		if g.refNs > 0 && len(g.times) > 0 {
			info.RefPct = 100 * g.bestNs / g.refNs
		}
		out = append(out, info)
	}
	return out
}

// checkHoldouts refuses the holdouts and the fleet prior that all cannot
// serve.
func checkHoldouts(all *train.Data, groups []*group, opt Options) error {
	if opt.HoldoutDevice != "" && opt.Test == "" {
		if _, err := findDevice(all.Platforms, opt.HoldoutDevice); err != nil {
			return err
		}
		if len(all.Platforms) < 2 {
			return fmt.Errorf("%w: --holdout device needs data of another device to train on, have only %s", ErrNoHoldout, all.Platforms[0].Slug())
		}
	}
	if opt.Pool && len(all.Platforms) < 2 {
		return fmt.Errorf("%w: pooled leave-one-shape-out needs data of two devices or more, have only %s", ErrNoHoldout, all.Platforms[0].Slug())
	}
	if opt.FleetPrior && len(all.Platforms) < 2 {
		return fmt.Errorf("%w: the fleet prior needs data of two devices or more, have only %s", ErrNoHoldout, all.Platforms[0].Slug())
	}
	if opt.Holdout && opt.Test == "" {
		if err := noShapes(groups, opt); !errors.Is(err, errSomeShapes) {
			return err
		}
		if _, err := heldOut(all, groups, opt); err != nil {
			return err
		}
	}
	return nil
}

// heldOut keeps the groups of d that leave-one-shape-out chooses for:
// those of Options.HoldoutOf's device and of Options.HoldoutShapes, when
// given. An unknown device or shape is an error.
func heldOut(d *train.Data, groups []*group, opt Options) ([]*group, error) {
	all := groups
	if opt.HoldoutOf != "" {
		groups = slices.DeleteFunc(slices.Clone(groups), func(g *group) bool {
			p := d.Platforms[g.platform]
			return p.Slug() != opt.HoldoutOf && !strings.EqualFold(p.Name, opt.HoldoutOf)
		})
		if len(groups) == 0 {
			return nil, fmt.Errorf("eval: no shape of device %q to hold out", opt.HoldoutOf)
		}
	}
	if len(opt.HoldoutShapes) == 0 {
		return groups, nil
	}
	keep := map[features.TaskKey]bool{}
	var keys []features.TaskKey
	for _, s := range opt.HoldoutShapes {
		t, err := features.ParseTask(d.TaskNames, s)
		if err != nil {
			return nil, fmt.Errorf("eval: shape to hold out: %w", err)
		}
		keep[t.Key()] = false
		keys = append(keys, t.Key())
	}
	groups = slices.DeleteFunc(slices.Clone(groups), func(g *group) bool {
		if _, ok := keep[g.task.Key()]; ok {
			keep[g.task.Key()] = true
			return false
		}
		return true
	})
	for i, k := range keys {
		if !keep[k] {
			return nil, fmt.Errorf("eval: no shape %q to hold out: no device measured it (one that did: %s)", opt.HoldoutShapes[i], features.FormatTask(d.TaskNames, all[0].task))
		}
	}
	return groups, nil
}

// deviceCurves is one learning curve per device of d: imported data may
// not tell devices apart by their features, and a device's own curve is
// what a user reads.
func deviceCurves(d *train.Data, opt Options, rng *rand.Rand) []CurvePoint {
	var out []CurvePoint
	for pi, p := range d.Platforms {
		if opt.cancelled() != nil {
			break
		}
		var rows []int
		for i, s := range d.Samples() {
			if s.Platform == pi {
				rows = append(rows, i)
			}
		}
		for _, c := range learningCurve(d.Subset(rows), curveLearner(opt), rng) {
			c.Platform = p.Slug()
			out = append(out, c)
		}
	}
	return out
}

// tuners replays the search strategies and the two-stage tuner on the
// groups with at least opt.Coverage of the space recorded.
func tuners(all *train.Data, groups []*group, space *features.Space, opt Options) ([]StrategyResult, []TwoStageResult, error) {
	var complete []*group
	for _, g := range groups {
		if float64(len(g.rows)) >= opt.Coverage*float64(space.Len()) && len(g.times) > 0 {
			complete = append(complete, g)
		}
	}
	opt.say("strategies and two-stage tuner on %d of %d shapes with >= %.0f%% of the space recorded", len(complete), len(groups), 100*opt.Coverage)
	if len(complete) == 0 {
		return nil, nil, nil
	}
	strats, err := strategies(all, space, complete, opt)
	if err != nil {
		return nil, nil, err
	}
	var two []TwoStageResult
	for _, g := range complete {
		if err := opt.cancelled(); err != nil {
			return nil, nil, err
		}
		for _, t := range opt.Thresholds {
			r, err := twoStage(all, space, g, t, opt)
			if err != nil {
				return nil, nil, err
			}
			two = append(two, r)
		}
	}
	return strats, two, nil
}

// twoStageMax replays the two-stage tuner with each of opt.MaxShares as
// its measurement budget on the groups tuners replays, splitting the
// budget as tune.Tune does: a first stage of half.
func twoStageMax(all *train.Data, groups []*group, space *features.Space, opt Options) ([]MaxResult, error) {
	var out []MaxResult
	for _, g := range groups {
		if float64(len(g.rows)) < opt.Coverage*float64(space.Len()) || len(g.times) == 0 {
			continue
		}
		ts, err := newTwoStage(all, space, g, encoder(all, opt.Derived))
		if err != nil {
			return nil, err
		}
		for _, share := range opt.MaxShares {
			c := max(2, int(math.Round(share/100*float64(len(ts.valid)))))
			n0 := (c + 1) / 2
			res := MaxResult{Platform: all.Platforms[g.platform].Slug(), Shape: features.FormatTask(all.TaskNames, g.task),
				SharePct: share, Measurements: c, FirstStage: n0, Seeds: opt.TwoStageSeeds, WorstPct: math.Inf(1)}
			var pcts, firsts []float64
			for seed := range opt.TwoStageSeeds {
				r, err := ts.run(opt, n0, c, 1e-12, opt.Seed+uint64(seed))
				if err != nil {
					return nil, err
				}
				pcts, firsts = append(pcts, r.pct), append(firsts, r.firstPct)
				res.WorstPct = min(res.WorstPct, r.pct)
			}
			pruned := ts.pruned(opt)
			_, res.RandomMedianPct = ts.randomSearch(pruned, c, rand.New(rand.NewPCG(opt.Seed, 0x2574)))
			res.Pct, res.MeanPct, res.SampleBestPct = median(pcts), mean(pcts), median(firsts)
			out = append(out, res)
		}
	}
	return out, nil
}

// shapeHoldout is leave-one-shape-out on hd's groups, or, with opt.Test,
// Choose from models trained on all of hd for the test data's fully
// recorded shapes.
func shapeHoldout(hd *train.Data, groups []*group, space *features.Space, opt Options) (*HoldoutReport, error) {
	shapes := map[features.TaskKey]bool{}
	for _, g := range groups {
		shapes[g.task.Key()] = true
	}
	if opt.HoldoutOf != "" {
		opt.say("leave-one-shape-out Choose on the shapes of %s, of %d shapes (%d shape and device pairs)", opt.HoldoutOf, len(shapes), len(groups))
	} else {
		opt.say("leave-one-shape-out Choose on %d shapes (%d shape and device pairs)", len(shapes), len(groups))
	}
	targets, tdata := groups, hd
	if opt.Test != "" {
		test, err := train.LoadWith(opt.Test, opt.Kernel, opt.loadOptions(false))
		if err != nil {
			return nil, fmt.Errorf("eval: test data: %w", err)
		}
		targets, tdata = nil, test
		for _, g := range groupRows(test, space) {
			if float64(len(g.rows)) >= opt.Coverage*float64(space.Len()) && len(g.times) > 0 {
				targets = append(targets, g)
			}
		}
		opt.say("choosing for %d fully recorded shapes of %s", len(targets), opt.Test)
	}
	return holdout(hd, tdata, targets, space, opt)
}

func groupRows(d *train.Data, space *features.Space) []*group {
	type key struct {
		p int
		t features.TaskKey
	}
	byKey := map[key]*group{}
	var out []*group
	for i, s := range d.Samples() {
		k := key{s.Platform, s.Task.Key()}
		g := byKey[k]
		if g == nil {
			g = &group{platform: s.Platform, task: s.Task, times: map[string]float64{}, failed: map[string]bool{}, bestNs: math.Inf(1)}
			byKey[k] = g
			out = append(out, g)
		}
		g.rows = append(g.rows, i)
		name := space.Format(s.Config)
		if s.Measured() {
			g.times[name] = s.TimeNs
			g.refNs = s.RefTimeNs
			g.bestNs = min(g.bestNs, s.TimeNs)
		} else {
			g.failed[name] = true
		}
	}
	return out
}

// curveLearner is the learning curve's learner (see Options.GBRT).
func curveLearner(opt Options) train.Learner {
	if opt.Learner == "rf" {
		return train.ForestOptions{Seed: opt.Seed}
	}
	return opt.GBRT
}

func learningCurve(d *train.Data, gb train.Learner, rng *rand.Rand) []CurvePoint {
	var out []CurvePoint
	for _, f := range []float64{0.01, 0.02, 0.05, 0.1, 0.25, 0.5} {
		n := int(f * float64(d.Len()))
		if n < 20 || d.Len()-n < 20 {
			continue
		}
		const reps = 3
		p := CurvePoint{Fraction: f, TrainRows: n}
		for range reps {
			perm := rng.Perm(d.Len())
			te := d.Subset(perm[n:])
			m, err := train.FitRows(gb, d, perm[:n])
			if err != nil {
				continue
			}
			pred := make([]float64, te.Len())
			for i := range pred {
				pred[i] = m.Predict(te.Row(i))
			}
			cv := train.Score(te, pred)
			p.RMSE += cv.RMSELogSpeedup / reps
			p.MRE += cv.MRETime / reps
			p.Spearman += cv.Spearman / reps
		}
		out = append(out, p)
	}
	return out
}

// strategies replays each search strategy on groups, every budget and
// seed, within each device's limits where they are known (groupPruned).
func strategies(all *train.Data, space *features.Space, groups []*group, opt Options) ([]StrategyResult, error) {
	named := []struct {
		name string
		s    search.Strategy
	}{
		{"random", search.Random{}},
		{"hillclimb", search.HillClimb{}},
		{"anneal", search.Anneal{Temperature: 0.5}},
		{"pso", search.PSO{}},
		{"grouped", search.Grouped{}},
	}
	objs := make([]search.Objective, len(groups))
	prunes := make([]func(features.Config) bool, len(groups))
	valid := space.All()
	for i, g := range groups {
		obj, err := search.Replay(space, g.times, 0)
		if err != nil {
			return nil, fmt.Errorf("eval: %w", err)
		}
		objs[i] = obj
		prunes[i] = prunedFunc(space, valid, groupPruned(all, space, g, valid, opt))
	}
	var out []StrategyResult
	for _, st := range named {
		for _, budget := range opt.Budgets {
			var pcts []float64
			for gi, g := range groups {
				for seed := range opt.Seeds {
					rng := rand.New(rand.NewPCG(opt.Seed+uint64(seed), uint64(gi)))
					res, err := search.Run(st.s, space, objs[gi], rng, search.Settings{Budget: budget, Pruned: prunes[gi]})
					pct := 0.0
					if err == nil {
						pct = 100 * g.bestNs / -res.Score
					}
					pcts = append(pcts, pct)
				}
			}
			out = append(out, summarize(st.name, budget, pcts))
		}
	}
	return out, nil
}

func summarize(name string, budget int, pcts []float64) StrategyResult {
	slices.Sort(pcts)
	q := func(f float64) float64 { return pcts[int(f*float64(len(pcts)-1))] }
	mean := 0.0
	for _, p := range pcts {
		mean += p / float64(len(pcts))
	}
	return StrategyResult{Strategy: name, Budget: budget, Runs: len(pcts), Median: q(0.5), P10: q(0.1), P90: q(0.9), Mean: mean}
}

// twoStage replays Falch and Elster's tuner on one fully recorded shape.
func twoStage(d *train.Data, space *features.Space, g *group, threshold float64, opt Options) (TwoStageResult, error) {
	ts, err := newTwoStage(d, space, g, encoder(d, opt.Derived))
	if err != nil {
		return TwoStageResult{}, err
	}
	n0 := max(10, int(math.Round(opt.SampleFraction*float64(len(ts.valid)))))
	res := TwoStageResult{Platform: d.Platforms[g.platform].Slug(), Shape: features.FormatTask(d.TaskNames, g.task),
		Threshold: threshold, SpaceSize: len(ts.valid), Sample: n0, Seeds: opt.TwoStageSeeds,
		RandomSpace: len(ts.valid) - countTrue(ts.pruned(opt))}
	var meas, pcts, top1s, rands, meds, failed, passed []float64
	for seed := range opt.TwoStageSeeds {
		r, err := ts.run(opt, n0, 0, threshold, opt.Seed+uint64(seed))
		if err != nil {
			return res, err
		}
		if !r.fitted {
			continue // too few first-stage measurements ran to fit a model
		}
		meas = append(meas, float64(r.total))
		pcts = append(pcts, r.pct)
		top1s = append(top1s, r.top1)
		rands = append(rands, r.randomPct)
		meds = append(meds, r.randomMed)
		failed, passed = append(failed, float64(r.failed)), append(passed, float64(r.passed))
	}
	if len(pcts) == 0 {
		return res, nil
	}
	res.Measurements = median(meas)
	res.MeasuredPct = 100 * res.Measurements / float64(len(ts.valid))
	res.Pct, res.Top1Pct, res.RandomPct, res.RandomMedianPct = median(pcts), median(top1s), median(rands), median(meds)
	res.Failed, res.Passed = median(failed), median(passed)
	return res, nil
}

// groupPruned says which of valid (the space's configurations) are known
// to fail on g's device before compiling (Pruned), by the kernel of opt
// (its spec, or the family of that name) and the device's recorded limits;
// nil when nothing is known. It checks them against the data: when the
// kernel's parameters or shape differ from the data's, or a configuration
// it rules out ran, nothing is known.
func groupPruned(d *train.Data, space *features.Space, g *group, valid []features.Config, opt Options) []bool {
	k := opt.Spec
	if k == nil {
		k, _ = datasets.Lookup(opt.Kernel) // nil for a kernel with no family: nothing known
	}
	if k == nil || !slices.Equal(k.TaskNames, d.TaskNames) || !sameParams(k.Space.Params, d.Params) {
		return nil
	}
	prune := Pruned(k, g.task, d.Platforms[g.platform], valid)
	for i, c := range valid {
		if _, ran := g.times[space.Format(c)]; ran && prune != nil && prune[i] {
			return nil
		}
	}
	return prune
}

// prunedFunc is pruned (over valid) as search.Settings.Pruned takes it;
// nil when nothing is pruned.
func prunedFunc(space *features.Space, valid []features.Config, pruned []bool) func(features.Config) bool {
	at := map[int]bool{}
	for i, p := range pruned {
		if p {
			at[space.Index(valid[i])] = true
		}
	}
	if len(at) == 0 {
		return nil
	}
	return func(c features.Config) bool { return at[space.Index(c)] }
}

func countTrue(v []bool) int {
	n := 0
	for _, b := range v {
		if b {
			n++
		}
	}
	return n
}

// randomSearch is random search with k measurements on the shape, drawn
// without replacement from the valid configurations within the device's
// limits (pruned false; all with pruned nil), as a user's random search
// draws them: the best of one random order of rng (% of the best) and
// the exact median over orders (search.RandomMedian). A configuration that
// fails on the device is one of the k. The tuner it is compared with never
// measures a pruned configuration either; counting them as random
// search's measurements credited the tuner with limits random search did
// not read (bench/RESULTS.md, session 18).
func (ts *twoStageSpace) randomSearch(pruned []bool, k int, rng *rand.Rand) (pct, med float64) {
	g := ts.g
	n := len(ts.valid) - countTrue(pruned)
	best, drawn := math.Inf(1), 0
	// One permutation of the whole space, the pruned left out: the same
	// draws as before where nothing is pruned.
	for _, i := range rng.Perm(len(ts.valid)) {
		if drawn >= k {
			break
		}
		if pruned != nil && pruned[i] {
			continue
		}
		drawn++
		if t, ok := g.times[ts.space.Format(ts.valid[i])]; ok {
			best = min(best, t)
		}
	}
	return 100 * g.bestNs / best, 100 * g.bestNs / search.RandomMedian(ts.times, n, k)
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// holdout leaves each shape out in turn, trains the platform's model on
// the others as 'augur train' would and chooses for it with the runtime,
// as a library would. With Options.Test, the models train on every shape of
// d and choose for the test data's shapes (groups of test). With
// Options.Pool, the model is the fleet model of every device's rows
// without the shape, scored with the platform's features.
func holdout(d, test *train.Data, groups []*group, space *features.Space, opt Options) (*HoldoutReport, error) {
	rep := &HoldoutReport{Mode: "shapes", Pooled: opt.Pool}
	var logPct, logTop, logRef []float64
	// Models that serve several shapes are fitted once (holdoutKey).
	fits := map[string]holdoutFit{}
	// Of a fleet, leave-one-shape-out makes train's choice between each
	// device's own model and the fleet model inside each fold; the
	// decisions of a fold hold for every device with its shape.
	decide := !opt.Pool && opt.Test == "" && platforms(d) >= 2
	var decided map[*group]holdoutFit
	trained := groupRows(d, space)
	var logFixed []float64
	groups, err := heldOut(test, groups, opt)
	if err != nil {
		return nil, err
	}
	var pre map[*group]holdoutFit
	if decide {
		if decided, err = predecide(d, groups, opt); err != nil {
			return nil, err
		}
	} else if pre, err = prefit(d, test, groups, opt); err != nil {
		return nil, err
	}
	for _, g := range groups {
		plat := test.Platforms[g.platform]
		rows := holdoutRows(d, plat, g, opt)
		if len(rows) < 20 || len(g.times) == 0 || g.refNs == 0 {
			continue
		}
		var f holdoutFit
		switch key := holdoutKey(d, plat, g, opt); {
		case decide:
			f = decided[g] // predecide's
		case pre[g].b != nil:
			f = pre[g]
		default:
			var ok bool
			if f, ok = fits[key]; !ok {
				var err error
				if f, err = fitHoldout(d.Subset(rows), plat, opt); err != nil {
					return nil, err
				}
				if key != "" {
					fits[key] = f
				}
			}
		}
		ch, err := f.chooser(plat, opt)
		if err != nil {
			return nil, err
		}
		pick, err := ch.Choose(g.task)
		if err != nil {
			return nil, fmt.Errorf("eval: %w", err)
		}
		hs := HoldoutShape{Platform: plat.Slug(), Shape: features.FormatTask(d.TaskNames, g.task), Chosen: space.Format(pick),
			RefPct: 100 * g.bestNs / g.refNs}
		hs.Learner, hs.Pool = f.learner, f.pool
		hs.Consensus = slices.ContainsFunc(f.b.Models, func(m features.Model) bool { return m.Consensus != nil })
		if f.mr.Selection != nil {
			hs.Rule, hs.Fixed = f.mr.Selection.Consensus, f.mr.Selection.Fixed
		}
		if decide {
			hs.Source = ch.Source()
		}
		name := space.Format(pick)
		switch t, ok := g.times[name]; {
		case ok:
			hs.Status, hs.Pct = "ok", 100*g.bestNs/t
		case g.failed[name]:
			hs.Status, hs.Pct = "failed", hs.RefPct
			rep.Failed++
		default:
			hs.Status = "unrecorded"
			rep.Unrecorded++
		}
		top, topScore := "", math.Inf(-1)
		sc := ch.Model().Scorer(g.task)
		for name := range g.times {
			c, _ := space.Parse(name)
			if v := sc.Predict(c); v > topScore || (v == topScore && name < top) {
				top, topScore = name, v
			}
		}
		hs.Top1Pct = 100 * g.bestNs / g.times[top]
		if hs.TopK, hs.Candidates, err = topK(ch, g, space); err != nil {
			return nil, err
		}
		if decide && f.pool != nil && len(f.b.Models) > 1 && hs.Status != "unrecorded" {
			if err := bothPicks(&hs, f, plat, g, space, opt); err != nil {
				return nil, err
			}
		}
		if hs.Status != "unrecorded" {
			logPct = append(logPct, math.Log(hs.Pct))
			if rep.Worst == 0 || hs.Pct < rep.Worst {
				rep.Worst = hs.Pct
			}
		}
		var same []*group
		for _, x := range trained {
			if d.Platforms[x.platform].Slug() == plat.Slug() && (opt.Test != "" || x.task.Key() != g.task.Key()) {
				same = append(same, x)
			}
		}
		if pct, ok := fixedPct(same, g); ok {
			hs.FixedPct = pct
			logFixed = append(logFixed, math.Log(pct))
			if rep.FixedWorst == 0 || pct < rep.FixedWorst {
				rep.FixedWorst = pct
			}
		}
		logTop = append(logTop, math.Log(hs.Top1Pct))
		logRef = append(logRef, math.Log(hs.RefPct))
		rep.Shapes = append(rep.Shapes, hs)
	}
	if len(rep.Shapes) == 0 {
		return nil, noShapes(groups, opt)
	}
	rep.Pct, rep.Top1Pct, rep.RefPct = geomean(logPct), geomean(logTop), geomean(logRef)
	if len(logFixed) > 0 {
		rep.FixedPct = geomean(logFixed)
	}
	rep.Geomean, rep.PctInterval = rep.Pct, geomeanInterval(logPct)
	rep.TopK = summarizeTopK(rep.Shapes)
	rep.Devices = summarizeDevices(rep.Shapes)
	return rep, nil
}

// Picker names what picked for the shape: the learner, and "+rule" when
// its model carries the nearest-shape rule.
func (s HoldoutShape) Picker() string {
	if s.Consensus {
		return s.Learner + " +rule"
	}
	return s.Learner
}

// holdoutFit is a model that chooses for held-out shapes, in its bundle.
type holdoutFit struct {
	b       *features.Bundle
	learner string // the setting the selection chose; "" when given
	mr      train.ModelReport
	// pool is the fold's choice between the device's own model and the
	// fleet model (decideFold); nil outside a fleet. b holds the fleet
	// model beside the device's where the choice was scored
	// (train.PoolScored), the device's alone where it was not.
	pool *features.PoolChoice
	// fold says b is a fleet fold's bundle (decideFold), which the
	// runtime serves for the device by name.
	fold bool
}

// bothPicks records in hs, whose pick f made with its fold's choice
// (f.pool), the pick of the model the choice did not take, forced, beside
// the pick made: what the device's own model and the fleet model each
// pick for g.
func bothPicks(hs *HoldoutShape, f holdoutFit, plat features.Platform, g *group, space *features.Space, opt Options) error {
	b := *f.b
	b.Models = slices.Clone(f.b.Models)
	flipped := *f.pool
	flipped.Fleet = !flipped.Fleet
	b.Models[0].Pool = &flipped
	alt := f
	alt.b = &b
	ch, err := alt.chooser(plat, opt)
	if err != nil {
		return err
	}
	pick, err := ch.Choose(g.task)
	if err != nil {
		return fmt.Errorf("eval: %w", err)
	}
	other := 0.0
	switch name := space.Format(pick); {
	case g.times[name] > 0:
		other = 100 * g.bestNs / g.times[name]
	case g.failed[name]:
		other = hs.RefPct
	}
	hs.OwnPct, hs.FleetPct = hs.Pct, other
	if f.pool.Fleet {
		hs.OwnPct, hs.FleetPct = other, hs.Pct
	}
	return nil
}

// platforms counts the platforms with rows in d (a Subset keeps every
// platform of the data it came from).
func platforms(d *train.Data) int {
	seen := map[int]bool{}
	for _, s := range d.Samples() {
		seen[s.Platform] = true
	}
	return len(seen)
}

// decideFold fits, for g's shape held out of every device, the own model
// of each device with a group of that shape among groups, the fleet
// model, and train's choice between them (train.PoolChoices), which for
// a device rests on those two models alone, and records in decided, for
// each of those groups, a bundle holding the device's model (with the
// choice) and the fleet model, as 'augur train' writes them. A device
// whose choice train does not score (train.PoolScored: one of many
// shapes, without Options.PoolFigures) gets its own model alone, with the
// choice that keeps it; the fleet model is fitted only when some device
// of the shape is scored.
func decideFold(d *train.Data, groups []*group, g *group, opt Options, decided map[*group]holdoutFit) error {
	sub := d.Subset(holdoutRows(d, features.Platform{}, g, Options{Pool: true}))
	own := make([]train.ModelReport, len(d.Platforms))
	fits := map[int]holdoutFit{}
	for _, o := range groups {
		if o.task.Key() != g.task.Key() {
			continue
		}
		plat := d.Platforms[o.platform]
		rows := holdoutRows(d, plat, o, opt)
		if len(rows) < 20 {
			continue
		}
		f, err := fitHoldout(d.Subset(rows), plat, opt)
		if err != nil {
			return err
		}
		own[o.platform], fits[o.platform] = f.mr, f
	}
	popt := train.PoolOptions{Figures: opt.PoolFigures}
	scored := train.PoolScored(sub, own, popt)
	var fleet holdoutFit
	if slices.Contains(scored, true) {
		var err error
		fleet, err = fitHoldout(sub, features.Platform{}, Options{Pool: true, Kernel: opt.Kernel, Spec: opt.Spec,
			Learner: opt.Learner, GBRT: opt.GBRT, Seed: opt.Seed})
		if err != nil {
			return err
		}
	}
	choices, err := train.PoolChoices(sub, own, fleet.mr, popt)
	if err != nil {
		return fmt.Errorf("eval: %w", err)
	}
	for _, o := range groups {
		f, ok := fits[o.platform]
		if !ok || o.task.Key() != g.task.Key() {
			continue
		}
		b := *f.b
		b.Models = []features.Model{f.b.Models[0]}
		if scored[o.platform] {
			b.Models = append(b.Models, fleet.b.Models[0])
			b.Measured = fleet.b.Measured // every device's, as a fleet bundle's
		}
		// Else the device's own measured bests, those of the fleet
		// bundle that its chooser reads.
		b.Models[0].Pool = choices[o.platform]
		f.b, f.pool, f.fold = &b, choices[o.platform], true
		decided[o] = f
	}
	return nil
}

// predecide runs decideFold, Options.Workers at a time, for each shape of
// the groups chosen for (those with rows to train on and a measured
// optimum): as 'augur train' on a fleet, each device's own model, the
// fleet model and the choice between them, all without the shape, for the
// groups chosen for only (a device's choice rests on its own model and
// the fleet model alone). The folds are independent, so the models are
// those of deciding them one after another. It tells Options.Steps of
// each fold done; an error is the first shape's in order.
func predecide(d *train.Data, groups []*group, opt Options) (map[*group]holdoutFit, error) {
	var firsts []*group // one group a shape
	seen := map[features.TaskKey]bool{}
	for _, g := range groups {
		rows := holdoutRows(d, d.Platforms[g.platform], g, opt)
		if k := g.task.Key(); !seen[k] && len(rows) >= 20 && len(g.times) > 0 && g.refNs > 0 {
			seen[k] = true
			firsts = append(firsts, g)
		}
	}
	const stage = "leave-one-shape-out Choose: shapes held out"
	decided := make([]map[*group]holdoutFit, len(firsts))
	errs := make([]error, len(firsts))
	var mu sync.Mutex
	done := 0
	opt.step(0, len(firsts), stage)
	forEach(len(firsts), opt.workers(), func(i int) {
		decided[i] = map[*group]holdoutFit{}
		errs[i] = decideFold(d, groups, firsts[i], opt, decided[i])
		mu.Lock()
		done++
		opt.step(done, len(firsts), stage)
		mu.Unlock()
	})
	out := map[*group]holdoutFit{}
	for i := range firsts {
		if errs[i] != nil {
			return nil, errs[i]
		}
		maps.Copy(out, decided[i])
	}
	return out, nil
}

// prefit fits, Options.Workers at a time, the model of every group that
// serves that group alone (holdoutKey ""), which is what leave-one-shape-out
// on a device's own rows spends its time on. The folds are independent,
// so the models are those of fitting them one after another. A group
// left out (too few rows) or served by a shared model has none. It tells
// Options.Steps of each fit done; an error is the first group's in order.
func prefit(d, test *train.Data, groups []*group, opt Options) (map[*group]holdoutFit, error) {
	type job struct {
		g    *group
		rows []int
	}
	var jobs []job
	for _, g := range groups {
		plat := test.Platforms[g.platform]
		if holdoutKey(d, plat, g, opt) != "" {
			continue
		}
		if rows := holdoutRows(d, plat, g, opt); len(rows) >= 20 && len(g.times) > 0 && g.refNs > 0 {
			jobs = append(jobs, job{g, rows})
		}
	}
	const stage = "leave-one-shape-out Choose: held-out models fitted"
	fits := make([]holdoutFit, len(jobs))
	errs := make([]error, len(jobs))
	var mu sync.Mutex
	done := 0
	opt.step(0, len(jobs), stage)
	forEach(len(jobs), opt.workers(), func(i int) {
		fits[i], errs[i] = fitHoldout(d.Subset(jobs[i].rows), test.Platforms[jobs[i].g.platform], opt)
		mu.Lock()
		done++
		opt.step(done, len(jobs), stage)
		mu.Unlock()
	})
	out := make(map[*group]holdoutFit, len(jobs))
	for i, j := range jobs {
		if errs[i] != nil {
			return nil, errs[i]
		}
		out[j.g] = fits[i]
	}
	return out, nil
}

// forEach calls f(i) for every i in [0, n), workers at a time, and returns
// when all have returned.
func forEach(n, workers int, f func(i int)) {
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(workers, n) {
		wg.Go(func() {
			for i := range next {
				f(i)
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}

// workers is Options.Workers with its default.
func (o *Options) workers() int {
	if o.Workers > 0 {
		return o.Workers
	}
	return max(1, goruntime.GOMAXPROCS(0)/2)
}

// holdoutRows are the rows of d that the model choosing for g trains on:
// the platform's own rows, or every device's with Options.Pool, less g's
// shape (unless the shapes chosen for are Options.Test's).
func holdoutRows(d *train.Data, plat features.Platform, g *group, opt Options) []int {
	var rows []int
	for i, s := range d.Samples() {
		if (opt.Pool || d.Platforms[s.Platform].Slug() == plat.Slug()) && (opt.Test != "" || s.Task.Key() != g.task.Key()) {
			rows = append(rows, i)
		}
	}
	return rows
}

// holdoutKey names the model that chooses for g when other shapes share
// it: with Options.Test, one a platform, or one in all with Options.Pool;
// with Options.Pool alone, one a held-out shape, which every device with
// that shape shares. "" when g's model serves g alone.
func holdoutKey(d *train.Data, plat features.Platform, g *group, opt Options) string {
	switch {
	case opt.Pool && opt.Test != "":
		return "pool"
	case opt.Pool:
		return "pool without " + features.FormatTask(d.TaskNames, g.task)
	case opt.Test != "":
		return plat.Slug()
	}
	return ""
}

// fitHoldout fits the model of sub as 'augur train' would: plat's model,
// or with Options.Pool the fleet model.
func fitHoldout(sub *train.Data, plat features.Platform, opt Options) (holdoutFit, error) {
	var b *features.Bundle
	var mr train.ModelReport
	var err error
	if opt.Pool {
		b, mr, err = train.FitFleetBundle(sub, trainOptions(opt))
	} else {
		b, mr, err = train.FitBundle(sub, trainOptions(opt), plat.Slug(), &plat)
	}
	if err == nil {
		err = opt.attach(b)
	}
	if err != nil {
		return holdoutFit{}, fmt.Errorf("eval: holdout fit: %w", err)
	}
	// What a bundle of 'augur train' carries, for the runtime's table and
	// candidates; the held-out shape is not among them. Test shapes may be
	// training shapes: a table would answer them from their measurements.
	b.Measured = nil
	if opt.Test == "" {
		b.Measured = train.MeasuredBests(sub)
	}
	f := holdoutFit{b: b, mr: mr}
	if mr.Selection != nil {
		f.learner = mr.Selection.Chosen
	}
	return f, nil
}

// chooser returns the runtime's Chooser of f for plat: the fleet model
// scored with plat's features when pooled, the model the bundle's choice
// says for plat in a fold of a fleet (decideFold).
func (f holdoutFit) chooser(plat features.Platform, opt Options) (*runtime.Chooser, error) {
	ro := runtime.Options{}
	switch {
	case opt.Pool:
		ro = runtime.Options{Model: train.FleetModel, Platform: &plat}
	case len(f.b.Models) > 1 || f.fold:
		ro = runtime.Options{Device: plat.Slug()}
	}
	ch, err := runtime.FromBundle(f.b, ro)
	if err != nil {
		return nil, fmt.Errorf("eval: %w", err)
	}
	return ch, nil
}

// summarizeDevices is the holdout's figures for each device's shapes,
// when the shapes are of two devices or more; nil otherwise.
func summarizeDevices(shapes []HoldoutShape) []DeviceHoldout {
	var order []string
	by := map[string][]HoldoutShape{}
	for _, s := range shapes {
		if by[s.Platform] == nil {
			order = append(order, s.Platform)
		}
		by[s.Platform] = append(by[s.Platform], s)
	}
	if len(order) < 2 {
		return nil
	}
	var out []DeviceHoldout
	for _, dev := range order {
		dh := DeviceHoldout{Device: dev, Shapes: len(by[dev])}
		var logs []float64
		for _, s := range by[dev] {
			if s.Status == "unrecorded" {
				continue
			}
			logs = append(logs, math.Log(s.Pct))
			if dh.Worst == 0 || s.Pct < dh.Worst {
				dh.Worst = s.Pct
			}
		}
		dh.Pct, dh.PctInterval = geomean(logs), geomeanInterval(logs)
		dh.TopK = summarizeTopK(by[dev])
		dh.OwnPct, dh.OwnWorst = geomeanWorst(by[dev], func(s HoldoutShape) float64 { return s.OwnPct })
		dh.FleetPct, dh.FleetWorst = geomeanWorst(by[dev], func(s HoldoutShape) float64 { return s.FleetPct })
		out = append(out, dh)
	}
	return out
}

// geomeanWorst is the geometric mean and the least of pct over the
// recorded shapes, when every one has one (> 0); zeros otherwise.
func geomeanWorst(shapes []HoldoutShape, pct func(HoldoutShape) float64) (float64, float64) {
	var logs []float64
	worst := 0.0
	for _, s := range shapes {
		if s.Status == "unrecorded" {
			continue
		}
		v := pct(s)
		if v <= 0 {
			return 0, 0
		}
		logs = append(logs, math.Log(v))
		if worst == 0 || v < worst {
			worst = v
		}
	}
	if len(logs) == 0 {
		return 0, 0
	}
	return geomean(logs), worst
}

// noShapes says why leave-one-shape-out had no shape to choose for.
func noShapes(groups []*group, opt Options) error {
	if opt.Test != "" {
		return fmt.Errorf("%w: no shape of %s has >= %.0f%% of its space recorded and a model with 20 rows of its device to choose it (see --coverage)",
			ErrNoHoldout, opt.Test, 100*opt.Coverage)
	}
	shapes := map[int]int{}
	for _, g := range groups {
		shapes[g.platform]++
	}
	if most := slices.Max(append(slices.Collect(maps.Values(shapes)), 0)); most < 2 {
		return fmt.Errorf("%w: --holdout shapes needs a device with two or more shapes; each of the %d devices here has one (hold out a device instead: --holdout device=NAME)", ErrNoHoldout, len(shapes))
	}
	return errSomeShapes
}

// errSomeShapes is noShapes's answer when some device has two or more
// shapes: the fault, if any, is in their rows.
var errSomeShapes = fmt.Errorf("%w: no shape could be left out: every device's other shapes have fewer than 20 rows", ErrNoHoldout)

func geomean(logs []float64) float64 {
	if len(logs) == 0 {
		return 0
	}
	s := 0.0
	for _, l := range logs {
		s += l
	}
	return math.Exp(s / float64(len(logs)))
}

// geomeanInterval is a 95% bootstrap interval of geomean(logs) over the
// shapes: the 2.5th and 97.5th percentiles of the geometric means of 2,000
// resamples of logs with replacement (seeded, so that a report is
// reproducible). With ten shapes a kernel it is several points wide: two
// settings whose means lie inside each other's interval have not been told
// apart. Zeros for fewer than two shapes.
func geomeanInterval(logs []float64) [2]float64 {
	return bootstrap95(len(logs), 1, func(draw func() int) float64 {
		s := 0.0
		for range logs {
			s += logs[draw()]
		}
		return math.Exp(s / float64(len(logs)))
	})
}

// bootstrap95 returns the 2.5th and 97.5th percentiles of stat over 2,000
// resamples with replacement of n items, each resample's items drawn by
// stat's draw (seeded by seed and n); zeros for n < 2.
func bootstrap95(n int, seed uint64, stat func(draw func() int) float64) [2]float64 {
	if n < 2 {
		return [2]float64{}
	}
	const draws = 2000
	rng := rand.New(rand.NewPCG(seed, uint64(n)))
	draw := func() int { return rng.IntN(n) }
	vals := make([]float64, draws)
	for d := range vals {
		vals[d] = stat(draw)
	}
	slices.Sort(vals)
	return [2]float64{vals[draws*25/1000], vals[draws*975/1000-1]}
}

// trainOptions are the options of every model eval trains, as 'augur
// train' would with opt's learner: its selection has no time bound, so
// which model eval trains, and so its figures, do not depend on the
// machine's load.
func trainOptions(opt Options) train.Options {
	return train.Options{Kernel: opt.Kernel, Model: opt.Learner, GBRT: opt.GBRT, Seed: opt.Seed, Context: opt.Context,
		Select: train.SelectOptions{NoConsensus: opt.NoRule, NoFixed: opt.NoFixed, Repeats: opt.SelectRepeats}}
}
