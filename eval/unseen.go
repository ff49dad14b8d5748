package eval

import (
	"fmt"
	"math"
	"slices"

	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/runtime"
	"github.com/augur-tuning/augur/train"
)

// UnseenReport is what ChooseUnseen measured: each held-out device's
// picks under each policy, on the shapes that the devices it could copy
// from measured and on all its shapes as new ones.
type UnseenReport struct {
	// Policy is the policy for a shape a copy source measured, NewShapes
	// the one for a shape none did (features.UnseenPolicy).
	Policy    string         `json:"policy"`
	NewShapes string         `json:"new_shapes"`
	Devices   []UnseenDevice `json:"devices"`
	// Own is what decided NewShapes for data of one device, which no
	// device can be left out of; nil otherwise.
	Own *UnseenOwn `json:"own,omitempty"`
}

// UnseenOwn is the one device's evidence for the policy of new shapes on
// another device: on its own shapes, each held out, the model's picks
// (from the learner selection's held-out shapes) against copying its best
// of the nearest other shape.
type UnseenOwn struct {
	Device   string  `json:"device"`
	Shapes   int     `json:"shapes"`
	ModelPct float64 `json:"model_pct_of_best"`
	CopyPct  float64 `json:"copy_pct_of_best"`
}

// UnseenDevice is one device held out of the fleet.
type UnseenDevice struct {
	Device string `json:"device"`
	// SameType says the other devices included one of the device's type
	// (Platform.Type), which the runtime's copies then come from; when
	// any held-out device has one, only those decide the policies.
	SameType bool `json:"same_type"`
	// Shapes counts the device's shapes that a device it could copy from
	// measured too; Pct is each policy's geometric mean over them, in % of
	// each shape's best measured configuration (nil when Shapes is 0).
	Shapes int                `json:"shapes"`
	Pct    map[string]float64 `json:"pct_of_best"`
	// NewShapes counts all the device's shapes; NewPct is each policy's
	// geometric mean over them with each shape removed from the other
	// devices' measured bests, as a shape no device measured.
	NewShapes int                `json:"new_shapes"`
	NewPct    map[string]float64 `json:"new_pct_of_best"`
	// Judged counts each policy's picks that the device did not measure,
	// which its own model scored, over both scorings.
	Judged map[string]int `json:"judged"`
}

// unseenPolicies are the policies leave-one-device-out compares.
var unseenPolicies = []string{features.UnseenCopy, features.UnseenFleet}

// judge is the learner of the held-out device's own model, which scores
// the picks the device did not measure: train's default boosted trees,
// cheap beside the fleet models of the folds.
var judge = train.GBRTOptions{}

// ChooseUnseen chooses the runtime's policies for a device that bundle b
// has no model of (features.UnseenCopy or features.UnseenFleet), for a
// shape another device measured and for a new shape, sets them as
// b.Unseen and returns what it measured. d is the data b's fleet model was
// fitted on and fleet that model's report (from train.Train or
// train.FitFleetBundle).
//
// It leaves each device of d out in turn: the others' fleet model, fitted
// with fleet's learner (train.RefitFleetBundle: not selected anew), and
// their measured bests pick, through the runtime, for the held-out
// device's shapes with its platform features; each pick is scored by what
// the device measured, or by the device's own model for a configuration it
// did not measure. The policy for measured shapes is scored on the shapes
// that the devices it copies from measured; the one for new shapes on all
// its shapes, each removed from the others' measured bests while it is
// chosen for, so that a copy comes from a nearby shape as it would for a
// shape no device measured. For each, copying wins unless the fleet
// model's search did at least as well on every held-out device that had
// another of its type to copy from (every held-out device when none had):
// the product promises never to fall below copying another device's best,
// and a policy that lost on a device of the training fleet may lose on a
// new one. For data of one device, which no device can be left out of,
// the device's own held-out shapes decide the policy for new shapes
// (oneDevice; a bundle that Bundle trains on one device has no fleet model
// and records none: its only model serves a new device, copying its
// measured shapes' bests from its table and searching for the rest). For
// data of no device, or of one whose learner was not selected on held-out
// shapes, it sets b.Unseen to nil and returns nil.
func ChooseUnseen(b *features.Bundle, d *train.Data, fleet train.ModelReport) (*UnseenReport, error) {
	u, rep, err := chooseUnseen(b, d, fleet)
	if err != nil {
		return nil, err
	}
	b.Unseen = u
	return rep, nil
}

// chooseUnseen is ChooseUnseen's measurement: the policy (nil when no
// device could be scored) and the report, both nil for data of fewer than
// two devices. The bundles it refits define their kernel as b does.
func chooseUnseen(b *features.Bundle, d *train.Data, fleet train.ModelReport) (*features.UnseenPolicy, *UnseenReport, error) {
	present := map[int]bool{}
	for _, s := range d.Samples() {
		present[s.Platform] = true
	}
	if len(present) == 1 {
		// A Subset keeps every platform of the data it came from.
		for p := range present {
			return oneDevice(d, d.Platforms[p].Slug(), fleet)
		}
	}
	if len(present) == 0 {
		return nil, nil, nil
	}
	rep := &UnseenReport{}
	for held := range d.Platforms {
		if !present[held] {
			continue
		}
		dev, err := unseenDevice(b, d, held, fleet)
		if err != nil {
			return nil, nil, err
		}
		if dev != nil {
			rep.Devices = append(rep.Devices, *dev)
		}
	}
	if len(rep.Devices) == 0 {
		return nil, rep, nil
	}
	u := decideUnseen(rep.Devices)
	rep.Policy, rep.NewShapes = u.Policy, u.NewShapes
	return u, rep, nil
}

// decideUnseen is the policy that the held-out devices' scores call for
// (unseenRule on each scoring), decided by the devices that had another of
// their type to copy from when any had. devs must not be empty.
func decideUnseen(devs []UnseenDevice) *features.UnseenPolicy {
	deciding := devs
	if slices.ContainsFunc(devs, func(dv UnseenDevice) bool { return dv.SameType }) {
		deciding = slices.DeleteFunc(slices.Clone(devs), func(dv UnseenDevice) bool { return !dv.SameType })
	}
	u := &features.UnseenPolicy{Devices: len(devs)}
	for _, dv := range devs {
		u.Shapes += dv.NewShapes
	}
	var measured, fresh [][2]float64 // each deciding device's (copy, fleet)
	for _, dv := range deciding {
		if dv.Pct != nil {
			measured = append(measured, [2]float64{dv.Pct[features.UnseenCopy], dv.Pct[features.UnseenFleet]})
		}
		fresh = append(fresh, [2]float64{dv.NewPct[features.UnseenCopy], dv.NewPct[features.UnseenFleet]})
	}
	u.Policy, u.PctGeomean, u.PctWorstDevice = unseenRule(measured)
	u.NewShapes, u.NewPctGeomean, u.NewPctWorstDevice = unseenRule(fresh)
	return u
}

// oneDevice is chooseUnseen for data of one device: copying for the
// shapes it measured, and for new shapes what its own shapes call for,
// with no device to leave out: the model's search when its picks on
// held-out shapes (fleet's learner selection, on folds of the shapes) did
// at least as well as copying the best of each shape's nearest other one;
// copying when the learner was not selected on held-out shapes.
func oneDevice(d *train.Data, device string, fleet train.ModelReport) (*features.UnseenPolicy, *UnseenReport, error) {
	sel := fleet.Selection
	if sel == nil || sel.HeldOut != "shapes" {
		return nil, nil, nil
	}
	model := 0.0
	for _, sc := range sel.Scores {
		if sc.Name == sel.Chosen {
			model = sc.PctGeomean
		}
	}
	if c := sel.Consensus; c != nil && c.Applied {
		model = c.PctGeomean
	}
	sc, err := newShapeScores(d)
	if err != nil || len(sc.shapes) < 2 || !(model > 0) {
		return nil, nil, err
	}
	logs := make([][]float64, len(sc.shapes))
	for i, s := range sc.shapes {
		logs[i] = features.TaskLogs(nil, s.task)
	}
	sum := 0.0
	idx := make([]int, 2)
	for i, s := range sc.shapes {
		// The nearest shape but itself: of its two nearest, the other.
		features.LogShapes(logs).Nearest(logs[i], idx)
		j := idx[0]
		if j == i {
			j = idx[1]
		}
		pct, _ := sc.score(s, sc.shapes[j].best)
		sum += math.Log(pct)
	}
	own := &UnseenOwn{Device: device, Shapes: len(sc.shapes), ModelPct: model, CopyPct: math.Exp(sum / float64(len(sc.shapes)))}
	fresh := features.UnseenCopy
	if own.ModelPct >= own.CopyPct {
		fresh = features.UnseenFleet
	}
	u := &features.UnseenPolicy{Policy: features.UnseenCopy, NewShapes: fresh, Shapes: own.Shapes,
		NewPctGeomean: map[string]float64{features.UnseenCopy: own.CopyPct, features.UnseenFleet: own.ModelPct}}
	return u, &UnseenReport{Policy: u.Policy, NewShapes: fresh, Own: own}, nil
}

// unseenRule is the policy that the deciding devices' (copy, fleet)
// scores call for: the fleet model's search only when it did at least as
// well as copying on every device, else copying; and each policy's
// geometric mean and worst over the devices (nil for no device).
func unseenRule(devs [][2]float64) (string, map[string]float64, map[string]float64) {
	if len(devs) == 0 {
		return features.UnseenCopy, nil, nil
	}
	policy := features.UnseenFleet
	geo, worst := map[string]float64{}, map[string]float64{}
	for i, p := range unseenPolicies {
		sum := 0.0
		for _, dv := range devs {
			sum += math.Log(dv[i])
			if w, ok := worst[p]; !ok || dv[i] < w {
				worst[p] = dv[i]
			}
		}
		geo[p] = math.Exp(sum / float64(len(devs)))
	}
	for _, dv := range devs {
		if !(dv[1] >= dv[0]) {
			policy = features.UnseenCopy
		}
	}
	return policy, geo, worst
}

// unseenDevice scores each policy's picks for the shapes of device held
// with a bundle of the other devices' data, fitted with fleet's learner:
// on the shapes a device it could copy from measured, and on every shape
// as a new one; nil when held measured no shape with its reference. The
// bundle it refits takes of's kernel definition: a kernel read from a spec
// file, which the runtime needs to derive its features.
func unseenDevice(of *features.Bundle, d *train.Data, held int, fleet train.ModelReport) (*UnseenDevice, error) {
	var rows, own []int
	present := make([]bool, len(d.Platforms))
	for i, s := range d.Samples() {
		present[s.Platform] = true
		if s.Platform == held {
			own = append(own, i)
		} else {
			rows = append(rows, i)
		}
	}
	sc, err := newShapeScores(d.Subset(own))
	if err != nil || len(sc.shapes) == 0 {
		return nil, err
	}
	b, err := train.RefitFleetBundle(d.Subset(rows), fleet)
	if err != nil {
		return nil, err
	}
	b.KernelSpec, b.KernelSource, b.SpecFiles = of.KernelSpec, of.KernelSource, of.SpecFiles
	plat := d.Platforms[held]
	dev := &UnseenDevice{Device: plat.Slug(), NewShapes: len(sc.shapes), NewPct: map[string]float64{}, Judged: map[string]int{}}
	sources := copySources(d.Platforms, present, held)
	for pi := range d.Platforms {
		dev.SameType = dev.SameType || (pi != held && sources[pi] && plat.Type != "" && d.Platforms[pi].Type == plat.Type)
	}
	copied := map[features.TaskKey]bool{}
	for _, m := range b.Measured {
		if pi := slices.IndexFunc(d.Platforms, func(p features.Platform) bool { return p.Slug() == m.Device }); pi >= 0 && sources[pi] {
			copied[m.Task.Key()] = true
		}
	}
	var logs [2]map[string]float64 // measured shapes, new shapes
	logs[0], logs[1] = map[string]float64{}, map[string]float64{}
	for _, p := range unseenPolicies {
		ch, err := runtime.FromBundle(b, runtime.Options{Platform: &plat, Unseen: p})
		if err != nil {
			return nil, fmt.Errorf("eval: unseen device %s: %w", plat.Slug(), err)
		}
		for _, s := range sc.shapes {
			c, err := ch.Choose(s.task)
			if err != nil {
				return nil, fmt.Errorf("eval: unseen device %s: %w", plat.Slug(), err)
			}
			known := copied[s.task.Key()]
			asNew := c
			if p == features.UnseenCopy && known {
				if asNew, err = copyWithout(b, plat, s.task); err != nil {
					return nil, err
				}
			}
			pct, judged := sc.score(s, asNew)
			logs[1][p] += math.Log(pct)
			if known {
				pct, judgedKnown := sc.score(s, c)
				logs[0][p] += math.Log(pct)
				judged = judged || judgedKnown
			}
			if judged {
				dev.Judged[p]++
			}
		}
		dev.NewPct[p] = math.Exp(logs[1][p] / float64(len(sc.shapes)))
	}
	for _, s := range sc.shapes {
		if copied[s.task.Key()] {
			dev.Shapes++
		}
	}
	if dev.Shapes > 0 {
		dev.Pct = map[string]float64{}
		for _, p := range unseenPolicies {
			dev.Pct[p] = math.Exp(logs[0][p] / float64(dev.Shapes))
		}
	}
	return dev, nil
}

// copySources are the devices of ps with data (present) that the runtime
// would copy from for device held: those of its type when there are any
// (runtime's unseenPolicy), else every other.
func copySources(ps []features.Platform, present []bool, held int) []bool {
	typ := ps[held].Type
	other := func(pi int) bool { return pi != held && present[pi] }
	same := false
	for pi, p := range ps {
		same = same || (other(pi) && typ != "" && p.Type == typ)
	}
	out := make([]bool, len(ps))
	for pi, p := range ps {
		out[pi] = other(pi) && (!same || p.Type == typ)
	}
	return out
}

// copyWithout is the copy policy's pick for t on plat with t removed from
// b's measured bests, as for a shape no device measured.
func copyWithout(b *features.Bundle, plat features.Platform, t features.Task) (features.Config, error) {
	mb := *b
	mb.Measured = slices.DeleteFunc(slices.Clone(b.Measured), func(m features.MeasuredBest) bool { return slices.Equal(m.Task, t) })
	ch, err := runtime.FromBundle(&mb, runtime.Options{Platform: &plat, Unseen: features.UnseenCopy})
	if err != nil {
		return nil, fmt.Errorf("eval: unseen device %s: %w", plat.Slug(), err)
	}
	c, err := ch.Choose(t)
	if err != nil {
		return nil, fmt.Errorf("eval: unseen device %s: %w", plat.Slug(), err)
	}
	return c, nil
}

// shapeScores scores configurations on one device's shapes: by the
// measured times where it measured them, else by its own model.
type shapeScores struct {
	d      *train.Data
	enc    features.Encoder
	pv     []float64
	space  *features.Space
	model  train.Regressor
	shapes []*shapeScore
}

// shapeScore is what one shape of the device measured.
type shapeScore struct {
	task          features.Task
	bestNs, refNs float64
	best          features.Config
	timeNs        map[int]float64 // by Space.Index; 0: the configuration failed
}

func newShapeScores(d *train.Data) (*shapeScores, error) {
	space, err := features.NewSpace(d.Params, d.Constraints)
	if err != nil {
		return nil, fmt.Errorf("eval: %w", err)
	}
	enc := d.Encoder()
	if enc.Len() != len(d.Features) {
		return nil, fmt.Errorf("eval: encoder has %d features, data %d", enc.Len(), len(d.Features))
	}
	sc := &shapeScores{d: d, enc: enc, space: space, pv: d.Platforms[0].Vector()}
	at := map[features.TaskKey]*shapeScore{}
	for _, s := range d.Samples() {
		sh := at[s.Task.Key()]
		if sh == nil {
			sh = &shapeScore{task: s.Task, timeNs: map[int]float64{}}
			at[s.Task.Key()] = sh
			sc.shapes = append(sc.shapes, sh)
		}
		i := space.Index(s.Config)
		if !s.Measured() {
			if _, ok := sh.timeNs[i]; !ok {
				sh.timeNs[i] = 0
			}
			continue
		}
		sh.timeNs[i] = s.TimeNs
		sh.refNs = s.RefTimeNs
		if sh.best == nil || s.TimeNs < sh.bestNs {
			sh.best, sh.bestNs = s.Config, s.TimeNs
		}
	}
	kept := sc.shapes[:0]
	for _, sh := range sc.shapes {
		if sh.best != nil {
			kept = append(kept, sh)
		}
	}
	sc.shapes = kept
	if len(kept) == 0 {
		return sc, nil
	}
	sc.model, err = train.FitRows(judge, d, nil)
	if err != nil {
		return nil, fmt.Errorf("eval: judge model: %w", err)
	}
	return sc, nil
}

// score returns c's speed on shape s in % of the best measured, and
// whether the device's model scored it: a configuration the device did not
// measure is as fast as the model predicts relative to the best measured
// one, at most as fast. A configuration that failed counts as the
// reference, which is what a library falls back to.
func (sc *shapeScores) score(s *shapeScore, c features.Config) (float64, bool) {
	if t, ok := s.timeNs[sc.space.Index(c)]; ok {
		if t == 0 {
			return 100 * s.bestNs / s.refNs, false
		}
		return 100 * s.bestNs / t, false
	}
	x := make([]float64, sc.enc.Len())
	sc.enc.Encode(x, s.task, c, sc.pv)
	v := sc.model.Predict(x)
	sc.enc.Encode(x, s.task, s.best, sc.pv)
	return 100 * math.Exp(min(0, v-sc.model.Predict(x))), true
}
