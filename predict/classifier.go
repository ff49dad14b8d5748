package predict

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/predict/lightgbm"
)

// ErrNoClassifier is returned when a bundle holds no classifier of the
// requested parameter.
var ErrNoClassifier = errors.New("predict: no such classifier")

// MaxClasses is the most classes a Classifier may have, so that Class can
// use a stack buffer and allocate nothing.
const MaxClasses = 64

// Classifier predicts the best value of one categorical parameter of a
// kernel (its class) from the shape and the device's platform features:
// a multiclass tree ensemble whose raw scores are the class probabilities.
// A Classifier is safe for concurrent use.
type Classifier struct {
	// Param is the parameter classified.
	Param string
	// Kind is the learner that produced it ("forest", "golearn").
	Kind string

	classes []int
	m       *lightgbm.Model
	nTask   int
	// static computes the nStatic task-only derived features it takes
	// after the task features; nil when it takes none.
	static  features.TaskDeriver
	nStatic int
	// nPlatform is the number of platform features it takes: the first
	// nPlatform of features.PlatformNames.
	nPlatform int
}

// PlatformVector returns p's platform features as the classifier takes
// them: the first few values of p.Vector(), as many as it was trained
// with.
func (c *Classifier) PlatformVector(p features.Platform) []float64 {
	return p.Vector()[:c.nPlatform]
}

// LoadClassifier loads the bundle's classifier of parameter param. It
// refuses a model that is not a multiclass model of exactly as many classes
// as param has values (a regression model among them), and one whose
// inputs are not the bundle's task, static and platform features. d
// computes the static features (those of the kernel's derived features
// that depend on the task alone, "static.<name>"); it must be the
// definitions the bundle records, and may be nil when the classifier takes
// none.
func LoadClassifier(b *features.Bundle, param string, d features.Deriver) (*Classifier, error) {
	for i := range b.Classifiers {
		e := &b.Classifiers[i]
		if e.Param != param {
			continue
		}
		s, err := b.Space()
		if err != nil {
			return nil, fmt.Errorf("predict: %w", err)
		}
		pi := s.Param(param)
		if pi < 0 {
			return nil, fmt.Errorf("predict: classifier of %q: the bundle's space has no such parameter", param)
		}
		if !slices.Equal(e.Classes, s.Params[pi].Values) {
			return nil, fmt.Errorf("predict: classifier of %q has classes %v, the parameter's values are %v", param, e.Classes, s.Params[pi].Values)
		}
		if d != nil && d.ID() != b.Derived {
			return nil, fmt.Errorf("predict: classifier of %q: %w: bundle was trained with derived features %q, this augur has %q", param, features.ErrDerived, b.Derived, d.ID())
		}
		// The features ReadBundle checked: the task features, the static
		// ones, then the platform features the classifier was trained
		// with.
		c, err := ParseClassifier(e.LightGBM, param, e.Classes, e.Features, d)
		if err != nil {
			return nil, err
		}
		if c.nTask != len(b.TaskNames) {
			return nil, fmt.Errorf("predict: classifier of %q takes %d task features, the bundle has %d", param, c.nTask, len(b.TaskNames))
		}
		c.Kind = e.Kind
		return c, nil
	}
	return nil, fmt.Errorf("%w: %q", ErrNoClassifier, param)
}

// ParseClassifier reads the LightGBM text of a classifier of param whose
// class k is the value classes[k], over the named features (the task
// features, the static ones, then the platform features, as
// features.ClassFeatures lists them). d computes the static features and
// may be nil when there are none. It refuses a model of another kind or
// class count, or of other features.
func ParseClassifier(text, param string, classes []int, featureNames []string, d features.Deriver) (*Classifier, error) {
	if len(classes) < 2 || len(classes) > MaxClasses {
		return nil, fmt.Errorf("predict: classifier of %q: %d classes, want 2 to %d", param, len(classes), MaxClasses)
	}
	m, err := lightgbm.Parse(text)
	if err != nil {
		return nil, fmt.Errorf("predict: classifier of %q: %w", param, err)
	}
	if err := m.Multiclass(len(classes)); err != nil {
		return nil, fmt.Errorf("predict: classifier of %q: %w", param, err)
	}
	if !slices.Equal(m.FeatureNames, featureNames) {
		return nil, fmt.Errorf("predict: classifier of %q has features %v, want %v", param, m.FeatureNames, featureNames)
	}
	nPlatform, err := features.PlatformColumns(featureNames)
	if err != nil {
		return nil, fmt.Errorf("predict: classifier of %q: %w", param, err)
	}
	var static []string
	for _, n := range featureNames {
		if s, ok := strings.CutPrefix(n, "static."); ok {
			static = append(static, s)
		}
	}
	nTask := len(featureNames) - nPlatform - len(static)
	if len(featureNames) > maxFeatures {
		return nil, fmt.Errorf("predict: classifier of %q has %d features, at most %d supported", param, len(featureNames), maxFeatures)
	}
	c := &Classifier{Param: param, classes: slices.Clone(classes), m: m, nTask: nTask, nStatic: len(static), nPlatform: nPlatform}
	if len(static) > 0 {
		td, ok := d.(features.TaskDeriver)
		if !ok {
			return nil, fmt.Errorf("predict: classifier of %q takes static features %v, and no definitions of them were given", param, static)
		}
		if got := td.TaskNames(); !slices.Equal(got, static) {
			return nil, fmt.Errorf("predict: classifier of %q takes static features %v, %q defines %v", param, static, td.ID(), got)
		}
		c.static = td
	}
	return c, nil
}

// Classes returns the parameter's values: class k is the value at k.
func (c *Classifier) Classes() []int { return slices.Clone(c.classes) }

// NumClasses is the number of classes.
func (c *Classifier) NumClasses() int { return len(c.classes) }

// Check returns an error when t or platform has the wrong length.
func (c *Classifier) Check(t features.Task, platform []float64) error {
	if len(t) != c.nTask || len(platform) != c.nPlatform {
		return fmt.Errorf("predict: classifier of %q takes %d task and %d platform values, got %d and %d",
			c.Param, c.nTask, c.nPlatform, len(t), len(platform))
	}
	return nil
}

// Probabilities writes the probability of every class for shape t on the
// platform whose vector (PlatformVector) is platform into dst,
// which must have NumClasses values. t and platform must have the lengths
// Check accepts. It allocates nothing, or once when the classifier takes
// static features.
func (c *Classifier) Probabilities(dst []float64, t features.Task, platform []float64) {
	var buf [maxFeatures]float64
	x := buf[:c.nTask+c.nStatic+len(platform)]
	for i, v := range t {
		x[i] = float64(v)
	}
	if c.static != nil {
		// A slice of buf handed to an interface method would move buf
		// to the heap on every call; this costs one small allocation, and
		// only for classifiers that take static features.
		st := make([]float64, c.nStatic)
		c.static.DeriveTask(st, t)
		copy(x[c.nTask:], st)
	}
	copy(x[c.nTask+c.nStatic:], platform)
	c.m.PredictRaw(dst, x)
}

// Class returns the most probable value of the parameter for shape t on
// platform (the lowest class on a tie) and its probability. It allocates
// as Probabilities does.
func (c *Classifier) Class(t features.Task, platform []float64) (value int, p float64) {
	var buf [MaxClasses]float64
	prob := buf[:len(c.classes)]
	c.Probabilities(prob, t, platform)
	best := 0
	for k, v := range prob {
		if v > prob[best] {
			best = k
		}
	}
	return c.classes[best], prob[best]
}
