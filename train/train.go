package train

import (
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
	// Model is the learner: "gbrt" (gradient-boosted trees, configured
	// by GBRT) or "rf" (a random forest, configured by Forest); "" means
	// "gbrt".
	Model string
	// Folds is the number of cross-validation folds; 0 means 5 and 1
	// means no cross-validation (the models then carry no Stats).
	Folds int
	// Seed draws the cross-validation folds. The learners have seeds of
	// their own, in GBRT and Forest.
	Seed   uint64
	GBRT   GBRTOptions
	Forest ForestOptions
	// Load says how rows that are not ok are used: left out (the
	// default) or kept with a stand-in target.
	Load LoadOptions
}

// Report summarizes a Train run.
type Report struct {
	Kernel        string
	KernelVersion string
	Rows          int
	// Shapes is the number of distinct tasks over all platforms.
	Shapes    int
	Platforms []string
	Models    []ModelReport
}

// ModelReport is one model's part of a Report.
type ModelReport struct {
	Name       string
	Rows       int
	Trees      int
	FitSeconds float64
	// CV is the zero value when cross-validation was off.
	CV CV
}

// String lays the report out as a table, one line per model.
func (r *Report) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "kernel %s (version %s): %d rows, %d shapes, %d platforms\n",
		r.Kernel, r.KernelVersion, r.Rows, r.Shapes, len(r.Platforms))
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "model\trows\ttrees\tfit_s\tcv_folds\tcv_mre_time\tcv_rmse_log_speedup\tcv_spearman\tcv_shapes\t")
	for _, m := range r.Models {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.2f\t%d\t%.3f\t%.3f\t%.3f\t%d\t\n", m.Name, m.Rows, m.Trees, m.FitSeconds,
			m.CV.Folds, m.CV.MRETime, m.CV.RMSELogSpeedup, m.CV.Spearman, m.CV.Shapes)
	}
	tw.Flush()
	return b.String()
}

// Train loads the datasets of opt.Kernel under dir, fits one model per
// platform and, when there are two or more platforms, a fleet model on all
// rows, cross-validates each, and returns them in a bundle with a report.
func Train(dir string, opt Options) (*features.Bundle, *Report, error) {
	if opt.Kernel == "" {
		return nil, nil, fmt.Errorf("train: Options.Kernel is empty")
	}
	folds := opt.Folds
	if folds == 0 {
		folds = 5
	}
	if folds < 1 {
		return nil, nil, fmt.Errorf("train: Options.Folds must be >= 0, got %d", opt.Folds)
	}
	fit, err := newFitter(opt)
	if err != nil {
		return nil, nil, err
	}
	d, err := LoadWith(dir, opt.Kernel, opt.Load)
	if err != nil {
		return nil, nil, err
	}
	b := &features.Bundle{
		Format: features.BundleFormat, Kernel: d.Kernel, KernelVersion: d.KernelVersion,
		AugurVersion: features.Version, TaskNames: d.TaskNames, Params: d.Params,
		Constraints: d.Constraints, Features: d.Features, Reference: d.Reference,
	}
	rep := &Report{Kernel: d.Kernel, KernelVersion: d.KernelVersion, Rows: d.Len()}
	tasks := map[features.TaskKey]bool{}
	for _, s := range d.Samples {
		tasks[s.Task.Key()] = true
	}
	rep.Shapes = len(tasks)

	type job struct {
		name     string
		platform *features.Platform
		data     *Data
	}
	var jobs []job
	for pi := range d.Platforms {
		var rows []int
		for i, s := range d.Samples {
			if s.Platform == pi {
				rows = append(rows, i)
			}
		}
		p := d.Platforms[pi]
		rep.Platforms = append(rep.Platforms, p.Slug())
		jobs = append(jobs, job{p.Slug(), &p, d.Subset(rows)})
	}
	if len(d.Platforms) >= 2 {
		jobs = append(jobs, job{FleetModel, nil, d})
	}
	for _, j := range jobs {
		m, mr, err := fit.model(j.data, folds, opt.Seed)
		if err != nil {
			return nil, nil, fmt.Errorf("train: model %s: %w", j.name, err)
		}
		m.Name, m.Platform, mr.Name = j.name, j.platform, j.name
		b.Models = append(b.Models, m)
		rep.Models = append(rep.Models, mr)
	}
	return b, rep, nil
}

// fitter is the learner Train uses with its resolved options.
type fitter struct {
	learner Learner
	kind    string
	options map[string]float64
}

// newFitter checks opt's learner options and returns the fitter for them.
func newFitter(opt Options) (fitter, error) {
	var f fitter
	switch opt.Model {
	case "", "gbrt":
		o, err := opt.GBRT.withDefaults()
		if err != nil {
			return f, err
		}
		f = fitter{opt.GBRT, "gbrt", o.options()}
	case "rf":
		o, err := opt.Forest.withDefaults()
		if err != nil {
			return f, err
		}
		f = fitter{opt.Forest, "rf", o.options()}
	default:
		return f, fmt.Errorf("train: Options.Model must be \"gbrt\", \"rf\" or empty, got %q", opt.Model)
	}
	zeta, err := opt.Load.zeta()
	if err != nil {
		return f, err
	}
	// The stand-in target of invalid rows shapes the model as much as the
	// learner's settings do.
	if opt.Load.Invalid == InvalidZeta {
		f.options["zeta"] = zeta
	}
	return f, nil
}

// model cross-validates (unless folds is 1) and fits one model on all of
// d.
func (f fitter) model(d *Data, folds int, seed uint64) (features.Model, ModelReport, error) {
	var cv CV
	if folds > 1 {
		var err error
		if cv, err = CrossValidate(d, folds, f.learner, seed); err != nil {
			return features.Model{}, ModelReport{}, err
		}
	}
	start := time.Now()
	r, err := f.learner.Fit(d.X, len(d.Features), d.Y)
	if err != nil {
		return features.Model{}, ModelReport{}, err
	}
	fit := time.Since(start).Seconds()
	var text strings.Builder
	if err := r.WriteLightGBM(&text, d.Features); err != nil {
		return features.Model{}, ModelReport{}, err
	}
	m := features.Model{Kind: f.kind, Target: "log_speedup", LightGBM: text.String(),
		TrainRows: d.Len(), FitSeconds: fit, Options: maps.Clone(f.options), Candidates: Candidates(d, 0)}
	if folds > 1 {
		m.Stats = cv.Stats()
	}
	return m, ModelReport{Rows: d.Len(), Trees: r.NumTrees(), FitSeconds: fit, CV: cv}, nil
}
