package predict

import (
	"bufio"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/augur-tuning/augur/features"
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

	ens      *leaves.Ensemble
	flat     *flatModel // nil when the model has splits flat does not handle
	enc      features.Encoder
	platform []float64
	trees    int
}

// Load loads the named model of a bundle. An empty name picks the bundle's
// only model, or its "fleet" model when it has several.
func Load(b *features.Bundle, name string) (*Model, error) {
	entry, err := pick(b, name)
	if err != nil {
		return nil, err
	}
	ens, err := leaves.LGEnsembleFromReader(bufio.NewReader(strings.NewReader(entry.LightGBM)), false)
	if err != nil {
		return nil, fmt.Errorf("predict: model %q: %w", entry.Name, err)
	}
	space, err := b.Space()
	if err != nil {
		return nil, fmt.Errorf("predict: %w", err)
	}
	enc := features.NewEncoder(b.TaskNames, space)
	if ens.NFeatures() != enc.Len() {
		return nil, fmt.Errorf("predict: model %q has %d features, bundle schema has %d", entry.Name, ens.NFeatures(), enc.Len())
	}
	if enc.Len() > maxFeatures {
		return nil, fmt.Errorf("predict: model %q has %d features, at most %d supported", entry.Name, enc.Len(), maxFeatures)
	}
	var pv []float64
	if entry.Platform != nil {
		pv = entry.Platform.Vector()
	} else {
		pv = make([]float64, len(features.PlatformNames()))
	}
	m := &Model{Name: entry.Name, Kind: entry.Kind, ens: ens, enc: enc, platform: pv, trees: ens.NEstimators()}
	if flat, err := parseFlat(entry.LightGBM); err == nil && len(flat.trees) == m.trees &&
		flat.agrees(func(x []float64) float64 { return ens.PredictSingle(x, m.trees) }, enc.Len()) {
		m.flat = flat
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
		if len(b.Models) == 1 {
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
	c.platform = p.Vector()
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
// configuration. t and c must have the lengths the model was trained on
// (see Check); Predict does not allocate.
func (m *Model) Predict(t features.Task, c features.Config) float64 {
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

// Scorer scores configurations for one fixed shape, faster than Predict:
// the splits on task and platform features are resolved once, when the
// Scorer is made. Its predictions equal Predict's up to rounding (the
// trees are summed in another order). A Scorer is safe for concurrent use.
type Scorer struct {
	m    *Model
	task features.Task
	sp   specialized
}

// Scorer returns a Scorer for shape t, which must have the model's task
// length (see Check).
func (m *Model) Scorer(t features.Task) *Scorer {
	s := &Scorer{m: m, task: t}
	if m.flat != nil {
		var buf [maxFeatures]float64
		x := buf[:m.enc.Len()]
		m.enc.Encode(x, t, make(features.Config, len(m.enc.ParamNames)), m.platform)
		s.sp = m.flat.specialize(x, len(m.enc.TaskNames), len(m.enc.ParamNames))
	}
	return s
}

// Predict returns the predicted log-speedup of c on the Scorer's shape.
func (s *Scorer) Predict(c features.Config) float64 {
	if s.m.flat == nil {
		return s.m.Predict(s.task, c)
	}
	sum := s.sp.constant
	nodes := s.sp.nodes
	for _, i := range s.sp.roots {
		// Branch-free descent: a climb's configurations change at random,
		// so a conditional jump per node would be mispredicted half the
		// time.
		for i >= 0 {
			n := &nodes[i]
			right := int32(0)
			if float64(c[n.feature]) > n.threshold {
				right = 1
			}
			i = n.left + right*(n.right-n.left)
		}
		sum += s.sp.leaves[^i]
	}
	return sum
}

// Scored is a configuration with its predicted log-speedup.
type Scored struct {
	Config     features.Config
	LogSpeedup float64
}

// Rank scores every configuration on t and returns them fastest first.
func (m *Model) Rank(t features.Task, cs []features.Config) []Scored {
	out := make([]Scored, len(cs))
	for i, c := range cs {
		out[i] = Scored{Config: c, LogSpeedup: m.Predict(t, c)}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].LogSpeedup > out[j].LogSpeedup })
	return out
}
