package features

import "fmt"

// Encoder lays a (task, config, platform) triple out as one feature vector:
// the task features, then the parameters, then the numeric platform
// features. Names gives each column's name ("task.width", "param.Xwg",
// "platform.compute_units"); models store these names and are checked
// against them when loaded.
type Encoder struct {
	TaskNames  []string
	ParamNames []string
}

// NewEncoder returns the encoder for a kernel's task features and space.
func NewEncoder(taskNames []string, s *Space) Encoder {
	e := Encoder{TaskNames: taskNames}
	for _, p := range s.Params {
		e.ParamNames = append(e.ParamNames, p.Name)
	}
	return e
}

// Len is the length of an encoded vector.
func (e Encoder) Len() int { return len(e.TaskNames) + len(e.ParamNames) + len(platformNames) }

// Names returns the feature names in column order.
func (e Encoder) Names() []string {
	out := make([]string, 0, e.Len())
	for _, n := range e.TaskNames {
		out = append(out, "task."+n)
	}
	for _, n := range e.ParamNames {
		out = append(out, "param."+n)
	}
	for _, n := range platformNames {
		out = append(out, "platform."+n)
	}
	return out
}

// Encode writes the feature vector of (t, c, platform) into dst, which
// must have length Len; platform is Platform.Vector(). It does not
// allocate.
func (e Encoder) Encode(dst []float64, t Task, c Config, platform []float64) {
	n := copyInts(dst, t)
	n += copyInts(dst[n:], c)
	copy(dst[n:], platform)
}

// Check returns an error when t, c or platform do not fit the encoder.
func (e Encoder) Check(t Task, c Config, platform []float64) error {
	switch {
	case len(t) != len(e.TaskNames):
		return fmt.Errorf("%w: shape has %d features, want %d (%v)", ErrSyntax, len(t), len(e.TaskNames), e.TaskNames)
	case len(c) != len(e.ParamNames):
		return fmt.Errorf("%w: configuration has %d values, want %d", ErrSyntax, len(c), len(e.ParamNames))
	case len(platform) != len(platformNames):
		return fmt.Errorf("%w: platform vector has %d values, want %d", ErrSyntax, len(platform), len(platformNames))
	}
	return nil
}

func copyInts(dst []float64, src []int) int {
	for i, v := range src {
		dst[i] = float64(v)
	}
	return len(src)
}
