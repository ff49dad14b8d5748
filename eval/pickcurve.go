package eval

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	goruntime "runtime"
	"slices"
	"strings"

	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/runtime"
	"github.com/augur-tuning/augur/train"
)

// PickCurveOptions configure PickCurve. The zero value measures the
// defaults below.
type PickCurveOptions struct {
	// ShapeCounts are the numbers of training shapes, every configuration
	// of each; nil means 1, 2, 4, 8 and 16. Counts beyond the shapes a
	// device has are left out; all of them is always a point.
	ShapeCounts []int
	// Fractions are the shares of each training shape's recorded
	// configurations, with every other shape; nil means 0.02, 0.05, 0.1,
	// 0.25 and 0.5 (1 is the all-shapes point).
	Fractions []float64
	// Draws is the number of random draws of shapes or configurations a
	// point and held-out shape; 0 means 2.
	Draws int
}

// PickCurvePoint is the held-out pick quality of models trained on part of
// a device's data: TrainShapes other shapes, Fraction of each one's
// recorded configurations.
type PickCurvePoint struct {
	Platform    string  `json:"platform"`
	TrainShapes int     `json:"train_shapes"`
	Fraction    float64 `json:"config_fraction"`
	// TrainRows is the mean number of training rows a model had.
	TrainRows int `json:"train_rows"`
	// Pct is the geometric mean over held-out shapes and draws of the
	// pick's % of the shape's best, Worst the lowest; Picks counts them
	// (picks never recorded are left out).
	Pct   float64 `json:"pct_of_best"`
	Worst float64 `json:"worst_pct_of_best"`
	Picks int     `json:"picks"`
	// ByShape is each held-out shape's pick, the geometric mean over its
	// draws, by shape ("R=256,C=256,..."): what AdvisePickCurve pairs
	// between two points.
	ByShape map[string]float64 `json:"by_shape,omitempty"`
}

// PickCurve is the learning curve in the unit users judge: for each device
// and each of its shapes with a measured configuration, models trained on
// fewer of the other shapes, and on fewer configurations a shape, choose
// for the shape with no measurement (as Options.Holdout does with every
// other shape), judged against the shape's fastest recorded configuration;
// a pick the shape never recorded is left out (Picks counts the rest), so
// a sampled dataset, the same configurations on every shape, has a curve
// too. It tells a user whether more shapes or more configurations a shape
// would raise the picks most. Every point's models use one learner setting
// per device: Options.Learner as train.Options.Model has it, where "" or
// "auto" is the setting train.Select chooses on all of the device's data
// (what 'augur train' would fit), chosen once (a selection at every point
// would cost more than the rest) with the held-out shapes' rows among its
// data, so that the all-data point may differ from, and often exceed, what
// leave-one-shape-out gives. Options.Derived, GroupParams, Spec, GBRT, Seed
// and Workers apply; Coverage does not.
func PickCurve(dir string, opt Options, co PickCurveOptions) ([]PickCurvePoint, error) {
	if err := opt.defaults(); err != nil {
		return nil, err
	}
	if co.ShapeCounts == nil {
		co.ShapeCounts = []int{1, 2, 4, 8, 16}
	}
	if co.Fractions == nil {
		co.Fractions = []float64{0.02, 0.05, 0.1, 0.25, 0.5}
	}
	if co.Draws == 0 {
		co.Draws = 2
	}
	for _, f := range co.Fractions {
		if !(f > 0 && f <= 1) {
			return nil, fmt.Errorf("eval: PickCurveOptions.Fractions must be in (0, 1], got %g", f)
		}
	}
	if co.Draws < 0 {
		return nil, fmt.Errorf("eval: PickCurveOptions.Draws must be >= 0, got %d", co.Draws)
	}
	all, err := train.LoadWith(dir, opt.Kernel, opt.loadOptions(true))
	if err != nil {
		return nil, err // train and record name themselves
	}
	space, err := features.NewSpace(all.Params, all.Constraints)
	if err != nil {
		return nil, err
	}
	groups := groupRows(all, space)
	rng := rand.New(rand.NewPCG(opt.Seed, 0x9c0e))
	var out []PickCurvePoint
	for pi, plat := range all.Platforms {
		var mine, targets []*group
		for _, g := range groups {
			if g.platform != pi {
				continue
			}
			mine = append(mine, g)
			if len(g.times) > 0 && g.refNs > 0 {
				targets = append(targets, g)
			}
		}
		if len(targets) == 0 || len(mine) < 2 {
			continue
		}
		pc := pickCurver{d: all, space: space, opt: opt, plat: plat, rng: rng, draws: co.Draws}
		if pc.topts, err = pc.learner(mine); err != nil {
			return nil, err
		}
		others := len(mine) - 1
		for _, n := range co.ShapeCounts {
			if n > 0 && n < others {
				opt.say("pick curve %s: %d training shapes", plat.Slug(), n)
				out = append(out, pc.point(mine, targets, n, 1))
			}
		}
		for _, f := range co.Fractions {
			if f < 1 {
				opt.say("pick curve %s: %.0f%% of each shape's configurations", plat.Slug(), 100*f)
				out = append(out, pc.point(mine, targets, others, f))
			}
		}
		opt.say("pick curve %s: every shape and configuration", plat.Slug())
		out = append(out, pc.point(mine, targets, others, 1))
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: the pick curve needs a device with two measured shapes or more", ErrNoHoldout)
	}
	return out, nil
}

// pickCurver fits and scores the points of one device's pick curve.
type pickCurver struct {
	d     *train.Data
	space *features.Space
	opt   Options
	plat  features.Platform
	rng   *rand.Rand
	draws int
	// topts train every model of the curve.
	topts train.Options
}

// learner returns the training options of the device's curve: its
// learner setting chosen once when Options.Learner is "" or "auto".
func (pc *pickCurver) learner(mine []*group) (train.Options, error) {
	topts := trainOptions(pc.opt)
	if topts.Model != "" && topts.Model != "auto" {
		return topts, nil
	}
	var rows []int
	for _, g := range mine {
		for _, r := range g.rows {
			if pc.d.Sample(r).Measured() {
				rows = append(rows, r)
			}
		}
	}
	slices.Sort(rows)
	pc.opt.say("pick curve %s: selecting the learner on %d rows", pc.plat.Slug(), len(rows))
	c, _, err := train.Select(pc.d.Subset(rows), train.SelectOptions{Seed: pc.opt.Seed})
	if err != nil {
		return topts, fmt.Errorf("eval: pick curve: %w", err)
	}
	// One candidate and one fold: the selection returns it unscored.
	topts.Model, topts.Select = "auto", train.SelectOptions{Candidates: []train.Candidate{c}, Folds: 1}
	return topts, nil
}

// point trains, for each target shape and draw, on n other shapes of the
// device drawn at random and a fraction frac of each one's rows, and
// chooses for the target. The draws are made in order first, and the fits,
// Options.Workers at a time (0: one a core, since a fit of one learner
// setting runs no selection), depend on their rows alone: the point is the
// same whatever the number of workers.
func (pc *pickCurver) point(mine, targets []*group, n int, frac float64) PickCurvePoint {
	p := PickCurvePoint{Platform: pc.plat.Slug(), TrainShapes: n, Fraction: frac}
	draws := pc.draws
	if n == len(mine)-1 && frac == 1 {
		draws = 1 // nothing to draw
	}
	type fit struct {
		rows []int
		t    *group
		pct  float64
		ok   bool
	}
	var fits []fit
	for _, t := range targets {
		var others []*group
		for _, g := range mine {
			if g != t {
				others = append(others, g)
			}
		}
		for range draws {
			if sub := pc.sample(others, n, frac); len(sub) >= 20 {
				fits = append(fits, fit{rows: sub, t: t})
			}
		}
	}
	workers := cmp.Or(pc.opt.Workers, goruntime.GOMAXPROCS(0))
	forEach(len(fits), workers, func(i int) {
		fits[i].pct, fits[i].ok = pc.pick(fits[i].rows, fits[i].t)
	})
	var logs []float64
	byShape := map[*group][]float64{}
	rows := 0
	for _, f := range fits {
		rows += len(f.rows)
		if !f.ok {
			continue
		}
		logs = append(logs, math.Log(f.pct))
		byShape[f.t] = append(byShape[f.t], math.Log(f.pct))
		if p.Worst == 0 || f.pct < p.Worst {
			p.Worst = f.pct
		}
	}
	if len(fits) > 0 {
		p.TrainRows = rows / len(fits)
	}
	p.Pct, p.Picks = geomean(logs), len(logs)
	if len(byShape) > 0 {
		p.ByShape = map[string]float64{}
		for g, l := range byShape {
			p.ByShape[features.FormatTask(pc.d.TaskNames, g.task)] = geomean(l)
		}
	}
	return p
}

// sample draws n of the groups and frac of each one's measured rows.
func (pc *pickCurver) sample(groups []*group, n int, frac float64) []int {
	order := pc.rng.Perm(len(groups))[:n]
	var rows []int
	for _, gi := range order {
		var ok []int
		for _, r := range groups[gi].rows {
			if pc.d.Sample(r).Measured() {
				ok = append(ok, r)
			}
		}
		k := max(1, int(math.Round(frac*float64(len(ok)))))
		pc.rng.Shuffle(len(ok), func(i, j int) { ok[i], ok[j] = ok[j], ok[i] })
		rows = append(rows, ok[:min(k, len(ok))]...)
	}
	slices.Sort(rows)
	return rows
}

// pick fits a model on rows and returns its zero-measurement pick's % of
// t's best, and false when the pick was never recorded (or the fit
// failed: too few rows to split).
func (pc *pickCurver) pick(rows []int, t *group) (float64, bool) {
	b, _, err := train.FitBundle(pc.d.Subset(rows), pc.topts, pc.plat.Slug(), &pc.plat)
	if err == nil {
		err = pc.opt.attach(b)
	}
	if err != nil {
		return 0, false
	}
	ch, err := runtime.FromBundle(b, runtime.Options{})
	if err != nil {
		return 0, false
	}
	c, err := ch.Choose(t.task)
	if err != nil {
		return 0, false
	}
	name := pc.space.Format(c)
	if ns, ok := t.times[name]; ok {
		return 100 * t.bestNs / ns, true
	}
	if t.failed[name] {
		return 100 * t.bestNs / t.refNs, true // a library falls back to the reference
	}
	return 0, false
}

// PickCurveStep is the gain of one step of a pick curve: from the point
// of From training shapes (or From of each shape's configurations) to
// To, in points of % of the best. Gain is the difference of the two
// points' geometric means over the held-out shapes both picked for
// (Shapes), paired by shape, and Interval its 95% bootstrap interval over
// those shapes: a gain whose interval holds 0 is not told apart from
// the draws' and the shapes' noise.
type PickCurveStep struct {
	From     float64    `json:"from"`
	To       float64    `json:"to"`
	Gain     float64    `json:"gain"`
	Interval [2]float64 `json:"gain_interval95"`
	Shapes   int        `json:"shapes"`
}

// Clear reports whether the step's gain is told apart from noise: its
// interval lies above 0.
func (s *PickCurveStep) Clear() bool { return s != nil && s.Shapes >= 2 && s.Interval[0] > 0 }

// PickCurveAdvice is what a device's pick curve says to collect next: the
// last step of each axis, from the largest shape count below all of them
// to all (MoreShapes), and from the largest share below all of each
// shape's configurations to all (MoreConfigs); nil where the curve has no
// such point with picks.
type PickCurveAdvice struct {
	Platform    string         `json:"platform"`
	Pct         float64        `json:"pct_of_best"`
	MoreShapes  *PickCurveStep `json:"more_shapes,omitempty"`
	MoreConfigs *PickCurveStep `json:"more_configs,omitempty"`
}

// AdvisePickCurve reads PickCurve's points, one advice a device in their
// order.
func AdvisePickCurve(pts []PickCurvePoint) []PickCurveAdvice {
	var out []PickCurveAdvice
	for i := 0; i < len(pts); {
		j := i
		for j < len(pts) && pts[j].Platform == pts[i].Platform {
			j++
		}
		dev := pts[i:j]
		i = j
		all := dev[len(dev)-1]
		var fewer, part *PickCurvePoint
		for k := range dev[:len(dev)-1] {
			p := &dev[k]
			if p.Picks == 0 {
				continue
			}
			if p.Fraction == 1 && (fewer == nil || p.TrainShapes > fewer.TrainShapes) {
				fewer = p
			}
			if p.TrainShapes == all.TrainShapes && p.Fraction < 1 && (part == nil || p.Fraction > part.Fraction) {
				part = p
			}
		}
		a := PickCurveAdvice{Platform: all.Platform, Pct: all.Pct}
		if fewer != nil {
			a.MoreShapes = step(*fewer, all, float64(fewer.TrainShapes), float64(all.TrainShapes))
		}
		if part != nil {
			a.MoreConfigs = step(*part, all, part.Fraction, 1)
		}
		out = append(out, a)
	}
	return out
}

// step pairs two points' picks by shape. Points without per-shape
// figures (made before ByShape) give their means' difference alone.
func step(from, to PickCurvePoint, x0, x1 float64) *PickCurveStep {
	s := &PickCurveStep{From: x0, To: x1, Gain: to.Pct - from.Pct}
	var a, b []float64
	for _, shape := range slices.Sorted(maps.Keys(to.ByShape)) { // in one order, for one interval
		if w, ok := from.ByShape[shape]; ok {
			a, b = append(a, math.Log(to.ByShape[shape])), append(b, math.Log(w))
		}
	}
	if s.Shapes = len(a); s.Shapes > 0 {
		s.Gain = geomean(a) - geomean(b)
		s.Interval = gainInterval(a, b)
	}
	return s
}

// gainInterval is a 95% bootstrap interval of geomean(a) - geomean(b)
// over paired shapes (a[i] and b[i] are one shape's logs), resampled as
// geomeanInterval does; zeros for fewer than two shapes.
func gainInterval(a, b []float64) [2]float64 {
	return bootstrap95(len(a), 2, func(draw func() int) float64 {
		sa, sb := 0.0, 0.0
		for range a {
			i := draw()
			sa, sb = sa+a[i], sb+b[i]
		}
		n := float64(len(a))
		return math.Exp(sa/n) - math.Exp(sb/n)
	})
}

// String writes the advice as 'augur eval --pick-curve' prints it.
func (a PickCurveAdvice) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: every shape and configuration %.1f%%", a.Platform, a.Pct)
	if s := a.MoreShapes; s != nil {
		fmt.Fprintf(&b, "; %.0f -> %.0f shapes %s", s.From, s.To, s.text())
	}
	if s := a.MoreConfigs; s != nil {
		fmt.Fprintf(&b, "; %.0f%% -> 100%% of the configurations %s", 100*s.From, s.text())
	}
	switch shapes, configs := a.MoreShapes.Clear(), a.MoreConfigs.Clear(); {
	case shapes && configs && a.MoreShapes.Gain >= a.MoreConfigs.Gain, shapes && !configs:
		b.WriteString(": collect more shapes")
	case configs:
		b.WriteString(": collect more configurations a shape")
	case a.MoreShapes != nil || a.MoreConfigs != nil:
		b.WriteString(": neither gain is told apart from noise; more of either may add little")
	}
	return b.String()
}

// text is a step's gain and, where it has one, its interval.
func (s *PickCurveStep) text() string {
	if s.Shapes < 2 {
		return fmt.Sprintf("%+.1f points", s.Gain)
	}
	return fmt.Sprintf("%+.1f points [%+.1f, %+.1f]", s.Gain, s.Interval[0], s.Interval[1])
}
