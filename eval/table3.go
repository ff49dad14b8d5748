package eval

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"

	"github.com/augur-tuning/augur/collect/record"
	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/search"
)

// A Classifier predicts, before any measurement, the value of the
// technique parameter a heuristic holds on one kernel shape of one device:
// Garvey and Abdelrahman's random forest over static stencil features, one
// model per heuristic (2018, sections 6.1 and 6.3). heuristic is the name
// in Table3Options.Heuristics.
type Classifier interface {
	Technique(heuristic string, p features.Platform, t features.Task) (int, error)
}

// ClassifierFunc adapts a function to Classifier.
type ClassifierFunc func(heuristic string, p features.Platform, t features.Task) (int, error)

// Technique implements Classifier.
func (f ClassifierFunc) Technique(heuristic string, p features.Platform, t features.Task) (int, error) {
	return f(heuristic, p, t)
}

// Heuristic is a named search strategy that Table3 replays, once with the
// technique the classifier picks and, as its oracle, once with each
// technique.
type Heuristic struct {
	Name     string
	Strategy search.Strategy
}

// Table3Options configure Table3.
type Table3Options struct {
	// Kernel is the kernel whose data under the directory is evaluated.
	Kernel string
	// Technique names the parameter the classifier fixes (the data loading
	// technique); "" means the kernel has none, and then the heuristics
	// search every parameter and no oracle rows are printed.
	Technique string
	// Heuristics are the strategies compared; nil means Garvey and
	// Abdelrahman's three over Dims (PaperHeuristics).
	Heuristics []Heuristic
	// Dims names the parameters by role for the paper's heuristics.
	Dims search.Dims
	// Classifier picks the technique of each heuristic on each shape; nil
	// means the technique of the shape's fastest recorded configuration (a
	// classifier trained on the recording's own labels, which is what an
	// oracle over techniques would be told).
	Classifier Classifier
	// TechniqueBy describes Classifier in the report; "" means "the
	// classifier's pick".
	TechniqueBy string
	// RandomSample is the number of configurations random sampling
	// measures; 0 means 1000, the paper's sample.
	RandomSample int
	// Seed drives random sampling and the heuristics' random choices.
	Seed uint64
	// Progress receives one line per stage; nil means quiet.
	Progress io.Writer
}

// Table3Report is Garvey and Abdelrahman's Table 3 over recorded data: one
// table per device.
type Table3Report struct {
	Kernel       string `json:"kernel"`
	Technique    string `json:"technique,omitempty"`
	TechniqueBy  string `json:"technique_by,omitempty"`
	RandomSample int    `json:"random_sample"`
	// SpaceSize is the number of valid configurations of the space.
	SpaceSize  int            `json:"space_size"`
	Devices    []Table3Device `json:"devices"`
	Unrecorded string         `json:"unrecorded_policy"`
}

// Table3Device is the table of one device.
type Table3Device struct {
	Platform string `json:"platform"`
	// Kernels counts the shapes (the paper's kernels) averaged over, and
	// NoBaseline those left out because random sampling found no
	// configuration that ran.
	Kernels int `json:"kernels"`
	// Recorded is the mean number of configurations recorded a shape.
	Recorded   float64     `json:"recorded"`
	NoBaseline int         `json:"no_baseline,omitempty"`
	Rows       []Table3Row `json:"rows"`
	// Shapes are the per-kernel figures behind the rows (JSON only).
	Shapes []Table3Shape `json:"shapes"`
}

// Table3Shape is one kernel shape of a device's table.
type Table3Shape struct {
	Shape string `json:"shape"`
	// Recorded counts the shape's recorded configurations, OK those that
	// ran.
	Recorded int `json:"recorded"`
	OK       int `json:"ok"`
	// BestNs is each row's best time on the shape, in the order of
	// Table3Device.Rows, in nanoseconds; 0 when it found nothing that ran.
	BestNs []float64 `json:"best_ns"`
	// Techniques are the technique values the heuristics held, by name.
	Techniques map[string]int `json:"techniques,omitempty"`
}

// Table3Row is one strategy on one device. Configs, CompileS and RunS are
// means over kernels.
type Table3Row struct {
	// Group is "baseline", "oracle" or "heuristic".
	Group    string `json:"group"`
	Strategy string `json:"strategy"`
	// Speedup is the geometric mean over kernels of the best time random
	// sampling found over the best time this strategy found. On a kernel
	// where the strategy found nothing that ran it counts the reference
	// configuration's time, what a tuner falls back to (as a failed pick
	// does in Evaluate's holdout); a kernel without that time, or on
	// which random sampling found nothing, is left out.
	Speedup float64 `json:"speedup"`
	// Configs counts the recorded configurations visited that were
	// compiled (every status but pruned); CompileS sums their recorded
	// compile times and RunS the recorded times of those that ran (one
	// run each), in seconds. collect times each compile by the wall
	// clock while its worker pool compiles others, so CompileS is what
	// the recording's compiles took, not what one compile at a time
	// would.
	Configs  float64 `json:"configs"`
	CompileS float64 `json:"compile_s"`
	RunS     float64 `json:"run_s"`
	// BestCount is the number of kernels on which this strategy's best
	// time is the best that any strategy of the table found.
	BestCount int `json:"best_count"`
	// Unrecorded is the mean number of configurations visited that the
	// recording lacks (replayed as failed); Failed counts kernels on which
	// the strategy found no configuration that ran.
	Unrecorded float64 `json:"unrecorded"`
	Failed     int     `json:"failed,omitempty"`
}

// UnrecordedPolicy says how Table3 replays a configuration the recording
// lacks, for sampled (not full-space) data. For heuristics without a
// budget, which move only to a better measured configuration, it is the
// same as searching only among the recorded configurations: an
// unrecorded one can neither be kept nor cost anything. On a sparse
// recording the heuristics are then nearly blind (a group step finds a
// recorded configuration only where one agrees with the current
// configuration on every other parameter), and the unrecorded column says
// how much they asked for in vain.
const UnrecordedPolicy = "a configuration the recording lacks is replayed as a failed measurement: the strategy moves on, and it counts in no column but unrecorded (no compile or run time is known)"

// PaperHeuristics returns Garvey and Abdelrahman's three heuristics over
// space, named dimensions, optimizations and hybrid.
func PaperHeuristics(space *features.Space, d search.Dims) ([]Heuristic, error) {
	var out []Heuristic
	for _, h := range []struct {
		name  string
		build func(*features.Space, search.Dims) (search.Grouped, error)
	}{{"dimensions", search.ByDimension}, {"optimizations", search.ByOptimization}, {"hybrid", search.Hybrid}} {
		g, err := h.build(space, d)
		if err != nil {
			return nil, fmt.Errorf("eval: %s: %w", h.name, err)
		}
		out = append(out, Heuristic{Name: h.name, Strategy: g})
	}
	return out, nil
}

// shapeRows is the recording of one kernel shape on one device.
type shapeRows struct {
	platform features.Platform
	task     features.Task
	name     string                // the task formatted with its names
	rows     map[string]record.Row // by space.Format(config); the latest wins
	times    map[string]float64    // ok rows
	refNs    float64               // the reference configuration's time; 0 when unknown
	order    []string              // the keys of rows, in recording order
}

// bestKey returns the fastest ok configuration.
func (s *shapeRows) bestKey() string {
	best, bestNs := "", math.Inf(1)
	for _, k := range s.order {
		if t, ok := s.times[k]; ok && t < bestNs {
			best, bestNs = k, t
		}
	}
	return best
}

// visit is what one strategy did on one shape.
type visit struct {
	seen   map[string]bool
	bestNs float64 // +Inf when nothing ran
	// technique is the value a heuristic held, when fixed says it held
	// one.
	technique int
	fixed     bool
}

func (v *visit) merge(o visit) {
	for k := range o.seen {
		v.seen[k] = true
	}
	v.bestNs = min(v.bestNs, o.bestNs)
}

// cost sums what the visited configurations cost on the device, in the
// recording's order, so that the sums do not depend on a map's order.
func (s *shapeRows) cost(v visit) (configs int, compileMs, runNs float64, unrecorded int) {
	recorded := 0
	for _, k := range s.order {
		if !v.seen[k] {
			continue
		}
		recorded++
		if r := s.rows[k]; r.Status != record.StatusPruned {
			configs++
			compileMs += r.CompileMs
			if r.Status == record.StatusOK {
				runNs += r.TimeNs
			}
		}
	}
	return configs, compileMs, runNs, len(v.seen) - recorded
}

// Table3 replays random sampling, each heuristic with the technique the
// classifier picks, and each heuristic's oracle over the recorded data of
// opt.Kernel under dir, shape by shape, and tabulates them as Garvey and
// Abdelrahman's Table 3 (2018, section 8.3.2). The recording may be a
// sample of the space: see UnrecordedPolicy.
func Table3(dir string, opt Table3Options) (*Table3Report, error) {
	if opt.RandomSample == 0 {
		opt.RandomSample = 1000
	}
	switch {
	case opt.Kernel == "":
		return nil, fmt.Errorf("eval: Table3Options.Kernel is empty")
	case opt.RandomSample < 0:
		return nil, fmt.Errorf("eval: Table3Options.RandomSample must be >= 0, got %d", opt.RandomSample)
	}
	space, shapes, err := loadShapes(dir, opt.Kernel)
	if err != nil {
		return nil, err
	}
	if opt.Heuristics == nil {
		if opt.Heuristics, err = PaperHeuristics(space, opt.Dims); err != nil {
			return nil, err
		}
	}
	subs, err := techniqueSpaces(space, opt.Technique)
	if err != nil {
		return nil, err
	}
	rep := &Table3Report{Kernel: opt.Kernel, Technique: opt.Technique, RandomSample: opt.RandomSample, SpaceSize: space.Len(),
		Unrecorded: UnrecordedPolicy}
	if opt.Technique != "" {
		rep.TechniqueBy = opt.TechniqueBy
		switch {
		case opt.Classifier == nil:
			rep.TechniqueBy = "the value of each shape's fastest recorded configuration"
		case rep.TechniqueBy == "":
			rep.TechniqueBy = "the classifier's pick"
		}
	}
	byPlatform := map[string][]*shapeRows{}
	var slugs []string
	for _, s := range shapes {
		slug := s.platform.Slug()
		if byPlatform[slug] == nil {
			slugs = append(slugs, slug)
		}
		byPlatform[slug] = append(byPlatform[slug], s)
	}
	for _, slug := range slugs {
		opt.say("table 3 on %s: %d shapes", slug, len(byPlatform[slug]))
		dev, err := table3Device(space, subs, byPlatform[slug], opt)
		if err != nil {
			return nil, err
		}
		dev.Platform = slug
		rep.Devices = append(rep.Devices, dev)
	}
	return rep, nil
}

func (o *Table3Options) say(format string, args ...any) {
	if o.Progress != nil {
		fmt.Fprintf(o.Progress, format+"\n", args...)
	}
}

// techniqueSpaces returns the space restricted to each value of the
// technique, by value; nil when there is no technique.
func techniqueSpaces(space *features.Space, technique string) (map[int]*features.Space, error) {
	if technique == "" {
		return nil, nil
	}
	k := space.Param(technique)
	if k < 0 {
		return nil, fmt.Errorf("eval: technique %q is not a parameter of the space: %w", technique, features.ErrUnknownName)
	}
	subs := map[int]*features.Space{}
	for _, v := range space.Params[k].Values {
		sub, err := search.Restrict(space, technique, v)
		if err != nil {
			return nil, fmt.Errorf("eval: %w", err)
		}
		subs[v] = sub
	}
	return subs, nil
}

// loadShapes reads every row of kernel under dir and groups them by
// (device, shape). A later row of a configuration supersedes an earlier
// one timed with no more repeats, as train.Load has it.
func loadShapes(dir, kernel string) (*features.Space, []*shapeRows, error) {
	files, err := record.ReadDir(filepath.Join(dir, kernel))
	if errors.Is(err, fs.ErrNotExist) || (err == nil && len(files) == 0) {
		return nil, nil, fmt.Errorf("eval: no dataset files under %s", filepath.Join(dir, kernel))
	}
	if err != nil {
		return nil, nil, fmt.Errorf("eval: %w", err)
	}
	m := files[0].Meta
	space, err := features.NewSpace(m.Params, m.Constraints)
	if err != nil {
		return nil, nil, fmt.Errorf("eval: %s: %w", files[0].Path, err)
	}
	byKey := map[string]*shapeRows{}
	var out []*shapeRows
	for _, f := range files {
		if f.Meta.Kernel != kernel || f.Meta.KernelVersion != m.KernelVersion {
			return nil, nil, fmt.Errorf("eval: %s holds kernel %s version %s, want %s version %s",
				f.Path, f.Meta.Kernel, f.Meta.KernelVersion, kernel, m.KernelVersion)
		}
		for _, r := range f.Rows {
			key := f.Meta.Platform.Slug() + "|" + fmt.Sprint(r.Task)
			s := byKey[key]
			if s == nil {
				s = &shapeRows{platform: f.Meta.Platform, task: r.Task, name: features.FormatTask(m.TaskNames, r.Task),
					rows: map[string]record.Row{}, times: map[string]float64{}}
				byKey[key] = s
				out = append(out, s)
			}
			name := space.Format(r.Config)
			old, dup := s.rows[name]
			if dup && r.Repeats < old.Repeats {
				continue
			}
			if !dup {
				s.order = append(s.order, name)
			}
			s.rows[name] = r
			delete(s.times, name)
			if r.Status == record.StatusOK && r.TimeNs > 0 {
				s.times[name] = r.TimeNs
			}
			if r.RefTimeNs > 0 {
				s.refNs = r.RefTimeNs
			}
		}
	}
	return space, out, nil
}

// strategyRun is one row of the table in the making: a visit per shape.
type strategyRun struct {
	group, name string
	visits      []visit
}

// table3Device replays every strategy on the shapes of one device.
func table3Device(space *features.Space, subs map[int]*features.Space, shapes []*shapeRows, opt Table3Options) (Table3Device, error) {
	runs := []*strategyRun{{group: "baseline", name: "random"}}
	oracles := make([]*strategyRun, len(opt.Heuristics))
	heur := make([]*strategyRun, len(opt.Heuristics))
	for i, h := range opt.Heuristics {
		oracles[i] = &strategyRun{group: "oracle", name: h.Name}
		heur[i] = &strategyRun{group: "heuristic", name: h.Name}
	}
	if subs != nil {
		runs = append(runs, oracles...)
	}
	runs = append(runs, heur...)
	for si, s := range shapes {
		rng := rand.New(rand.NewPCG(opt.Seed, uint64(si)))
		runs[0].visits = append(runs[0].visits, randomSample(s, opt.RandomSample, rng))
		for i, h := range opt.Heuristics {
			hv, ov, err := runHeuristic(space, subs, s, h, opt, rng)
			if err != nil {
				return Table3Device{}, err
			}
			heur[i].visits = append(heur[i].visits, hv)
			oracles[i].visits = append(oracles[i].visits, ov)
		}
	}
	return tabulate(shapes, runs), nil
}

// randomSample visits n of the shape's recorded configurations drawn
// uniformly, or all when fewer are recorded: for a recording that is
// itself a uniform sample of the space, a uniform sample of the space.
func randomSample(s *shapeRows, n int, rng *rand.Rand) visit {
	v := visit{seen: map[string]bool{}, bestNs: math.Inf(1)}
	keys := slices.Clone(s.order)
	rng.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
	for _, k := range keys[:min(n, len(keys))] {
		v.seen[k] = true
		if t, ok := s.times[k]; ok {
			v.bestNs = min(v.bestNs, t)
		}
	}
	return v
}

// runHeuristic replays h on one shape with the classifier's technique, and
// with each technique for its oracle.
func runHeuristic(space *features.Space, subs map[int]*features.Space, s *shapeRows, h Heuristic, opt Table3Options, rng *rand.Rand) (heuristic, oracle visit, err error) {
	obj, err := search.Replay(space, s.times, 0)
	if err != nil {
		return visit{}, visit{}, fmt.Errorf("eval: %w", err)
	}
	replay := func(sp *features.Space) (visit, error) {
		v := visit{seen: map[string]bool{}, bestNs: math.Inf(1)}
		_, err := search.Run(h.Strategy, sp, func(c features.Config) (float64, error) {
			v.seen[space.Format(c)] = true
			return obj(c)
		}, rng, search.Settings{})
		if err != nil && !errors.Is(err, search.ErrNothingFound) {
			return v, fmt.Errorf("eval: %s: %w", h.Name, err)
		}
		for k := range v.seen {
			if t, ok := s.times[k]; ok {
				v.bestNs = min(v.bestNs, t)
			}
		}
		return v, nil
	}
	if subs == nil {
		v, err := replay(space)
		return v, v, err
	}
	tech, err := pickTechnique(space, s, h.Name, opt)
	if err != nil {
		return visit{}, visit{}, err
	}
	if subs[tech] == nil {
		return visit{}, visit{}, fmt.Errorf("eval: %s on %s: the classifier picked %s=%d, not among its values", h.Name, s.platform.Slug(), opt.Technique, tech)
	}
	heuristic = visit{seen: map[string]bool{}, bestNs: math.Inf(1), technique: tech, fixed: true}
	oracle = visit{seen: map[string]bool{}, bestNs: math.Inf(1)}
	for _, val := range space.Params[space.Param(opt.Technique)].Values {
		if subs[val].Len() == 0 {
			continue // the constraints rule the technique out
		}
		v, err := replay(subs[val])
		if err != nil {
			return visit{}, visit{}, err
		}
		if val == tech {
			heuristic = v
			heuristic.technique, heuristic.fixed = tech, true
		}
		oracle.merge(v)
	}
	return heuristic, oracle, nil
}

// pickTechnique asks the classifier, or takes the technique of the shape's
// fastest recorded configuration.
func pickTechnique(space *features.Space, s *shapeRows, heuristic string, opt Table3Options) (int, error) {
	if opt.Classifier != nil {
		v, err := opt.Classifier.Technique(heuristic, s.platform, s.task)
		if err != nil {
			return 0, fmt.Errorf("eval: classifier: %w", err)
		}
		return v, nil
	}
	k := space.Param(opt.Technique)
	best := s.bestKey()
	if best == "" {
		return space.Params[k].Values[0], nil // nothing ran: any will do
	}
	c, err := space.Parse(best)
	if err != nil {
		return 0, fmt.Errorf("eval: %w", err)
	}
	return c[k], nil
}

// tabulate turns the visits into the table's rows.
func tabulate(shapes []*shapeRows, runs []*strategyRun) Table3Device {
	dev := Table3Device{Kernels: len(shapes)}
	rows := make([]Table3Row, len(runs))
	logSum := make([]float64, len(runs))
	counted := make([]int, len(runs))
	for i, r := range runs {
		rows[i] = Table3Row{Group: r.group, Strategy: r.name}
	}
	for si, s := range shapes {
		best := math.Inf(1)
		sh := Table3Shape{Shape: s.name, Recorded: len(s.rows), OK: len(s.times)}
		dev.Recorded += float64(sh.Recorded) / float64(len(shapes))
		for _, r := range runs {
			v := r.visits[si]
			best = min(best, v.bestNs)
			if math.IsInf(v.bestNs, 1) {
				sh.BestNs = append(sh.BestNs, 0)
			} else {
				sh.BestNs = append(sh.BestNs, v.bestNs)
			}
			if v.fixed && r.group == "heuristic" {
				if sh.Techniques == nil {
					sh.Techniques = map[string]int{}
				}
				sh.Techniques[r.name] = v.technique
			}
		}
		dev.Shapes = append(dev.Shapes, sh)
		base := runs[0].visits[si].bestNs
		if math.IsInf(base, 1) {
			dev.NoBaseline++
		}
		for i, r := range runs {
			v := r.visits[si]
			configs, compileMs, runNs, unrecorded := s.cost(v)
			rows[i].Configs += float64(configs)
			rows[i].CompileS += compileMs / 1e3
			rows[i].RunS += runNs / 1e9
			rows[i].Unrecorded += float64(unrecorded)
			switch {
			case math.IsInf(v.bestNs, 1):
				rows[i].Failed++
			case v.bestNs == best:
				rows[i].BestCount++
			}
			found := v.bestNs
			if math.IsInf(found, 1) && s.refNs > 0 {
				found = s.refNs
			}
			if !math.IsInf(base, 1) && !math.IsInf(found, 1) {
				logSum[i] += math.Log(base / found)
				counted[i]++
			}
		}
	}
	n := float64(len(shapes))
	for i := range rows {
		rows[i].Configs /= n
		rows[i].CompileS /= n
		rows[i].RunS /= n
		rows[i].Unrecorded /= n
		if counted[i] > 0 {
			rows[i].Speedup = math.Exp(logSum[i] / float64(counted[i]))
		}
	}
	dev.Rows = rows
	return dev
}
