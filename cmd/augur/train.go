package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/eval"
	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/train"
)

// multiFlag collects a repeatable string flag.
type multiFlag []string

func (m *multiFlag) String() string     { return fmt.Sprint(*m) }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

// trainSynopsis is the usage line of 'augur train'.
const trainSynopsis = "--data DIR --kernel NAME|--spec FILE --out FILE [--learner auto|gbrt|rf] [--derive 'name = expr'...] [--folds K] [--seed S] [--pool-figures] " +
	"[--target PARAM [--learner forest|golearn|auto] [--regressor auto|gbrt|rf] [--fold-by NAME,...]] " +
	"[--invalid ignore|zeta] [--zeta Z] [--trees N] [--depth D] [--leaves L] [--min-leaf M] [--lr R] " +
	"[--subsample F] [--colsample F] [--l2 L] [--early-stop N]"

func runTrain(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var (
		data, out, invalid string
		opt                train.Options
		g                  train.GBRTOptions
		pool               train.PoolOptions
	)
	fs := flags("train", trainSynopsis, stderr)
	fs.StringVar(&data, "data", "", "dataset directory written by 'augur collect'")
	var kr kernelRef
	addKernelFlags(fs, &kr, "kernel family whose data to train on")
	fs.StringVar(&out, "out", "", "model bundle to write (refuses to overwrite unless --force)")
	fs.StringVar(&opt.Model, "learner", "auto", "learner: auto (the setting whose picks on held-out shapes are best, on held-out configurations with one shape), gbrt (gradient-boosted trees) or rf (random forest). The report names auto's settings: gbrt-dD-tT-lrR-minM (boosted trees of depth D, T trees, learning rate R, leaves of at least M rows), rf-dD-tT-minM (a random forest), top-... and topa-... (boosted trees whose loss weights the fast configurations, topa anchored at each shape's fastest), rankN-mixX-... (LambdaRank over each shape's configurations, NDCG at N), bagN-... (N bagged boosted models, averaged), A+B (A and B averaged)")
	var derive multiFlag
	fs.Var(&derive, "derive", "a derived feature 'name = expression' over the task features and parameters, for kernels augur has no definitions for (repeatable)")
	selectBudget := fs.Duration("select-budget", 0, "with --learner auto: wall time the selection may spend, skipping the candidates it has not reached; makes the model chosen depend on the machine's speed and load (0: no bound, every candidate scored, the same bundle on any machine)")
	selectRepeats := fs.Int("select-repeats", 1, "with --learner auto: deal the shapes into the selection's folds this many times (the first by size, the others at random) and choose by each learner's mean over the deals, printing its spread; costs the selection's fits as many times (>= 1)")
	noRule := fs.Bool("no-rule", false, "with --learner auto: no model carries the nearest-shape rule, whatever its selection scored (train.SelectOptions.NoConsensus)")
	noFixed := fs.Bool("no-fixed", false, "with --learner auto: no model serves one fixed configuration at new shapes, whatever its selection scored (train.SelectOptions.NoFixed)")
	maxCost := fs.Int("max-cost", 0, fmt.Sprintf("with --learner auto: the most a chosen setting may cost in trees times depth, which bounds Choose's latency (0: %d, see README; -1: no bound)", train.DefaultMaxCost))
	fs.BoolVar(&pool.Figures, "pool-figures", false, fmt.Sprintf("with two devices or more: also score the own and the fleet model's held-out picks on devices of more than %d shapes, which keep their own model whatever the figures (costs a refit of both models a fold of the shapes)", train.PoolMaxShapes))
	fs.IntVar(&opt.Folds, "folds", 5, "cross-validation folds; 1 skips cross-validation; unset, a model of fewer than 5 configurations skips it too")
	fs.Uint64Var(&opt.Seed, "seed", 1, "seed of folds and learner")
	fs.StringVar(&invalid, "invalid", "ignore", "configurations that failed or were pruned: ignore (leave out; the default, see README) or zeta (train on them with target --zeta)")
	fs.Float64Var(&opt.Load.Zeta, "zeta", 0, "target log-speedup of invalid configurations under --invalid zeta, < 0; 0 means ln(0.1) (Bergstra et al. tried ln(0.01) to ln(0.99))")
	fs.IntVar(&g.Trees, "trees", 0, "number of trees; 0: 100")
	fs.IntVar(&g.MaxDepth, "depth", 0, "tree depth; 0: 4 for gbrt (16 with --leaves), 12 for rf")
	fs.IntVar(&g.MaxLeaves, "leaves", 0, "gbrt: grow trees leaf-wise to this many leaves; 0: depth-wise")
	fs.IntVar(&g.MinLeaf, "min-leaf", 0, "least training rows in a leaf; 0: 10 for gbrt, 5 for rf")
	fs.Float64Var(&g.LearningRate, "lr", 0, "gbrt: learning rate in (0, 1]; 0: 0.1")
	fs.Float64Var(&g.Subsample, "subsample", 0, "fraction of rows each tree sees (gbrt: without, rf: with replacement); 0: 1")
	fs.Float64Var(&g.ColSample, "colsample", 0, "fraction of features (gbrt: per tree; rf: per split); 0: 1 for gbrt, 1/3 for rf")
	fs.Float64Var(&g.L2, "l2", 0, "gbrt: L2 penalty on leaf values; 0: none")
	fs.IntVar(&g.EarlyStop, "early-stop", 0, "gbrt: stop after this many trees without gain on a 20% validation split; 0: off")
	target := fs.String("target", "", "also train a classifier of this categorical parameter (e.g. the data-loading technique) that the runtime uses to fix it before its search; --learner then names the classifier's learner: auto (the better of the two forests on held-out folds; the default), forest (augur's) or golearn")
	regressor := fs.String("regressor", "auto", "with --target: the learner of the surrogate models, as --learner without --target")
	foldBy := fs.String("fold-by", "", "with --target: comma-separated task features whose values make the classifier's held-out folds (those that name a kernel, e.g. a stencil's shape features, to leave one kernel out); empty: leave one shape out")
	smaller := fs.Bool("smaller-groups", false, "let the runtime pick configurations that differ from measured ones only in smaller work groups (the kernel's work-group parameters): they need no more of the device; helps where the training shapes are densely measured, costs where they are sparsely sampled (README)")
	force := fs.Bool("force", false, "overwrite --out if it exists")
	wisdom := fs.String("wisdom", "", "comma-separated wisdom files ('augur tune --top') whose records join the training rows as measured ones (log-speedup over the shape's reference time: a wisdom record of the reference, else the data's; records with neither are skipped and counted)")
	asJSON := fs.Bool("json", false, "print the report as one JSON object (models with their cv and selection, classifier, unseen, out)")
	if err := parse(fs, args, stdout); err != nil {
		return err
	}
	if err := kr.check("train"); err != nil {
		return err
	}
	if err := required(fs, "data", "out"); err != nil {
		return err
	}
	name, kernel, err := kr.dataName("train")
	if err != nil {
		return err
	}
	if err := kr.needSpec("train", data); err != nil {
		return err
	}
	opt.Kernel = name
	warnLeftovers(stderr, data)
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if err := classifierFlags(&opt, set, *target, *foldBy, *regressor); err != nil {
		return usageError{err}
	}
	if !slices.Contains([]string{"auto", "gbrt", "rf"}, opt.Model) {
		which := "--learner"
		if *target != "" {
			which = "--regressor"
		}
		return usagef("train: %s must be auto, gbrt or rf, got %q", which, opt.Model)
	}
	if *maxCost < -1 {
		return usagef("train: --max-cost must be -1 (no bound), 0 (the default) or a positive cost, got %d", *maxCost)
	}
	if err := learnerFlags(&opt, g, set, invalid, *selectBudget, *maxCost); err != nil {
		return usageError{err}
	}
	if err := selectRepeatsFlag(&opt.Select, *selectRepeats, set, opt.Model); err != nil {
		return usageError{err}
	}
	if opt.Folds < 1 {
		// Options.Folds 0 means the default of 5, not what --folds 0 says.
		return usagef("train: --folds must be >= 1 (1 skips cross-validation), got %d", opt.Folds)
	}
	if !set["folds"] {
		opt.Folds = 0 // the default: none for data of fewer than 5 configurations
	}
	opt.Select.NoConsensus, opt.Select.NoFixed = *noRule, *noFixed
	if err := loadFlags(&opt, kernel, data, derive, *smaller); err != nil {
		return err
	}
	// Data recorded before collect measured devices, and imported data,
	// take the measured platform features from the specifications of
	// the devices the table knows.
	opt.Load.Specs = datasets.Devices().Devices
	if err := checkTrainOut(out, filepath.Join(data, opt.Kernel), *force); err != nil {
		return err
	}
	if err := opt.Check(); err != nil {
		return err // already "train: ..."
	}
	progress := newReporter(progressTo(fs, stderr), "train")
	defer progress.Close()
	progress.Step(0, 0, "loading "+data)
	opt.Progress = progress.Step
	opt.Load.Tasks = taskSpaceOf
	d, err := train.LoadWith(data, opt.Kernel, opt.Load)
	if err != nil {
		return err
	}
	warnOtherVersions(stderr, d.Kernel, d.OtherVersions)
	if t := opt.Classify.Target; t != "" && !slices.ContainsFunc(d.Params, func(p features.Param) bool { return p.Name == t }) {
		var names []string
		for _, p := range d.Params {
			names = append(names, p.Name)
		}
		return usagef("train: --target %q is no parameter of %s (its parameters: %s)", t, d.Kernel, strings.Join(names, ", "))
	}
	if err := addWisdom(d, *wisdom, stderr); err != nil {
		return err
	}
	setMemoryLimit(d)
	b, rep, unseen, err := eval.Bundle(d, opt, kernel, pool)
	if err != nil {
		return err
	}
	if err := features.WriteBundleFile(out, b); err != nil {
		return fmt.Errorf("train: %w", err)
	}
	progress.Close()
	if *asJSON {
		return writeTrainJSON(stdout, rep, b, unseen, out)
	}
	fmt.Fprintln(stdout, rep.String()+poolText(b)+unseenText(unseen)+siblingsText(b))
	fmt.Fprintf(stdout, "wrote %s\n", out)
	return nil
}

// classifierFlags applies --target, --fold-by and --regressor (set names
// the flags given): with a target, --learner names the classifier's
// learner and --regressor the surrogate's.
func classifierFlags(opt *train.Options, set map[string]bool, target, foldBy, regressor string) error {
	if target == "" {
		for _, name := range []string{"regressor", "fold-by"} {
			if set[name] {
				return fmt.Errorf("train: --%s needs --target", name)
			}
		}
	} else {
		opt.Classify = train.ClassifyOptions{Target: target, Learner: train.DefaultClassLearner}
		if set["learner"] {
			switch opt.Model {
			case train.LearnerForest, train.LearnerGolearn, train.LearnerAuto:
				opt.Classify.Learner = opt.Model
			default:
				return fmt.Errorf("train: with --target, --learner names the classifier's learner: forest, golearn or auto, got %q (the surrogate's is --regressor)", opt.Model)
			}
		}
		if foldBy != "" {
			opt.Classify.FoldBy = strings.Split(foldBy, ",")
		}
		opt.Model = regressor
		set["learner"] = set["regressor"]
	}
	return nil
}

// selectRepeatsFlag applies --select-repeats n to sel: the learner
// selection's deals of the shapes, which --learner gbrt or rf has none of.
func selectRepeatsFlag(sel *train.SelectOptions, n int, set map[string]bool, learner string) error {
	if n < 1 {
		return fmt.Errorf("train: --select-repeats must be >= 1, got %d", n)
	}
	if set["select-repeats"] && learner != "auto" {
		return fmt.Errorf("train: --select-repeats needs --learner auto")
	}
	sel.Repeats = n
	return nil
}

// learnerFlags applies --invalid, --zeta and the learner settings.
func learnerFlags(opt *train.Options, g train.GBRTOptions, set map[string]bool, invalid string, selectBudget time.Duration, maxCost int) error {
	var err error
	if opt.Load.Invalid, err = train.ParseInvalid(invalid); err != nil {
		return fmt.Errorf("train: --invalid must be ignore or zeta, got %q", invalid)
	}
	if opt.Load.Invalid == train.InvalidIgnore && set["zeta"] {
		return fmt.Errorf("train: --zeta needs --invalid zeta")
	}
	g.Seed = opt.Seed
	settings := []string{"trees", "depth", "leaves", "min-leaf", "lr", "subsample", "colsample", "l2", "early-stop"}
	if opt.Model == "auto" {
		// A learner setting without --learner means gradient-boosted trees.
		for _, name := range settings {
			if set[name] {
				if set["learner"] {
					return fmt.Errorf("train: --%s needs --learner gbrt or rf", name)
				}
				opt.Model = "gbrt"
			}
		}
	}
	switch opt.Model {
	case "auto":
		opt.Select.Budget, opt.Select.MaxCost = selectBudget, maxCost
	case "gbrt":
		opt.GBRT = g
	case "rf":
		for _, name := range []string{"leaves", "lr", "l2", "early-stop"} {
			if set[name] {
				return fmt.Errorf("train: --%s applies to --learner gbrt only", name)
			}
		}
		opt.Forest = train.ForestOptions{Trees: g.Trees, MaxDepth: g.MaxDepth, MinLeaf: g.MinLeaf,
			Subsample: g.Subsample, ColSample: g.ColSample, Seed: g.Seed}
	}
	return nil
}

// loadFlags applies --smaller-groups and --derive (or the kernel's own
// derived features) to opt.Load.
func loadFlags(opt *train.Options, kernel *datasets.Kernel, data string, derive []string, smaller bool) error {
	var err error
	if smaller {
		if kernel != nil && kernel.FromSpec() {
			if opt.Load.GroupParams = kernel.GroupParams; len(opt.Load.GroupParams) == 0 {
				return fmt.Errorf("train: --smaller-groups: the spec names no work-group parameters (Augur.GroupParams)")
			}
		} else if opt.Load.GroupParams, err = datasets.GroupParams(opt.Kernel); err != nil {
			return fmt.Errorf("train: --smaller-groups: %w", err)
		}
	}
	switch {
	case kernel != nil && kernel.FromSpec():
		opt.Load.KernelVersion = kernel.Version()
	case kernel != nil:
		opt.Load.TaskNames = kernel.TaskNames
	}
	if k := kernel; k != nil && k.Derived != nil {
		if len(derive) > 0 {
			return fmt.Errorf("train: kernel %s has its own derived features; --derive is for imported kernels", opt.Kernel)
		}
		opt.Load.Derived = k.Derived
	} else if len(derive) > 0 {
		if opt.Load.Derived, err = train.ExprDeriver(data, opt.Kernel, derive); err != nil {
			return fmt.Errorf("train: --derive: %w", err)
		}
	}
	return nil
}

// checkTrainOut refuses a bundle path inside the dataset directory dir, or
// one that exists without force.
func checkTrainOut(out, dir string, force bool) error {
	if inside(out, dir) {
		return fmt.Errorf("train: --out %s lies inside the dataset directory %s; write the bundle elsewhere", out, dir)
	}
	if err := checkWritable(out, force); err != nil {
		return fmt.Errorf("train: %w", err)
	}
	return nil
}

// inside reports whether path lies in dir (both made absolute).
func inside(path, dir string) bool {
	p, err1 := filepath.Abs(path)
	d, err2 := filepath.Abs(dir)
	if err1 != nil || err2 != nil {
		return false
	}
	rel, err := filepath.Rel(d, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
