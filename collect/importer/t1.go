package importer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"

	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/features"
)

// Spec is a T1 kernel description: the tuning space of a benchmark.
type Spec struct {
	// Name is the benchmark's name (General.BenchmarkName).
	Name string
	// Params are the tuning parameters in the file's order.
	Params []features.Param
	// Default holds each parameter's default value, in Params order; nil
	// when a parameter has no default.
	Default features.Config
	// Conditions are the constraint expressions as the file writes them,
	// in Python syntax.
	Conditions []string
	// Constraints are Conditions translated into expr syntax.
	Constraints []string
	// ProblemSize is KernelSpecification.ProblemSize; nil when the file
	// gives none, or gives expressions rather than integers.
	ProblemSize []int
	// ProblemSizeNames names the problem-size entries, the task features
	// of the imported rows (augur's Augur.ProblemSizeNames); nil when the
	// file gives none.
	ProblemSizeNames []string
	// Labels holds each string or float parameter's values (Type
	// "string", or "float" of values that are not all integers), by name,
	// as written; its Values number them 0, 1, ... in this order.
	Labels map[string][]string
	// Numbers holds the float parameters' among Labels, whose values
	// conditions read as numbers.
	Numbers map[string][]string
}

// strings returns the numbers of the string parameters' values for
// conditions to compare with, less any two parameters number apart.
func (s *Spec) strings() map[string]int {
	out := map[string]int{}
	for name, labels := range s.Labels {
		if _, isFloat := s.Numbers[name]; isFloat {
			continue
		}
		for i, l := range labels {
			if prev, ok := out[l]; ok && prev != i {
				out[l] = -1
			} else if !ok {
				out[l] = i
			}
		}
	}
	for l, i := range out {
		if i < 0 {
			delete(out, l)
		}
	}
	return out
}

type t1File struct {
	General struct {
		BenchmarkName string
	}
	ConfigurationSpace struct {
		TuningParameters []struct {
			Name    string
			Type    string
			Values  json.RawMessage
			Default json.RawMessage
		}
		Conditions []struct {
			Expression string
		}
	}
	KernelSpecification struct {
		ProblemSize json.RawMessage
	}
	Augur struct {
		ProblemSizeNames []string
	}
}

// ReadT1 reads a T1 kernel description. Values may be a JSON list or, as
// the benchmark hub writes them, a string holding a Python list; every
// value and default must be an integer, or the error names the parameter.
// Conditions are translated with TranslatePython.
func ReadT1(r io.Reader) (*Spec, error) {
	data, err := readMaybeGzip(r)
	if err != nil {
		return nil, err
	}
	var f t1File
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("%w: T1: %v", ErrFormat, err)
	}
	tps := f.ConfigurationSpace.TuningParameters
	if len(tps) == 0 {
		return nil, fmt.Errorf("%w: T1 has no ConfigurationSpace.TuningParameters", ErrFormat)
	}
	if len(tps) > features.MaxParams {
		return nil, fmt.Errorf("%w: T1 has %d tuning parameters, at most %d allowed", features.ErrLimit, len(tps), features.MaxParams)
	}
	s := &Spec{Name: f.General.BenchmarkName, Default: make(features.Config, 0, len(tps))}
	for _, tp := range tps {
		values, err := datasets.ParseValues(tp.Values)
		if tp.Type == "string" || tp.Type == "float" && err != nil {
			if err := s.addChoices(tp.Name, tp.Type, tp.Values, tp.Default); err != nil {
				return nil, err
			}
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("%w: T1 parameter %q (type %q): %v", ErrFormat, tp.Name, tp.Type, err)
		}
		if len(values) > features.MaxParamValues {
			return nil, fmt.Errorf("%w: T1 parameter %q declares %d values, at most %d allowed", features.ErrLimit, tp.Name, len(values), features.MaxParamValues)
		}
		s.Params = append(s.Params, features.Param{Name: tp.Name, Values: values})
		if len(bytes.TrimSpace(tp.Default)) == 0 || string(bytes.TrimSpace(tp.Default)) == "null" {
			s.Default = nil
			continue
		}
		ds, err := datasets.ParseValues(tp.Default)
		if err == nil && len(ds) != 1 {
			err = fmt.Errorf("%d values", len(ds))
		}
		if err != nil {
			return nil, fmt.Errorf("%w: T1 parameter %q: Default %s is not an integer", ErrFormat, tp.Name, tp.Default)
		}
		if s.Default != nil {
			s.Default = append(s.Default, ds[0])
		}
	}
	if n := len(f.ConfigurationSpace.Conditions); n > features.MaxConstraints {
		return nil, fmt.Errorf("%w: T1 has %d conditions, at most %d allowed", features.ErrLimit, n, features.MaxConstraints)
	}
	for _, c := range f.ConfigurationSpace.Conditions {
		if len(c.Expression) > features.MaxConstraintLen {
			return nil, fmt.Errorf("%w: T1 condition is %d bytes long, at most %d allowed", features.ErrLimit, len(c.Expression), features.MaxConstraintLen)
		}
		e, err := translate(c.Expression, nil, s.strings(), s.Numbers)
		if err != nil {
			return nil, err
		}
		s.Conditions = append(s.Conditions, c.Expression)
		s.Constraints = append(s.Constraints, e)
	}
	var ps []int
	if json.Unmarshal(f.KernelSpecification.ProblemSize, &ps) == nil && len(ps) > 0 {
		s.ProblemSize = ps
	}
	if names := f.Augur.ProblemSizeNames; names != nil {
		n := len(s.ProblemSize)
		if s.ProblemSize == nil {
			n = -1 // sizes the file gives as expressions, or none
		}
		if err := checkNames(names, n); err != nil {
			return nil, fmt.Errorf("%w: T1 Augur.ProblemSizeNames: %v", ErrFormat, err)
		}
		s.ProblemSizeNames = names
	}
	return s, nil
}

// addChoices adds a string or float parameter (typ): its values numbered
// 0, 1, ... in the file's order, its default by its number.
func (s *Spec) addChoices(name, typ string, values, def json.RawMessage) error {
	ch, err := datasets.ParseChoices(values, typ == "float")
	if err != nil {
		return fmt.Errorf("%w: T1 parameter %q (type %q): %v", ErrFormat, name, typ, err)
	}
	if s.Labels == nil {
		s.Labels = map[string][]string{}
	}
	s.Labels[name] = ch.Labels
	if ch.Numeric {
		if s.Numbers == nil {
			s.Numbers = map[string][]string{}
		}
		s.Numbers[name] = ch.Labels
	}
	p := features.Param{Name: name}
	for i := range ch.Labels {
		p.Values = append(p.Values, i)
	}
	s.Params = append(s.Params, p)
	if i := ch.DefaultIndex(def); i < 0 {
		s.Default = nil // none, or none of the values: the reference is the space's first
	} else if s.Default != nil {
		s.Default = append(s.Default, i)
	}
	return nil
}

// checkNames checks problem-size names: n of them (n < 0: any number, at
// most features.MaxTaskLen), each a name (letters, digits and _, not
// starting with a digit) and none twice.
func checkNames(names []string, n int) error {
	switch {
	case n >= 0 && len(names) != n:
		return fmt.Errorf("%d names for %d problem sizes", len(names), n)
	case len(names) > features.MaxTaskLen:
		return fmt.Errorf("%d names, at most %d allowed", len(names), features.MaxTaskLen)
	}
	for i, name := range names {
		if !isName(name) {
			return fmt.Errorf("%q is not a name (letters, digits and _)", name)
		}
		if slices.Contains(names[:i], name) {
			return fmt.Errorf("%q twice", name)
		}
	}
	return nil
}

// isName reports whether s is an identifier: letters, digits and _, not
// starting with a digit.
func isName(s string) bool {
	for i, r := range s {
		ok := r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9'
		if !ok {
			return false
		}
	}
	return s != ""
}
