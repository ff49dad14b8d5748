package eval

import (
	"fmt"
	"math"

	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/runtime"
	"github.com/augur-tuning/augur/train"
)

// UnseenReport is what ChooseUnseen measured: each held-out device's
// picks under each policy.
type UnseenReport struct {
	Policy  string         `json:"policy"`
	Devices []UnseenDevice `json:"devices"`
}

// UnseenDevice is one device held out of the fleet.
type UnseenDevice struct {
	Device string `json:"device"`
	Shapes int    `json:"shapes"`
	// Pct is each policy's geometric mean over the device's shapes, in %
	// of each shape's best measured configuration.
	Pct map[string]float64 `json:"pct_of_best"`
	// Judged counts each policy's picks that the device did not measure,
	// which its own model scored.
	Judged map[string]int `json:"judged"`
}

// unseenPolicies are the policies leave-one-device-out compares.
var unseenPolicies = []string{features.UnseenCopy, features.UnseenFleet}

// judge is the learner of the held-out device's own model, which scores
// the picks the device did not measure: train's default boosted trees,
// cheap beside the fleet models of the folds.
var judge = train.GBRTOptions{}

// ChooseUnseen chooses the runtime's policy for a device that bundle b
// has no model of (features.UnseenCopy or features.UnseenFleet), sets it
// as b.Unseen and returns what it measured. d is the data b's fleet model
// was fitted on and fleet that model's report (from train.Train or
// train.FitFleetBundle).
//
// It leaves each device of d out in turn: the others' fleet model, fitted
// with fleet's learner (train.RefitFleetBundle: not selected anew), and
// their measured bests pick, through the runtime, for the held-out
// device's shapes with its platform features; each pick is scored by what
// the device measured, or by the device's own model for a configuration it
// did not measure. Copying wins unless the fleet model's search did at
// least as well on every held-out device: the product promises never to
// fall below copying another device's best, and a policy that lost on a
// device of the training fleet may lose on a new one. For data of fewer
// than two devices it sets b.Unseen to nil and returns nil.
func ChooseUnseen(b *features.Bundle, d *train.Data, fleet train.ModelReport) (*UnseenReport, error) {
	u, rep, err := chooseUnseen(d, fleet)
	if err != nil {
		return nil, err
	}
	b.Unseen = u
	return rep, nil
}

// chooseUnseen is ChooseUnseen's measurement: the policy (nil when no
// device could be scored) and the report, both nil for data of fewer than
// two devices.
func chooseUnseen(d *train.Data, fleet train.ModelReport) (*features.UnseenPolicy, *UnseenReport, error) {
	present := map[int]bool{}
	for _, s := range d.Samples() {
		present[s.Platform] = true
	}
	if len(present) < 2 {
		// A Subset keeps every platform of the data it came from.
		return nil, nil, nil
	}
	rep := &UnseenReport{}
	u := &features.UnseenPolicy{PctGeomean: map[string]float64{}, PctWorstDevice: map[string]float64{}}
	logSum := map[string]float64{}
	for held := range d.Platforms {
		if !present[held] {
			continue
		}
		dev, err := unseenDevice(d, held, fleet)
		if err != nil {
			return nil, nil, err
		}
		if dev == nil {
			continue
		}
		rep.Devices = append(rep.Devices, *dev)
		u.Devices++
		u.Shapes += dev.Shapes
		for _, p := range unseenPolicies {
			logSum[p] += math.Log(dev.Pct[p])
			if w, ok := u.PctWorstDevice[p]; !ok || dev.Pct[p] < w {
				u.PctWorstDevice[p] = dev.Pct[p]
			}
		}
	}
	if u.Devices == 0 {
		return nil, rep, nil
	}
	u.Policy = unseenRule(rep.Devices)
	for _, p := range unseenPolicies {
		u.PctGeomean[p] = math.Exp(logSum[p] / float64(u.Devices))
	}
	rep.Policy = u.Policy
	return u, rep, nil
}

// unseenRule is the policy the held-out devices' scores call for: the
// fleet model's search only when it did at least as well as copying on
// every device, else copying.
func unseenRule(devs []UnseenDevice) string {
	if len(devs) == 0 {
		return features.UnseenCopy
	}
	for _, d := range devs {
		if !(d.Pct[features.UnseenFleet] >= d.Pct[features.UnseenCopy]) {
			return features.UnseenCopy
		}
	}
	return features.UnseenFleet
}

// unseenDevice scores each policy's picks for the shapes of device held
// with a bundle of the other devices' data, fitted with fleet's learner;
// nil when held measured no shape with its reference.
func unseenDevice(d *train.Data, held int, fleet train.ModelReport) (*UnseenDevice, error) {
	var rows, own []int
	for i, s := range d.Samples() {
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
	plat := d.Platforms[held]
	dev := &UnseenDevice{Device: plat.Slug(), Shapes: len(sc.shapes), Pct: map[string]float64{}, Judged: map[string]int{}}
	for _, p := range unseenPolicies {
		ch, err := runtime.FromBundle(b, runtime.Options{Platform: &plat, Unseen: p})
		if err != nil {
			return nil, fmt.Errorf("eval: unseen device %s: %w", plat.Slug(), err)
		}
		logSum := 0.0
		for _, s := range sc.shapes {
			c, err := ch.Choose(s.task)
			if err != nil {
				return nil, fmt.Errorf("eval: unseen device %s: %w", plat.Slug(), err)
			}
			pct, judged := sc.score(s, c)
			logSum += math.Log(pct)
			if judged {
				dev.Judged[p]++
			}
		}
		dev.Pct[p] = math.Exp(logSum / float64(len(sc.shapes)))
	}
	return dev, nil
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
