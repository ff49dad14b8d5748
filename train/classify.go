package train

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/augur-tuning/augur/features"
)

// Classifier learners (ClassifyOptions.Learner).
const (
	// LearnerForest is augur's random-forest classifier (ClassForestOptions).
	LearnerForest = "forest"
	// LearnerGolearn is golearn's random forest (GolearnOptions).
	LearnerGolearn = "golearn"
	// LearnerAuto cross-validates every learner and keeps the best.
	LearnerAuto = "auto"
)

// DefaultClassLearner is the learner of ClassifyOptions.Learner "": "auto",
// since neither forest measured best everywhere on the leave-one-out folds
// of bench/RESULTS.md (augur's was ahead on conv2d's vector width, golearn's
// on the stencils' data-loading technique, where it predicted the commonest
// technique throughout), and the folds that score the learners are
// computed anyway. When golearn's is chosen the bundle is not reproducible
// (golearn draws from math/rand's global source).
const DefaultClassLearner = LearnerAuto

// ClassifyOptions configure the classifier Train adds to a bundle.
type ClassifyOptions struct {
	// Target is the categorical parameter to classify; "" trains none.
	Target string
	// Learner is "forest", "golearn" or "auto" (both cross-validated, the
	// better kept); "" means DefaultClassLearner, "auto".
	Learner string
	// FoldBy names the task features whose values make the held-out folds
	// of the reported accuracy: groups that agree on them are held out
	// together (for stencils, the features that describe the stencil,
	// leaving one stencil kernel out at a time). Empty means every task
	// feature: leave one shape out.
	FoldBy []string
	// Forest configures the "forest" learner; its Seed, when 0, is
	// Options.Seed.
	Forest ClassForestOptions
	// Golearn configures the "golearn" learner.
	Golearn GolearnOptions
}

// ClassReport is the classifier's part of a Report.
type ClassReport struct {
	Target  string
	Classes []int
	// Counts[k] is the number of groups whose best class is k.
	Counts []int
	Groups int
	// MedianRan is the median number of configurations of one class that
	// ran in one group (ClassData.MedianRan): with few, the labels follow
	// the sample.
	MedianRan int
	// Scores are the learners cross-validated, in the order tried.
	Scores []ClassScore
	// Chosen is the learner written to the bundle.
	Chosen string
}

// ClassScore is one learner's held-out score.
type ClassScore struct {
	Learner string
	CV      ClassCV
	// FitSeconds is the wall time of the whole cross-validation.
	FitSeconds float64
}

// String lays the report out as a table, one line per learner.
func (r *ClassReport) String() string {
	var b strings.Builder
	folds := 0
	if len(r.Scores) > 0 {
		folds = r.Scores[0].CV.Folds
	}
	fmt.Fprintf(&b, "classifier of %s (classes %v, best-class counts %v): %d (shape, device) groups, %d held-out folds\n",
		r.Target, r.Classes, r.Counts, r.Groups, folds)
	fmt.Fprintf(&b, "each label rests on a median of %d configurations a class that ran", r.MedianRan)
	if r.MedianRan < minRanForLabels {
		fmt.Fprintf(&b, ": few, so the labels say as much about which configurations were sampled as about the best %s; label from whole spaces or a search per class", r.Target)
	}
	b.WriteString("\n")
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "learner\taccuracy\tpenalty_weighted\tcv_s\t\t")
	for _, s := range r.Scores {
		mark := ""
		if s.Learner == r.Chosen {
			mark = "chosen"
		}
		fmt.Fprintf(tw, "%s\t%.3f\t%.4f\t%.2f\t%s\t\n", s.Learner, s.CV.Accuracy, s.CV.PenaltyWeighted, s.FitSeconds, mark)
		if len(s.CV.ByPlatform) > 1 {
			for _, p := range s.CV.ByPlatform {
				fmt.Fprintf(tw, "%s on %s (%d groups)\t%.3f\t%.4f\t\t\t\n", s.Learner, p.Platform, p.Groups, p.Accuracy, p.PenaltyWeighted)
			}
		}
	}
	tw.Flush()
	return b.String()
}

// minRanForLabels is the number of configurations a class below which the
// report warns that labels follow the sample. On the Xeon's stencils, 40
// sampled configurations a kernel (a median of 3 a class that ran) labelled 97 of
// 100 kernels "global", where whole spaces made
// global_vec fastest on all six measured, by 2.5-3.7x (a median of 427 a
// class).
const minRanForLabels = 20

// classLearner returns the learner of a name with o's options.
func (o ClassifyOptions) classLearner(name string, seed uint64) (ClassLearner, map[string]float64, error) {
	switch name {
	case LearnerForest:
		f := o.Forest
		if f.Seed == 0 {
			f.Seed = seed
		}
		r, err := f.withDefaults()
		if err != nil {
			return nil, nil, err
		}
		return f, r.options(), nil
	case LearnerGolearn:
		return o.Golearn, o.Golearn.options(), nil
	}
	return nil, nil, fmt.Errorf("train: ClassifyOptions.Learner must be %q, %q, %q or empty, got %q",
		LearnerForest, LearnerGolearn, LearnerAuto, name)
}

// FitClassifier builds the groups of parameter opt.Target from d's
// measured rows (Classes), scores the learner (or, for "auto", every
// learner, keeping the best penalty-weighted accuracy, then absolute
// accuracy) on leave-one-out folds by opt.FoldBy, fits it on every group
// and returns it as a bundle entry with a report.
func FitClassifier(d *Data, opt ClassifyOptions, seed uint64) (features.Classifier, *ClassReport, error) {
	cd, err := Classes(d, opt.Target)
	if err != nil {
		return features.Classifier{}, nil, err
	}
	learner := opt.Learner
	if learner == "" {
		learner = DefaultClassLearner
	}
	names := []string{learner}
	if learner == LearnerAuto {
		names = []string{LearnerForest, LearnerGolearn}
	}
	rep := &ClassReport{Target: cd.Target, Classes: cd.Classes, Counts: make([]int, len(cd.Classes)), Groups: cd.Len(), MedianRan: cd.MedianRan()}
	for _, y := range cd.Y {
		rep.Counts[y]++
	}
	_, nFolds, err := cd.FoldKeys(opt.FoldBy)
	if err != nil {
		return features.Classifier{}, nil, err
	}
	best := -1
	for _, name := range names {
		l, _, err := opt.classLearner(name, seed)
		if err != nil {
			return features.Classifier{}, nil, err
		}
		sc := ClassScore{Learner: name}
		if nFolds >= 2 {
			start := time.Now()
			if sc.CV, err = CrossValidateClasses(cd, l, opt.FoldBy); err != nil {
				return features.Classifier{}, nil, fmt.Errorf("train: classifier %s: %w", name, err)
			}
			sc.FitSeconds = time.Since(start).Seconds()
		}
		rep.Scores = append(rep.Scores, sc)
		if best < 0 || better(sc.CV, rep.Scores[best].CV) {
			best = len(rep.Scores) - 1
		}
	}
	rep.Chosen = rep.Scores[best].Learner
	l, options, err := opt.classLearner(rep.Chosen, seed)
	if err != nil {
		return features.Classifier{}, nil, err
	}
	f, err := l.FitClasses(cd.X, len(cd.Features), cd.Y, len(cd.Classes))
	if err != nil {
		return features.Classifier{}, nil, fmt.Errorf("train: classifier %s: %w", rep.Chosen, err)
	}
	var text strings.Builder
	if err := f.WriteLightGBM(&text, cd.Features); err != nil {
		return features.Classifier{}, nil, err
	}
	c := features.Classifier{Param: cd.Target, Classes: slices.Clone(cd.Classes), Kind: rep.Chosen,
		Features: slices.Clone(cd.Features), LightGBM: text.String(), TrainGroups: cd.Len(),
		FoldBy: slices.Clone(opt.FoldBy), Options: maps.Clone(options)}
	if nFolds >= 2 {
		c.Stats = rep.Scores[best].CV.Stats()
	}
	return c, rep, nil
}

// better reports whether a scores above b: penalty-weighted accuracy
// first, then absolute accuracy.
func better(a, b ClassCV) bool {
	if a.PenaltyWeighted != b.PenaltyWeighted {
		return a.PenaltyWeighted > b.PenaltyWeighted
	}
	return a.Accuracy > b.Accuracy
}
