package eval

import (
	"fmt"
	"math"
	"slices"
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
	ht, err := deviceTargets(d, groups, space, opt)
	if err != nil {
		return nil, err
	}
	var rows []int
	for i, s := range d.Samples() {
		if s.Platform != ht.held {
			rows = append(rows, i)
		}
	}
	rep := &HoldoutReport{Mode: "device", Device: ht.plat.Slug()}
	for pi, p := range d.Platforms {
		if pi != ht.held {
			rep.TrainedOn = append(rep.TrainedOn, p.Slug())
		}
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("%w: --holdout device needs data of another device to train on, have only %s", ErrNoHoldout, ht.plat.Slug())
	}
	chosen := ht.measured()
	if len(chosen) == 0 {
		return nil, fmt.Errorf("%w: no shape of %s has a measured configuration", ErrNoHoldout, ht.plat.Slug())
	}
	opt.say("leave-one-device-out: fleet model on %s, choosing for %d shapes of %s", strings.Join(rep.TrainedOn, ", "), len(chosen), ht.plat.Slug())

	chs, b, learner, err := fitDeviceChoosers(d.Subset(rows), ht.plat, rep, opt)
	if err != nil {
		return nil, err
	}
	bests := deviceBests(groups, d.Platforms, ht.held)
	var tally deviceTally
	for _, g := range chosen {
		hs, err := scoreDeviceShape(chs, g, bests, d.TaskNames, space)
		if err != nil {
			return nil, err
		}
		if err := scoreNewShape(&hs, b, ht.plat, g, space); err != nil {
			return nil, err
		}
		hs.Platform, hs.Learner = ht.plat.Slug(), learner
		tally.add(rep, &hs)
		rep.Shapes = append(rep.Shapes, hs)
	}
	tally.summarize(rep, bests)
	return rep, nil
}

// heldTargets are the held-out device and the groups to choose for.
type heldTargets struct {
	// held indexes the device in the training data: -1 when only the test
	// data has it.
	held int
	// targets are the groups holding the device's shapes, target its index
	// among their platforms, plat its platform features.
	targets []*group
	target  int
	plat    features.Platform
}

// deviceTargets finds opt.HoldoutDevice in d, and in opt.Test when set.
func deviceTargets(d *train.Data, groups []*group, space *features.Space, opt Options) (heldTargets, error) {
	held, err := findDevice(d.Platforms, opt.HoldoutDevice)
	if err != nil && opt.Test == "" {
		return heldTargets{}, err
	}
	if err != nil {
		held = -1
	}
	if opt.Test == "" {
		return heldTargets{held: held, targets: groups, target: held, plat: d.Platforms[held]}, nil
	}
	test, err := train.LoadWith(opt.Test, opt.Kernel, opt.loadOptions(false))
	if err != nil {
		return heldTargets{}, fmt.Errorf("eval: test data: %w", err)
	}
	target, err := findDevice(test.Platforms, opt.HoldoutDevice)
	if err != nil {
		return heldTargets{}, err
	}
	return heldTargets{held: held, targets: groupRows(test, space), target: target, plat: test.Platforms[target]}, nil
}

// measured are the held-out device's shapes with a measured configuration:
// each pick is judged against the shape's fastest recorded one, as
// leave-one-shape-out judges, so a sampled shape counts as a whole space
// does (a pick it never recorded is counted unrecorded).
func (ht heldTargets) measured() []*group {
	var chosen []*group
	for _, g := range ht.targets {
		if g.platform == ht.target && len(g.times) > 0 && g.refNs > 0 {
			chosen = append(chosen, g)
		}
	}
	return chosen
}

// fitDeviceChoosers fits the fleet bundle on fleet, records its unseen
// decision and the runtime's source in rep, and returns the runtime as a
// user's bundle would run it for plat, then with the fleet search and the
// copy policy forced, the bundle, and the learner the selection chose.
func fitDeviceChoosers(fleet *train.Data, plat features.Platform, rep *HoldoutReport, opt Options) ([3]*runtime.Chooser, *features.Bundle, string, error) {
	var chs [3]*runtime.Chooser
	topts := trainOptions(opt)
	b, mr, err := train.FitFleetBundle(fleet, topts)
	if err == nil {
		err = opt.attach(b)
	}
	if err != nil {
		return chs, nil, "", fmt.Errorf("eval: holdout fit: %w", err)
	}
	if rep.Unseen, err = ChooseUnseen(b, fleet, mr); err != nil {
		return chs, nil, "", err
	}
	for i, policy := range []string{"", features.UnseenFleet, features.UnseenCopy} {
		if chs[i], err = runtime.FromBundle(b, runtime.Options{Platform: &plat, Unseen: policy}); err != nil {
			return chs, nil, "", fmt.Errorf("eval: %w", err)
		}
	}
	if s := chs[0].Source(); s != runtime.SourceFleet && s != runtime.SourceCopy {
		return chs, nil, "", fmt.Errorf("eval: the runtime chose model source %q for %s, want the fleet model or copies", s, plat.Slug())
	}
	rep.Policy = chs[0].Source()
	learner := ""
	if mr.Selection != nil {
		learner = mr.Selection.Chosen
	}
	return chs, b, learner, nil
}

// scoreNewShape scores on g the runtime's pick and the copy policy's with
// g's shape removed from b's measured bests, as a shape no device
// measured, into hs (0 when unrecorded).
func scoreNewShape(hs *HoldoutShape, b *features.Bundle, plat features.Platform, g *group, space *features.Space) error {
	mb := *b
	mb.Measured = slices.DeleteFunc(slices.Clone(b.Measured), func(m features.MeasuredBest) bool { return slices.Equal(m.Task, g.task) })
	for _, out := range []struct {
		policy string
		pct    *float64
	}{{"", &hs.NewShapePct}, {features.UnseenCopy, &hs.NewShapeCopyPct}} {
		ch, err := runtime.FromBundle(&mb, runtime.Options{Platform: &plat, Unseen: out.policy})
		if err != nil {
			return fmt.Errorf("eval: %w", err)
		}
		c, err := ch.Choose(g.task)
		if err != nil {
			return fmt.Errorf("eval: %w", err)
		}
		if status, pct := g.score(space.Format(c)); status != "unrecorded" {
			*out.pct = pct
		}
	}
	return nil
}

// scoreDeviceShape scores on g the runtime's pick (chs[0]), the forced
// fleet search and copy policy (chs[1], chs[2]), the model's favourite
// recorded configuration, its top k, and copying each other device's best.
func scoreDeviceShape(chs [3]*runtime.Chooser, g *group, bests []*deviceBest, taskNames []string, space *features.Space) (HoldoutShape, error) {
	ch := chs[0]
	pick, err := ch.ChoosePick(g.task)
	if err != nil {
		return HoldoutShape{}, fmt.Errorf("eval: %w", err)
	}
	hs := HoldoutShape{Shape: features.FormatTask(taskNames, g.task), Chosen: space.Format(pick.Config),
		RefPct: 100 * g.bestNs / g.refNs, Source: pick.Source}
	hs.Status, hs.Pct = g.score(hs.Chosen)
	for i, out := range []*float64{&hs.FleetSearchPct, &hs.CopyPolicyPct} {
		c, err := chs[i+1].Choose(g.task)
		if err != nil {
			return HoldoutShape{}, fmt.Errorf("eval: %w", err)
		}
		if status, pct := g.score(space.Format(c)); status != "unrecorded" {
			*out = pct
		}
	}
	hs.Top1Pct = top1(ch, g, space)
	if hs.TopK, hs.Candidates, err = topK(ch, g, space); err != nil {
		return HoldoutShape{}, err
	}
	for _, db := range bests {
		from, cfg := db.nearest(g.task)
		cp := CopyPick{Device: db.device, From: features.FormatTask(taskNames, from), Config: cfg}
		cp.Status, cp.Pct = g.score(cfg)
		hs.Copies = append(hs.Copies, cp)
		if cp.Status != "unrecorded" {
			hs.CopyBestPct = max(hs.CopyBestPct, cp.Pct)
		}
	}
	return hs, nil
}

// deviceTally gathers the logs of the per-shape figures of a device
// holdout for their geometric means.
type deviceTally struct {
	pct, top, ref, copyBest, fleet, copyPolicy []float64
	newPct, newCopy                            []float64
	copy                                       map[string][]float64
	copies                                     map[string]*CopyResult
}

// add counts hs into t and rep's failed, unrecorded and worst picks.
func (t *deviceTally) add(rep *HoldoutReport, hs *HoldoutShape) {
	if t.copy == nil {
		t.copy, t.copies = map[string][]float64{}, map[string]*CopyResult{}
	}
	if hs.FleetSearchPct > 0 {
		t.fleet = append(t.fleet, math.Log(hs.FleetSearchPct))
	}
	if hs.CopyPolicyPct > 0 {
		t.copyPolicy = append(t.copyPolicy, math.Log(hs.CopyPolicyPct))
	}
	if hs.NewShapePct > 0 {
		t.newPct = append(t.newPct, math.Log(hs.NewShapePct))
		if rep.NewShapesWorst == 0 || hs.NewShapePct < rep.NewShapesWorst {
			rep.NewShapesWorst = hs.NewShapePct
		}
	}
	if hs.NewShapeCopyPct > 0 {
		t.newCopy = append(t.newCopy, math.Log(hs.NewShapeCopyPct))
	}
	switch hs.Status {
	case "failed":
		rep.Failed++
	case "unrecorded":
		rep.Unrecorded++
	}
	if hs.Status != "unrecorded" {
		t.pct = append(t.pct, math.Log(hs.Pct))
		if rep.Worst == 0 || hs.Pct < rep.Worst {
			rep.Worst = hs.Pct
		}
	}
	t.top = append(t.top, math.Log(hs.Top1Pct))
	t.ref = append(t.ref, math.Log(hs.RefPct))
	for _, cp := range hs.Copies {
		cr := t.copies[cp.Device]
		if cr == nil {
			cr = &CopyResult{Device: cp.Device}
			t.copies[cp.Device] = cr
		}
		switch cp.Status {
		case "failed":
			cr.Failed++
		case "unrecorded":
			cr.Unrecorded++
			continue
		}
		t.copy[cp.Device] = append(t.copy[cp.Device], math.Log(cp.Pct))
		if cr.Worst == 0 || cp.Pct < cr.Worst {
			cr.Worst = cp.Pct
		}
	}
	if hs.CopyBestPct > 0 {
		t.copyBest = append(t.copyBest, math.Log(hs.CopyBestPct))
	}
}

// summarize writes the geometric means into rep, the copies in the order
// of bests.
func (t *deviceTally) summarize(rep *HoldoutReport, bests []*deviceBest) {
	rep.Pct, rep.Top1Pct, rep.RefPct = geomean(t.pct), geomean(t.top), geomean(t.ref)
	rep.Geomean, rep.PctInterval = rep.Pct, geomeanInterval(t.pct)
	rep.CopyBestPct = geomean(t.copyBest)
	rep.TopK = summarizeTopK(rep.Shapes)
	rep.FleetSearchPct, rep.CopyPolicyPct = geomean(t.fleet), geomean(t.copyPolicy)
	rep.NewShapesPct, rep.NewShapesCopyPct = geomean(t.newPct), geomean(t.newCopy)
	for _, db := range bests {
		cr := t.copies[db.device]
		cr.Pct = geomean(t.copy[db.device])
		rep.Copies = append(rep.Copies, *cr)
	}
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
// device of groups but skip, in the order of groups; of configurations
// equally fast, the first by name, as the bundle's measured bests
// (train.MeasuredBests), which the runtime copies.
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
		db.logs = append(db.logs, features.TaskLogs(nil, g.task))
		db.config = append(db.config, best)
	}
	return out
}

// nearest returns the device's shape nearest t in log space (t itself when
// measured) and its best configuration.
func (db *deviceBest) nearest(t features.Task) (features.Task, string) {
	bi := features.LogShapes(db.logs).NearestOne(features.TaskLogs(nil, t))
	return db.tasks[bi], db.config[bi]
}
