package eval

import (
	"fmt"
	"math"
	"strings"

	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/runtime"
	"github.com/augur-tuning/augur/train"
)

// CopyPick is the "copy another device's best" baseline on one held-out
// shape: the configuration that ran fastest on Device, on the same shape
// or, when Device did not measure it, on its nearest shape in log space.
type CopyPick struct {
	Device string `json:"device"`
	// From is the shape of Device whose best configuration was copied.
	From   string  `json:"from_shape"`
	Config string  `json:"config"`
	Pct    float64 `json:"pct_of_best"` // 0 when the copy was not recorded
	Status string  `json:"status"`      // ok, failed, unrecorded
}

// CopyResult is the geometric mean of one device's copies over the held-out
// shapes.
type CopyResult struct {
	Device     string  `json:"device"`
	Pct        float64 `json:"geomean_pct_of_best"`
	Worst      float64 `json:"worst_pct_of_best"`
	Failed     int     `json:"failed_picks"`
	Unrecorded int     `json:"unrecorded_picks"`
}

// holdoutDevice trains the fleet model on every device of d but the
// held-out one and chooses for the held-out device's shapes with the
// runtime, given that device's platform features and no measurement of it.
// groups are d's (platform, task) groups: the held-out device's are the
// targets (unless opt.Test names other data), the others' best
// configurations are the copy baselines.
func holdoutDevice(d *train.Data, groups []*group, space *features.Space, opt Options) (*HoldoutReport, error) {
	// held indexes the device in d: -1 when only the test data has it.
	held, err := findDevice(d.Platforms, opt.HoldoutDevice)
	if err != nil && opt.Test == "" {
		return nil, err
	}
	if err != nil {
		held = -1
	}
	targets, target := groups, held
	var plat features.Platform
	if opt.Test != "" {
		test, err := train.LoadWith(opt.Test, opt.Kernel, train.LoadOptions{Invalid: train.InvalidZeta, Zeta: opt.Zeta, Derived: opt.Derived})
		if err != nil {
			return nil, fmt.Errorf("eval: test data: %w", err)
		}
		if target, err = findDevice(test.Platforms, opt.HoldoutDevice); err != nil {
			return nil, err
		}
		targets, plat = groupRows(test, space), test.Platforms[target]
	} else {
		plat = d.Platforms[held]
	}
	var rows []int
	for i, s := range d.Samples {
		if s.Platform != held {
			rows = append(rows, i)
		}
	}
	rep := &HoldoutReport{Mode: "device", Device: plat.Slug()}
	for pi, p := range d.Platforms {
		if pi != held {
			rep.TrainedOn = append(rep.TrainedOn, p.Slug())
		}
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("%w: --holdout device needs data of another device to train on, have only %s", ErrNoHoldout, plat.Slug())
	}
	var chosen []*group
	for _, g := range targets {
		if g.platform == target && len(g.times) > 0 && g.refNs > 0 &&
			float64(len(g.rows)) >= opt.Coverage*float64(space.Len()) {
			chosen = append(chosen, g)
		}
	}
	if len(chosen) == 0 {
		return nil, fmt.Errorf("%w: no shape of %s has >= %.0f%% of its space recorded (see --coverage)", ErrNoHoldout, plat.Slug(), 100*opt.Coverage)
	}
	opt.say("leave-one-device-out: fleet model on %s, choosing for %d shapes of %s", strings.Join(rep.TrainedOn, ", "), len(chosen), plat.Slug())

	topts := train.Options{Kernel: opt.Kernel, Model: opt.Learner, GBRT: opt.GBRT, Seed: opt.Seed}
	fleet := d.Subset(rows)
	b, mr, err := train.FitFleetBundle(fleet, topts)
	if err == nil {
		err = opt.attach(b)
	}
	if err != nil {
		return nil, fmt.Errorf("eval: holdout fit: %w", err)
	}
	if rep.Unseen, err = ChooseUnseen(b, fleet, mr); err != nil {
		return nil, err
	}
	// The runtime as a user's bundle would run it, and each policy
	// forced, to compare.
	var chs [3]*runtime.Chooser
	for i, policy := range []string{"", features.UnseenFleet, features.UnseenCopy} {
		if chs[i], err = runtime.FromBundle(b, runtime.Options{Platform: &plat, Unseen: policy}); err != nil {
			return nil, fmt.Errorf("eval: %w", err)
		}
	}
	ch := chs[0]
	if s := ch.Source(); s != runtime.SourceFleet && s != runtime.SourceCopy {
		return nil, fmt.Errorf("eval: the runtime chose model source %q for %s, want the fleet model or copies", s, plat.Slug())
	}
	rep.Policy = ch.Source()
	learner := ""
	if mr.Selection != nil {
		learner = mr.Selection.Chosen
	}
	bests := deviceBests(groups, d.Platforms, held)

	var logPct, logTop, logRef, logCopyBest, logFleet, logCopyPolicy []float64
	logCopy := map[string][]float64{}
	copies := map[string]*CopyResult{}
	for _, g := range chosen {
		pick, err := ch.ChoosePick(g.task)
		if err != nil {
			return nil, fmt.Errorf("eval: %w", err)
		}
		hs := HoldoutShape{Platform: plat.Slug(), Shape: features.FormatTask(d.TaskNames, g.task), Chosen: space.Format(pick.Config),
			RefPct: 100 * g.bestNs / g.refNs, Learner: learner, Source: pick.Source}
		hs.Status, hs.Pct = g.score(hs.Chosen)
		for i, out := range []*float64{&hs.FleetSearchPct, &hs.CopyPolicyPct} {
			c, err := chs[i+1].Choose(g.task)
			if err != nil {
				return nil, fmt.Errorf("eval: %w", err)
			}
			if status, pct := g.score(space.Format(c)); status != "unrecorded" {
				*out = pct
			}
		}
		if hs.FleetSearchPct > 0 {
			logFleet = append(logFleet, math.Log(hs.FleetSearchPct))
		}
		if hs.CopyPolicyPct > 0 {
			logCopyPolicy = append(logCopyPolicy, math.Log(hs.CopyPolicyPct))
		}
		switch hs.Status {
		case "failed":
			rep.Failed++
		case "unrecorded":
			rep.Unrecorded++
		}
		hs.Top1Pct = top1(ch, g, space)
		if hs.TopK, err = topK(ch, g, space); err != nil {
			return nil, err
		}
		if hs.Status != "unrecorded" {
			logPct = append(logPct, math.Log(hs.Pct))
			if rep.Worst == 0 || hs.Pct < rep.Worst {
				rep.Worst = hs.Pct
			}
		}
		logTop = append(logTop, math.Log(hs.Top1Pct))
		logRef = append(logRef, math.Log(hs.RefPct))
		for _, db := range bests {
			from, cfg := db.nearest(g.task)
			cp := CopyPick{Device: db.device, From: features.FormatTask(d.TaskNames, from), Config: cfg}
			cp.Status, cp.Pct = g.score(cfg)
			hs.Copies = append(hs.Copies, cp)
			cr := copies[db.device]
			if cr == nil {
				cr = &CopyResult{Device: db.device}
				copies[db.device] = cr
			}
			switch cp.Status {
			case "failed":
				cr.Failed++
			case "unrecorded":
				cr.Unrecorded++
				continue
			}
			logCopy[db.device] = append(logCopy[db.device], math.Log(cp.Pct))
			if cr.Worst == 0 || cp.Pct < cr.Worst {
				cr.Worst = cp.Pct
			}
			hs.CopyBestPct = max(hs.CopyBestPct, cp.Pct)
		}
		if hs.CopyBestPct > 0 {
			logCopyBest = append(logCopyBest, math.Log(hs.CopyBestPct))
		}
		rep.Shapes = append(rep.Shapes, hs)
	}
	rep.Pct, rep.Top1Pct, rep.RefPct = geomean(logPct), geomean(logTop), geomean(logRef)
	rep.Geomean, rep.PctInterval = rep.Pct, geomeanInterval(logPct)
	rep.CopyBestPct = geomean(logCopyBest)
	rep.TopK = summarizeTopK(rep.Shapes)
	rep.FleetSearchPct, rep.CopyPolicyPct = geomean(logFleet), geomean(logCopyPolicy)
	for _, db := range bests {
		cr := copies[db.device]
		cr.Pct = geomean(logCopy[db.device])
		rep.Copies = append(rep.Copies, *cr)
	}
	return rep, nil
}

// findDevice returns the index of the platform named name (its slug or its
// name, case-insensitive), or an error listing the devices there are.
func findDevice(ps []features.Platform, name string) (int, error) {
	var names []string
	for i, p := range ps {
		if strings.EqualFold(p.Slug(), name) || strings.EqualFold(p.Name, name) {
			return i, nil
		}
		names = append(names, p.Slug())
	}
	return 0, fmt.Errorf("%w: no device %q in the data (have %s)", ErrNoHoldout, name, strings.Join(names, ", "))
}

// score returns the status of configuration name on g and its speed as %
// of g's best; a configuration that failed on the device counts as the
// reference, which is what a library falls back to.
func (g *group) score(name string) (string, float64) {
	if t, ok := g.times[name]; ok {
		return "ok", 100 * g.bestNs / t
	}
	if g.failed[name] {
		return "failed", 100 * g.bestNs / g.refNs
	}
	return "unrecorded", 0
}

// top1 is the % of best of the chooser's model's favourite among g's
// recorded configurations.
func top1(ch *runtime.Chooser, g *group, space *features.Space) float64 {
	top, topScore := "", math.Inf(-1)
	sc := ch.Model().Scorer(g.task)
	for name := range g.times {
		c, _ := space.Parse(name)
		if v := sc.Predict(c); v > topScore || (v == topScore && name < top) {
			top, topScore = name, v
		}
	}
	return 100 * g.bestNs / g.times[top]
}

// deviceBest is the fastest measured configuration of each shape of one
// device.
type deviceBest struct {
	device string
	tasks  []features.Task
	logs   [][]float64
	config []string
}

// deviceBests collects the best configuration of every shape of every
// device of groups but skip, in the order of groups.
func deviceBests(groups []*group, ps []features.Platform, skip int) []*deviceBest {
	var out []*deviceBest
	byPlat := map[int]*deviceBest{}
	for _, g := range groups {
		if g.platform == skip || len(g.times) == 0 {
			continue
		}
		db := byPlat[g.platform]
		if db == nil {
			db = &deviceBest{device: ps[g.platform].Slug()}
			byPlat[g.platform] = db
			out = append(out, db)
		}
		best, bestNs := "", math.Inf(1)
		for name, t := range g.times {
			if t < bestNs || (t == bestNs && name < best) {
				best, bestNs = name, t
			}
		}
		db.tasks = append(db.tasks, g.task)
		db.logs = append(db.logs, logTask(g.task))
		db.config = append(db.config, best)
	}
	return out
}

// nearest returns the device's shape nearest t in log space (t itself when
// measured) and its best configuration.
func (db *deviceBest) nearest(t features.Task) (features.Task, string) {
	l := logTask(t)
	bi, bd := 0, math.Inf(1)
	for i, g := range db.logs {
		d := 0.0
		for f := range l {
			x := l[f] - g[f]
			d += x * x
		}
		if d < bd {
			bi, bd = i, d
		}
	}
	return db.tasks[bi], db.config[bi]
}

func logTask(t features.Task) []float64 {
	out := make([]float64, len(t))
	for i, v := range t {
		out[i] = math.Log(float64(max(v, 1)))
	}
	return out
}
