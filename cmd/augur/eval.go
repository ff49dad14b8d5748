package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/eval"
	"github.com/augur-tuning/augur/train"
)

func runEval(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var (
		data, holdout, plots string
		asJSON               bool
		opt                  eval.Options
		t3                   table3Flags
	)
	fs := flags("eval", "--data DIR --kernel NAME|--spec FILE [--json] [--plots DIR] [--holdout shapes [--pool|--pool-figures]|device=NAME] [--table3] [--pick-curve] [--next-shapes N --from SHAPES]", stderr)
	fs.StringVar(&data, "data", "", "dataset directory (collected or imported)")
	var kr kernelRef
	addKernelFlags(fs, &kr, "kernel whose data to evaluate")
	var smaller bool
	fs.BoolVar(&asJSON, "json", false, "print one JSON object (strategies, two_stage, holdout give pct_of_best)")
	fs.StringVar(&plots, "plots", "", "write PNG plots into this directory")
	fs.StringVar(&holdout, "holdout", "", "'shapes': also Choose on each shape from a model trained on the others; 'device=NAME': Choose for device NAME's shapes from a fleet model trained on the other devices")
	fs.BoolVar(&opt.Pool, "pool", false, "with --holdout shapes: train each held-out shape's model on every device's rows without that shape (the fleet model, scored with the device's platform features) instead of the device's own rows")
	fs.BoolVar(&opt.PoolFigures, "pool-figures", false, fmt.Sprintf("with --holdout shapes on two devices or more: also fit, on every fold, the fleet model and train's scoring of both models for devices of more than %d other shapes, which keep their own model: their shapes' own and fleet picks (--json); the picks are the same", train.PoolMaxShapes))
	fs.IntVar(&opt.Seeds, "seeds", 100, "seeds per strategy and budget")
	fs.IntVar(&opt.TwoStageSeeds, "two-stage-seeds", 20, "seeds per shape and threshold of the two-stage tuner")
	fs.IntVar(&opt.Workers, "workers", 0, "with --holdout shapes: held-out shapes' models fitted at once, each fit's selection using two cores (0: one for two cores); the picks are the same, memory grows with it")
	fs.Float64Var(&opt.SampleFraction, "two-stage-sample", 0.02, "share of the space the two-stage tuner measures first")
	deprecatedAlias(fs, "sample", "two-stage-sample", stderr) // collect's --sample is a sampling plan
	fs.Uint64Var(&opt.Seed, "seed", 1, "seed")
	fs.Float64Var(&opt.Coverage, "coverage", 0.9, "share of a shape's valid space that must be recorded for strategies and the two-stage tuner")
	fs.IntVar(&opt.SelectRepeats, "select-repeats", 1, "deal the training shapes into each model's learner selection this many times, as 'augur train --select-repeats' does")
	fs.BoolVar(&opt.NoRule, "no-rule", false, "train every model without the nearest-shape rule, to compare with the default")
	fs.BoolVar(&opt.NoFixed, "no-fixed", false, "train every model without a fixed configuration for new shapes, to compare with the default")
	fs.StringVar(&opt.Learner, "learner", "auto", "learner of the models eval trains (holdout, fleet, two-stage, learning curve): auto (selected per model, as 'augur train' does), gbrt or rf")
	fs.BoolVar(&smaller, "smaller-groups", false, "train the models as 'augur train --smaller-groups' does")
	fs.BoolVar(&opt.FleetPrior, "fleet-prior", false, "also replay the fleet-prior tuner on each device's fully recorded shapes, with a fleet model trained on the other devices")
	fs.StringVar(&opt.HoldoutOf, "holdout-of", "", "with --holdout shapes: choose only for this device's shapes (slug or name), every fold trained as without it")
	fs.BoolVar(&opt.HoldoutOnly, "holdout-only", false, "with --holdout: run only the holdout (and the noise ceiling that judges it), not the learning curve, strategies and two-stage tuner before it")
	holdoutShapes := fs.String("holdout-shapes", "", "with --holdout shapes: choose only for these shapes, separated by ';' (name=value,... as --shapes takes them), every fold trained as without them: a run shared among machines")
	fs.StringVar(&opt.Test, "test", "", "with --holdout shapes: train on all of --data and choose for the fully recorded shapes of this dataset directory")
	fs.IntVar(&opt.GBRT.Trees, "trees", 0, "trees of the holdout and learning-curve models (0: train's default)")
	fs.IntVar(&opt.GBRT.MaxDepth, "depth", 0, "their depth (0: train's default)")
	fs.Float64Var(&opt.GBRT.LearningRate, "lr", 0, "their learning rate (0: train's default)")
	fs.IntVar(&opt.GBRT.MinLeaf, "min-leaf", 0, "their minimum leaf size (0: train's default)")
	t3.register(fs)
	derived := fs.Bool("derived", true, "give the models the kernel's derived features (launch geometry, loads per item...); false measures what they add")
	invalid := fs.String("invalid", "ignore", "how holdout models treat failed configurations: ignore or zeta")
	maxShares := fs.String("two-stage-max", "", "comma-separated shares of the space in % (e.g. 1,3,11): also replay the two-stage tuner with each as its measurement budget ('augur tune --max'), spent whole, beside random search's best of as many")
	pickCurve := fs.Bool("pick-curve", false, "instead: held-out picks of models trained on fewer shapes and on fewer configurations a shape, to tell which to collect more of")
	var next nextShapesFlags
	fs.IntVar(&next.n, "next-shapes", 0, "instead: suggest this many shapes of --from to measure next on each device, each the farthest from the shapes it measured and those suggested before it")
	fs.StringVar(&next.from, "from", "", "with --next-shapes: the shapes to choose from, separated by ';' (name=value,... as --shapes takes them), or a file of them, one a line ('#' comments), or '-' for standard input")
	fs.StringVar(&next.device, "device", "", "with --next-shapes: only this device (slug or name); a device the data lacks gets a first set")
	fs.Float64Var(&opt.Zeta, "zeta", 0, "stand-in log-speedup of failed configurations with --invalid zeta (0: ln 0.1)")
	if err := parse(fs, args, stdout); err != nil {
		return err
	}
	if err := kr.check("eval"); err != nil {
		return err
	}
	if err := required(fs, "data"); err != nil {
		return err
	}
	name, kernel, err := kr.dataName("eval")
	if err != nil {
		return err
	}
	if err := kr.needSpec("eval", data); err != nil {
		return err
	}
	opt.Kernel = name
	opt.Tasks = taskSpaceOf
	warnLeftovers(stderr, data)
	wantNext := next.n != 0 || next.from != "" || next.device != ""
	// The reports that replace the default one exclude each other and the
	// holdouts; each check comes before the work, as --plots' directory.
	switch {
	case wantNext && next.n == 0:
		return usagef("eval: --from and --device need --next-shapes N")
	case wantNext && (*pickCurve || t3.on || holdout != ""):
		return usagef("eval: --next-shapes is a report of its own: not with --pick-curve, --table3 or --holdout")
	case *pickCurve && (t3.on || holdout != ""):
		return usagef("eval: --pick-curve is a report of its own: not with --table3 or --holdout")
	case t3.on && holdout != "":
		return usagef("eval: --table3 is a report of its own: not with --holdout")
	case t3.classifier != "" && !t3.on && opt.Kernel != "stencil":
		return usagef("eval: --classifier goes with --table3")
	case t3.on && opt.Kernel != "stencil" && opt.Kernel != "conv2d":
		return usagef("eval: --table3 replays the grouped heuristics of stencil and conv2d only, not %s", opt.Kernel)
	}
	if plots != "" {
		if st, err := os.Stat(plots); err == nil && !st.IsDir() {
			return usagef("eval: --plots %s is a file; give a directory (made if missing)", plots)
		}
	}
	// Table 3 is stencil's default report, unless a holdout, the pick
	// curve or the next shapes are asked for.
	if t3.on || opt.Kernel == "stencil" && holdout == "" && !wantNext && !*pickCurve {
		return runTable3(data, opt.Kernel, t3, opt.Seed, asJSON, stdout, progressTo(fs, stderr))
	}
	if opt.Invalid, err = train.ParseInvalid(*invalid); err != nil {
		return fmt.Errorf("eval: --invalid must be ignore or zeta, got %q", *invalid)
	}
	if opt.SelectRepeats < 1 {
		return fmt.Errorf("eval: --select-repeats must be >= 1, got %d", opt.SelectRepeats)
	}
	if err := evalHoldout(&opt, holdout); err != nil {
		return err
	}
	if opt.MaxShares, err = parseShares(*maxShares); err != nil {
		return err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	// The options read 0 as their default; on the command line a 0 is a
	// mistake, not a request for the default.
	if opt.Seeds < 1 || opt.TwoStageSeeds < 1 {
		return usagef("eval: --seeds and --two-stage-seeds must be >= 1, got %d and %d", opt.Seeds, opt.TwoStageSeeds)
	}
	if set["trees"] || set["depth"] || set["lr"] || set["min-leaf"] {
		if set["learner"] && opt.Learner != "gbrt" {
			return fmt.Errorf("eval: --trees, --depth, --lr and --min-leaf need --learner gbrt")
		}
		opt.Learner = "gbrt"
	}
	switch opt.Learner {
	case "auto", "gbrt", "rf":
	default:
		return usagef("eval: --learner must be auto, gbrt or rf, got %q", opt.Learner)
	}
	if opt.HoldoutOnly && !opt.Holdout && opt.HoldoutDevice == "" {
		return usagef("eval: --holdout-only needs --holdout")
	}
	if opt.HoldoutOf != "" && !opt.Holdout {
		return usagef("eval: --holdout-of needs --holdout shapes")
	}
	if *holdoutShapes != "" {
		if !opt.Holdout {
			return usagef("eval: --holdout-shapes needs --holdout shapes")
		}
		for _, sh := range strings.Split(*holdoutShapes, ";") {
			if sh = strings.TrimSpace(sh); sh != "" {
				opt.HoldoutShapes = append(opt.HoldoutShapes, sh)
			}
		}
	}
	if opt.Pool && !opt.Holdout {
		return usagef("eval: --pool needs --holdout shapes")
	}
	if opt.PoolFigures && (!opt.Holdout || opt.Pool || opt.Test != "") {
		return usagef("eval: --pool-figures needs --holdout shapes without --pool or --test")
	}
	if opt.Test != "" && !opt.Holdout && opt.HoldoutDevice == "" {
		return fmt.Errorf("eval: --test needs --holdout shapes or device=NAME")
	}
	if err := evalFeatures(&opt, kernel, *derived, smaller); err != nil {
		return err
	}
	if wantNext {
		return runNextShapes(data, opt, kr, next, asJSON, os.Stdin, stdout, progressTo(fs, stderr))
	}
	progress := newReporter(progressTo(fs, stderr), "eval")
	defer progress.Close()
	opt.Progress, opt.Steps = progress, progress.Step
	if *pickCurve {
		return runPickCurve(data, opt, progress, asJSON, stdout)
	}
	rep, err := eval.Evaluate(data, opt)
	progress.Close()
	if err != nil {
		return err // eval's errors carry the package prefix
	}
	warnOtherVersions(stderr, rep.Kernel, rep.OtherVersions)
	if plots != "" {
		if err := writeEvalPlots(plots, rep); err != nil {
			return fmt.Errorf("eval: %w", err)
		}
		fmt.Fprintf(progressTo(fs, stderr), "eval: wrote the plots into %s\n", plots)
	}
	if asJSON {
		return writeIndentedJSON(stdout, rep)
	}
	return writeEvalText(stdout, rep)
}

// evalHoldout applies --holdout: "shapes" or "device=NAME".
func evalHoldout(opt *eval.Options, holdout string) error {
	switch name, isDevice := strings.CutPrefix(holdout, "device="); {
	case holdout == "":
	case holdout == "shapes":
		opt.Holdout = true
	case isDevice && name != "":
		opt.HoldoutDevice = name
	default:
		return usagef("eval: --holdout must be \"shapes\" or \"device=NAME\", got %q", holdout)
	}
	return nil
}

// evalFeatures applies --derived and --smaller-groups: the models' derived
// features (the kernel family's or the spec's) and work-group parameters.
func evalFeatures(opt *eval.Options, kernel *datasets.Kernel, derived, smaller bool) error {
	var err error
	opt.Derived = datasets.Deriver(opt.Kernel)
	if kernel != nil && kernel.FromSpec() {
		opt.Derived, opt.Spec = kernel.Derived, kernel
	}
	if !derived {
		opt.Derived = nil
		if opt.Spec != nil {
			// The bundles fitted must not claim the spec's features.
			spec := *opt.Spec
			spec.Derived = nil
			opt.Spec = &spec
		}
	}
	if smaller && kernel != nil && kernel.FromSpec() {
		if opt.GroupParams = kernel.GroupParams; len(opt.GroupParams) == 0 {
			return fmt.Errorf("eval: --smaller-groups: the spec names no work-group parameters (Augur.GroupParams)")
		}
	} else if smaller {
		if opt.GroupParams, err = datasets.GroupParams(opt.Kernel); err != nil {
			return fmt.Errorf("eval: --smaller-groups: %w", err)
		}
	}
	return nil
}

// parseShares reads --two-stage-max: shares of the space in %, each in
// (0, 100].
func parseShares(text string) ([]float64, error) {
	var out []float64
	for _, f := range strings.Split(text, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		v, err := strconv.ParseFloat(f, 64)
		if err != nil || !(v > 0 && v <= 100) {
			return nil, fmt.Errorf("eval: --two-stage-max: %q is not a share of the space in %% (in (0, 100])", f)
		}
		out = append(out, v)
	}
	return out, nil
}
