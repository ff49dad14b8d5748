package predict

import (
	"bufio"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/predict/lightgbm"
	"github.com/dmitryikh/leaves"
)

// ErrNoModel is returned when a bundle holds no model of the requested name.
var ErrNoModel = errors.New("predict: no such model")

// maxFeatures bounds the encoded vector so that scoring can use a stack
// buffer and allocate nothing.
const maxFeatures = 64

// Model is one loaded surrogate: a tree ensemble plus the encoder and
// platform vector that turn a (task, config) into its input. A Model is
// safe for concurrent use.
type Model struct {
	// Name is the bundle's name for the model: a platform slug or "fleet".
	Name string
	// Kind is the learner that produced it ("gbrt", "rf").
	Kind string

	ens    *leaves.Ensemble
	flat   *flatModel // nil when the model has splits flat does not handle
	whole  specialized
	wholeU unified // built only when heapOK is false
	// wholeH is whole in heap order, when heapOK: what ScoreBatch
	// walks for a model it does not fold.
	wholeH heapModel
	heapOK bool
	// limits are Model.Limits as (position among the derived features,
	// largest value) pairs.
	limits   []limit
	enc      features.Encoder
	platform []float64
	trees    int
	// lo and hi are the range of the targets the model was trained on
	// (lightgbm.ParamTargetRange), valid when ranged is set.
	lo, hi float64
	ranged bool
}

// Load loads the named model of a bundle. An empty name picks the bundle's
// only model, or its "fleet" model when it has several.
func Load(b *features.Bundle, name string, d features.Deriver) (*Model, error) {
	entry, err := pick(b, name)
	if err != nil {
		return nil, err
	}
	// The strict reader goes first: leaves can panic or loop forever on a
	// damaged file (an index out of range, a cycle of children).
	lgm, err := lightgbm.Parse(entry.LightGBM)
	if err != nil {
		return nil, fmt.Errorf("predict: model %q: %w", entry.Name, err)
	}
	if err := lgm.Regression(); err != nil {
		return nil, fmt.Errorf("predict: model %q: %w", entry.Name, err)
	}
	enc, err := b.Encoder(d)
	if err != nil {
		return nil, fmt.Errorf("predict: %w", err)
	}
	if lgm.NumFeatures() != enc.Len() {
		return nil, fmt.Errorf("predict: model %q has %d features, bundle schema has %d", entry.Name, lgm.NumFeatures(), enc.Len())
	}
	ens, err := leaves.LGEnsembleFromReader(bufio.NewReader(strings.NewReader(entry.LightGBM)), false)
	if err != nil {
		return nil, fmt.Errorf("predict: model %q: %w", entry.Name, err)
	}
	if enc.Len() > maxFeatures {
		return nil, fmt.Errorf("predict: model %q has %d features, at most %d supported", entry.Name, enc.Len(), maxFeatures)
	}
	// The platform features the bundle's models take: all of them, or
	// the first ten in a bundle written before the measured ones.
	var pv []float64
	if entry.Platform != nil {
		pv = enc.PlatformVector(*entry.Platform)
	} else {
		pv = make([]float64, enc.NumPlatform())
	}
	m := &Model{Name: entry.Name, Kind: entry.Kind, ens: ens, enc: enc, platform: pv, trees: ens.NEstimators()}
	m.lo, m.hi, m.ranged = lgm.TargetRange()
	if m.limits, err = m.limitsOf(entry.Limits); err != nil {
		return nil, err
	}
	if flat := flatFrom(lgm); len(flat.trees) == m.trees &&
		flat.agrees(func(x []float64) float64 { return ens.PredictSingle(x, m.trees) }, enc.Len()) {
		m.flat = flat
		// The whole model in contiguous arrays, for scorers that do not
		// fold (a configuration's columns are at most every column).
		m.whole = flat.specialize(nil, 0, enc.Len())
		m.wholeH, m.heapOK = heapFrom(&m.whole)
		if !m.heapOK {
			m.wholeU = m.whole.unify()
		}
	}
	return m, nil
}

func pick(b *features.Bundle, name string) (*features.Model, error) {
	var names []string
	for i := range b.Models {
		names = append(names, b.Models[i].Name)
		if b.Models[i].Name == name {
			return &b.Models[i], nil
		}
	}
	if name == "" {
		switch len(b.Models) {
		case 0:
			return nil, fmt.Errorf("%w: the bundle has no models", ErrNoModel)
		case 1:
			return &b.Models[0], nil
		}
		for i := range b.Models {
			if b.Models[i].Name == "fleet" {
				return &b.Models[i], nil
			}
		}
		return nil, fmt.Errorf("%w: bundle has several models and no fleet model; name one of %s", ErrNoModel, strings.Join(names, ", "))
	}
	return nil, fmt.Errorf("%w: %q (bundle has %s)", ErrNoModel, name, strings.Join(names, ", "))
}

// WithPlatform returns a copy of the model that encodes p as the platform.
// Use it to ask a fleet model about a device that was not in its data.
func (m *Model) WithPlatform(p features.Platform) *Model {
	c := *m
	c.platform = m.enc.PlatformVector(p)
	return &c
}

// Encoder returns the model's input layout.
func (m *Model) Encoder() features.Encoder { return m.enc }

// Check returns an error when t or c has the wrong length for the model.
func (m *Model) Check(t features.Task, c features.Config) error {
	if err := m.enc.Check(t, c, m.platform); err != nil {
		return fmt.Errorf("predict: %w", err)
	}
	return nil
}

// Predict returns the predicted log-speedup of c on t over the reference
// configuration, clamped to the range of the model's training targets
// when it records one (see Clamp). t and c must have the lengths the model
// was trained on (see Check); Predict does not allocate.
func (m *Model) Predict(t features.Task, c features.Config) float64 {
	v, _ := m.PredictClamped(t, c)
	return v
}

// PredictClamped is Predict, and whether the model's raw prediction lay
// outside the range of its training targets and was clamped to it.
func (m *Model) PredictClamped(t features.Task, c features.Config) (float64, bool) {
	return m.Clamp(m.predictRaw(t, c))
}

// TargetRange returns the least and the greatest log-speedup the model
// saw in training, as its trainer recorded them; ok is false for a model
// that records none (one written before the range was, or LightGBM's
// own), whose predictions are never clamped.
func (m *Model) TargetRange() (lo, hi float64, ok bool) { return m.lo, m.hi, m.ranged }

// Clamp returns v limited to the model's training-target range
// (TargetRange), and whether it had to be. A tree ensemble predicts
// beyond the targets it saw only by extrapolating, and a damaged or
// hostile model can predict anything (e^99, issue 26): a value clamped is
// one not to trust. Without a range v comes back as is.
func (m *Model) Clamp(v float64) (float64, bool) {
	switch {
	case !m.ranged:
		return v, false
	case v < m.lo:
		return m.lo, true
	case v > m.hi:
		return m.hi, true
	}
	return v, false
}

// predictRaw is Predict before the clamp.
func (m *Model) predictRaw(t features.Task, c features.Config) float64 {
	if m.flat == nil {
		return m.leavesPredict(t, c)
	}
	var buf [maxFeatures]float64
	x := buf[:m.enc.Len()]
	m.enc.Encode(x, t, c, m.platform)
	return m.flat.predict(x)
}

// leavesPredict scores with leaves, whose interface calls make the vector
// escape to the heap; it serves models the flat evaluator does not take.
func (m *Model) leavesPredict(t features.Task, c features.Config) float64 {
	x := make([]float64, m.enc.Len())
	m.enc.Encode(x, t, c, m.platform)
	return m.ens.PredictSingle(x, m.trees)
}

// limit bounds one derived feature.
type limit struct {
	derived int
	max     float64
}

// limitsOf turns limits by derived feature name (Model.Limits) into
// positions among m's derived features, in name order.
func (m *Model) limitsOf(limits map[string]float64) ([]limit, error) {
	if m.enc.Derived == nil {
		return nil, nil
	}
	names := m.enc.Derived.Names()
	var out []limit
	for _, name := range slices.Sorted(maps.Keys(limits)) {
		i := slices.Index(names, name)
		if i < 0 {
			return nil, fmt.Errorf("predict: model %q limits %q, which is not one of its derived features", m.Name, name)
		}
		out = append(out, limit{i, limits[name]})
	}
	return out, nil
}

// WithLimits returns a copy of m that keeps to limits (by derived feature
// name, as features.Model.Limits) instead of its own: a fleet model
// serving a device with the limits of the devices of its type.
func (m *Model) WithLimits(limits map[string]float64) (*Model, error) {
	l, err := m.limitsOf(limits)
	if err != nil {
		return nil, err
	}
	c := *m
	c.limits = l
	return &c, nil
}

// Scorer scores configurations for one fixed shape, faster than Predict:
// the splits on task and platform features are resolved once, when the
// Scorer is made. Its predictions equal Predict's before the clamp, up to
// rounding (the trees are summed in another order): a Scorer ranks, and
// clamping would tie every configuration the model rates beyond its
// training range, so a caller that reports a score clamps it with
// Model.Clamp. A Scorer is safe for concurrent use.
type Scorer struct {
	m                 *Model
	task              features.Task
	sp                specialized
	folded            bool
	base              [maxFeatures]float64 // the task and platform columns
	at                int                  // the first parameter's column
	nParams, nDerived int
	batch             []float64 // ScoreBatch's feature vectors, reused
	u                 unified
}

// Scorer returns a Scorer for shape t, which must have the model's task
// length (see Check).
func (m *Model) Scorer(t features.Task) *Scorer {
	s := &Scorer{m: m, task: t}
	if m.flat == nil {
		return s
	}
	s.nParams = len(m.enc.ParamNames)
	s.nDerived = m.enc.NumDerived()
	s.at = len(m.enc.TaskNames)
	// Only the task and platform columns are read when folding; the
	// configuration's columns are filled per prediction.
	x := s.base[:m.enc.Len()]
	for i, v := range t {
		x[i] = float64(v)
	}
	copy(x[len(x)-len(m.platform):], m.platform)
	if len(m.whole.nodes) <= foldMaxNodes {
		s.sp = m.flat.specialize(x, s.at, s.nParams+s.nDerived)
		s.folded = true
		s.u = s.sp.unify()
	} else {
		s.sp = m.whole
		s.u = m.wholeU
	}
	return s
}

// foldMaxNodes is the largest model (in internal nodes) that Scorer folds
// per shape. Folding copies every node a configuration can reach, which
// for deep models costs more than it saves over the few dozen predictions
// of one Choose; those are scored on the whole vector instead.
const foldMaxNodes = 4096

// Predict returns the predicted log-speedup of c on the scorer's shape.
// It does not allocate.
func (s *Scorer) Predict(c features.Config) float64 {
	v, _ := s.score(c, false)
	return v
}

// Score returns the predicted log-speedup of c and whether c lies within
// the model's limits (Model.Limits): a configuration beyond them uses more
// of a device resource than any that ran in the training data. It does not
// allocate.
func (s *Scorer) Score(c features.Config) (float64, bool) {
	return s.score(c, true)
}

func (s *Scorer) score(c features.Config, check bool) (float64, bool) {
	if s.m.flat == nil {
		return s.m.predictRaw(s.task, c), true
	}
	// x is the feature vector, or when folded only the configuration's
	// columns: the parameters, then the derived features.
	var buf [maxFeatures]float64
	var x, v []float64
	if s.folded {
		v = buf[:s.nParams+s.nDerived]
		x = v
	} else {
		buf = s.base
		x = buf[:s.m.enc.Len()]
		v = x[s.at : s.at+s.nParams+s.nDerived]
	}
	for i, p := range c {
		v[i] = float64(p)
	}
	if s.nDerived > 0 {
		s.m.enc.Derived.Derive(v[s.nParams:], s.task, c, s.m.platform)
		if check {
			for _, l := range s.m.limits {
				if v[s.nParams+l.derived] > l.max {
					return math.Inf(-1), false
				}
			}
		}
	}
	sum := s.sp.constant
	nodes := s.sp.nodes
	for _, i := range s.sp.roots {
		for i >= 0 {
			n := &nodes[i]
			right := int32(0)
			if x[n.feature] > n.threshold {
				right = 1
			}
			i = n.left + right*(n.right-n.left)
		}
		sum += s.sp.leaves[^i]
	}
	return sum, true
}

// ScoreBatch scores every configuration of cs into vals, and sets ok[i]
// when cs[i] lies within the model's limits (a configuration beyond them
// gets -Inf). It walks the trees one at a time over the whole batch, which
// keeps each tree in cache: for models of thousands of nodes it is several
// times faster than Score per configuration. vals and ok must have len(cs)
// values.
func (s *Scorer) ScoreBatch(cs []features.Config, vals []float64, ok []bool) {
	s.scoreBatch(cs, vals, ok, math.Inf(-1))
}

// ScoreBatchAbove is ScoreBatch for a caller that needs only the scores
// of at least floor (the k best of a ranking, when k configurations that
// score floor are known): a configuration that cannot reach floor may be
// scored -Inf, with ok still saying whether it lies within the limits.
// Every other score is ScoreBatch's. It stops walking a configuration's
// trees once the most the rest could add leaves it below floor (runtime's
// Candidates: bench/RESULTS.md, "Choose at the cost bound").
func (s *Scorer) ScoreBatchAbove(cs []features.Config, vals []float64, ok []bool, floor float64) {
	s.scoreBatch(cs, vals, ok, floor)
}

func (s *Scorer) scoreBatch(cs []features.Config, vals []float64, ok []bool, floor float64) {
	if s.m.flat == nil || len(cs) == 0 {
		for i, c := range cs {
			vals[i], ok[i] = s.Score(c)
		}
		return
	}
	w := s.nParams + s.nDerived
	if !s.folded {
		w = s.m.enc.Len()
	}
	if need := (len(cs) + 3) * w; cap(s.batch) < need {
		s.batch = make([]float64, need)
	}
	xs := s.batch[:(len(cs)+3)*w]
	for i, c := range cs {
		x := xs[i*w : (i+1)*w]
		v := x
		if !s.folded {
			copy(x, s.base[:w])
			v = x[s.at : s.at+s.nParams+s.nDerived]
		}
		for j, p := range c {
			v[j] = float64(p)
		}
		ok[i] = true
		if s.nDerived > 0 {
			s.m.enc.Derived.Derive(v[s.nParams:], s.task, c, s.m.platform)
			for _, l := range s.m.limits {
				if v[s.nParams+l.derived] > l.max {
					ok[i] = false
				}
			}
		}
	}
	// Four configurations descend each tree side by side; a short batch
	// is padded with copies of its last vector.
	if n := len(cs) % 4; n != 0 {
		k := len(cs) - n
		for j := n; j < 4; j++ {
			copy(xs[(k+j)*w:(k+j+1)*w], xs[(k+n-1)*w:(k+n)*w])
		}
	}
	switch {
	case !s.folded && s.m.heapOK && floor > math.Inf(-1):
		s.m.wholeH.addBatchAbove(xs, w, len(cs), vals, floor)
	case !s.folded && s.m.heapOK:
		s.m.wholeH.addBatch(xs, w, len(cs), vals)
	default:
		var four [4]float64
		for k := 0; k < len(cs); k += 4 {
			n := min(4, len(cs)-k)
			s.u.add4(xs[k*w:(k+4)*w], w, &four)
			copy(vals[k:k+n], four[:n])
		}
	}
	for i := range cs {
		if !ok[i] {
			vals[i] = math.Inf(-1)
		}
	}
}

// Scored is a configuration with its predicted log-speedup.
type Scored struct {
	Config     features.Config
	LogSpeedup float64
}

// Rank scores every configuration on t and returns them fastest first.
// The order is the raw predictions'; the LogSpeedup values are clamped
// (Clamp), so several configurations at the top or the bottom may show the
// same value in an order that still means something.
func (m *Model) Rank(t features.Task, cs []features.Config) []Scored {
	out := make([]Scored, len(cs))
	for i, c := range cs {
		out[i] = Scored{Config: c, LogSpeedup: m.predictRaw(t, c)}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].LogSpeedup > out[j].LogSpeedup })
	for i := range out {
		out[i].LogSpeedup, _ = m.Clamp(out[i].LogSpeedup)
	}
	return out
}
