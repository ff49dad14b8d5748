package features

import "fmt"

// Encoder lays a (task, config, platform) triple out as one feature vector:
// the task features, then the parameters, then the derived features (when
// the encoder has a Deriver), then the numeric platform features. Names
// gives each column's name ("task.width", "param.Xwg", "derived.groups",
// "platform.compute_units"); models store these names and are checked
// against them when loaded.
//
// The parameters and the derived features sit next to each other because
// they are the columns that change with the configuration: a per-shape
// scorer folds every other column away.
type Encoder struct {
	TaskNames  []string
	ParamNames []string
	// Derived computes the derived features; nil means none. Set it with
	// WithDerived, which also counts them once: Len is on the hot path of
	// every prediction, and a Deriver's Names allocates.
	Derived Deriver
	// PlatformFeatures is the number of platform features: the first
	// PlatformFeatures of PlatformNames. 0 means all of them, what a new
	// model takes; a bundle's encoder takes what its models were trained
	// with (Bundle.Encoder), 10 for bundles written before the measured
	// features. Other values than 0 must lie in [LegacyPlatformFeatures,
	// len(PlatformNames())] (PlatformColumns checks a model's).
	PlatformFeatures int

	nDerived int
}

// NewEncoder returns the encoder for a kernel's task features and space,
// without derived features.
func NewEncoder(taskNames []string, s *Space) Encoder {
	e := Encoder{TaskNames: taskNames}
	for _, p := range s.Params {
		e.ParamNames = append(e.ParamNames, p.Name)
	}
	return e
}

// WithDerived returns a copy of e that appends d's features.
func (e Encoder) WithDerived(d Deriver) Encoder {
	e.Derived, e.nDerived = d, 0
	if d != nil {
		e.nDerived = len(d.Names())
	}
	return e
}

// NumDerived is the number of derived features.
func (e Encoder) NumDerived() int {
	switch {
	case e.Derived == nil:
		return 0
	case e.nDerived > 0:
		return e.nDerived
	}
	return len(e.Derived.Names())
}

// NumPlatform is the number of platform features.
func (e Encoder) NumPlatform() int {
	if e.PlatformFeatures == 0 {
		return len(platformNames)
	}
	return e.PlatformFeatures
}

// PlatformVector returns p's platform features as the encoder takes them:
// the first NumPlatform values of p.Vector().
func (e Encoder) PlatformVector(p Platform) []float64 {
	return p.Vector()[:e.NumPlatform()]
}

// Len is the length of an encoded vector.
func (e Encoder) Len() int {
	return len(e.TaskNames) + len(e.ParamNames) + e.NumDerived() + e.NumPlatform()
}

// Names returns the column names, prefixed by "task.", "param.",
// "derived." and "platform.".
func (e Encoder) Names() []string {
	out := make([]string, 0, e.Len())
	for _, n := range e.TaskNames {
		out = append(out, "task."+n)
	}
	for _, n := range e.ParamNames {
		out = append(out, "param."+n)
	}
	if e.Derived != nil {
		for _, n := range e.Derived.Names() {
			out = append(out, "derived."+n)
		}
	}
	for _, n := range platformNames[:e.NumPlatform()] {
		out = append(out, "platform."+n)
	}
	return out
}

// Encode writes the vector of (t, c) on the platform whose vector
// (PlatformVector) is platform into dst, which must have Len() values.
// Lengths are not checked here, where it would cost every prediction; Check
// them once.
func (e Encoder) Encode(dst []float64, t Task, c Config, platform []float64) {
	n := copyInts(dst, t)
	n += copyInts(dst[n:], c)
	if e.Derived != nil {
		// The derived features fill what lies between the parameters and
		// the platform; counting them from dst keeps Encode free of calls
		// that might allocate.
		k := len(dst) - n - e.NumPlatform()
		e.Derived.Derive(dst[n:n+k], t, c, platform)
		n += k
	}
	copy(dst[n:], platform)
}

// Check reports whether t, c and platform have the lengths the encoder
// expects.
func (e Encoder) Check(t Task, c Config, platform []float64) error {
	switch {
	case len(t) != len(e.TaskNames):
		return fmt.Errorf("%w: shape has %d features, want %d (%v)", ErrSyntax, len(t), len(e.TaskNames), e.TaskNames)
	case len(c) != len(e.ParamNames):
		return fmt.Errorf("%w: configuration has %d values, want %d", ErrSyntax, len(c), len(e.ParamNames))
	case len(platform) != e.NumPlatform():
		return fmt.Errorf("%w: platform vector has %d values, want %d", ErrSyntax, len(platform), e.NumPlatform())
	}
	return nil
}

func copyInts(dst []float64, src []int) int {
	for i, v := range src {
		dst[i] = float64(v)
	}
	return len(src)
}
