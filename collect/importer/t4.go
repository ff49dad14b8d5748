package importer

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/augur-tuning/augur/collect/record"
	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/features"
)

// T4's invalidity values and the status each becomes.
var t4Invalidity = map[string]record.Status{
	"correct":     record.StatusOK,
	"compile":     record.StatusCompileError,
	"runtime":     record.StatusLaunchError,
	"correctness": record.StatusVerifyError,
	"timeout":     record.StatusTimeout,
	"constraints": record.StatusPruned,
}

// t4Units scales a time in the unit named to milliseconds.
var t4Units = map[string]float64{"": 1, "ms": 1, "s": 1e3, "us": 1e-3, "µs": 1e-3, "ns": 1e-6}

// t4Result is one entry of a T4 file's results list.
type t4Result struct {
	Configuration json.RawMessage `json:"configuration"`
	Invalidity    string          `json:"invalidity"`
	Times         struct {
		Runtimes        []t4Float `json:"runtimes"`
		CompilationTime t4Float   `json:"compilation_time"`
	} `json:"times"`
	Measurements []struct {
		Name  string          `json:"name"`
		Value json.RawMessage `json:"value"`
		Unit  string          `json:"unit"`
	} `json:"measurements"`
}

// t4Float is a number in a T4 file, which some writers write as a
// string ("5.9"); null is 0.
type t4Float float64

// UnmarshalJSON reads a number, or a string that holds one.
func (n *t4Float) UnmarshalJSON(b []byte) error {
	text := string(b)
	if s, err := strconv.Unquote(text); err == nil {
		text = strings.TrimSpace(s)
	}
	if text == "null" {
		return nil
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) { // out of range: ±Inf, refused as a time
		return fmt.Errorf("%s is not a number", b)
	}
	*n = t4Float(f)
	return nil
}

// ReadT4 reads a T4 results file, gzip'ed or plain, of schema_version 1
// (1.x.y; a file without one is read as that), refusing another with
// ErrVersion. T4 names neither the
// device nor the problem size, so Results.Device and ProblemSize stay
// empty, and the parameters are those of the first configuration, in its
// order, with the values seen. A parameter whose values are not all
// integers (strings, or numbers such as 0.5) is numbered by its values
// sorted (numbers by value, strings by text), as Results.Labels. Runtimes
// are taken in the unit of the "time" measurement when the result has
// one, else in milliseconds (what Kernel Tuner writes). A correct result
// without runtimes counts its "time" measurement as one run
// (Measurement.MeanOnly).
func ReadT4(r io.Reader) (*Results, error) {
	var t t4Params
	var configs [][]t4Value
	res := &Results{}
	err := scanT4(r, DefaultMaxInputBytes, func(i int, r *t4Result) error {
		vals, err := t.read(i, r, nil)
		if err != nil {
			return err
		}
		var m Measurement
		if err := t4Measure(i, r, &m); err != nil {
			return err
		}
		configs = append(configs, vals)
		res.Measurements = append(res.Measurements, m)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if res.Params, res.Labels, err = t.settle(nil); err != nil {
		return nil, err
	}
	for i, vals := range configs {
		if res.Measurements[i].Config, err = t.config(i, vals, nil); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// scanT4 reads a T4 file a result at a time (memory bounded by the largest
// result, not the file) and calls fn with each and its index.
func scanT4(r io.Reader, limit int64, fn func(i int, r *t4Result) error) error {
	src, closeSrc, err := openInput(r, limit)
	if err != nil {
		return err
	}
	defer closeSrc()
	dec := json.NewDecoder(src)
	if err := expectDelim(dec, '{'); err != nil {
		return fmt.Errorf("%w: T4: %v", ErrFormat, err)
	}
	found := false
	for dec.More() {
		name, err := objectKey(dec)
		if err != nil {
			return err
		}
		if name == "schema_version" {
			if err := t4Version(dec); err != nil {
				return err
			}
			continue
		}
		if name != "results" {
			if err := skipValue(dec, 0); err != nil {
				return err
			}
			continue
		}
		if found {
			return fmt.Errorf("%w: T4: key \"results\" appears twice", ErrFormat)
		}
		found = true
		if err := expectDelim(dec, '['); err != nil {
			return fmt.Errorf("%w: T4: results: %v", ErrFormat, err)
		}
		for i := 0; dec.More(); i++ {
			var res t4Result
			if err := dec.Decode(&res); errors.Is(err, features.ErrLimit) {
				return err
			} else if err != nil {
				return fmt.Errorf("%w: T4 result %d: %v", ErrFormat, i, err)
			}
			if err := fn(i, &res); err != nil {
				return err
			}
		}
		if err := expectDelim(dec, ']'); err != nil {
			return err
		}
	}
	if err := expectDelim(dec, '}'); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		if errors.Is(err, features.ErrLimit) {
			return err
		}
		return fmt.Errorf("%w: T4: data after the end of the file", ErrFormat)
	}
	if !found {
		return fmt.Errorf("%w: T4: no results list", ErrFormat)
	}
	return nil
}

// t4Major is the major version of the T4 results schema that ReadT4 reads.
const t4Major = 1

// t4Version reads a T4 file's schema_version ("1.0.0") and refuses a major
// version other than t4Major, whose fields may mean something else.
func t4Version(dec *json.Decoder) error {
	t, err := dec.Token()
	if err != nil {
		return tokenErr(err)
	}
	var v string
	switch x := t.(type) {
	case string:
		v = x
	case float64:
		v = strconv.FormatFloat(x, 'f', -1, 64)
	default:
		return fmt.Errorf("%w: T4 schema_version is %v, want a version such as \"1.0.0\"", ErrFormat, t)
	}
	major, _, _ := strings.Cut(strings.TrimPrefix(strings.TrimSpace(v), "v"), ".")
	if n, err := strconv.Atoi(major); err != nil || n != t4Major {
		return fmt.Errorf("%w: T4 schema_version %q; this importer reads version %d (%d.x.y)", ErrVersion, v, t4Major, t4Major)
	}
	return nil
}

// t4Value is a parameter's value in a T4 configuration, as written: a
// number's text, or a string's.
type t4Value struct {
	text string
	num  bool
}

// t4Params gathers a T4 file's parameters as its results are read: the
// first configuration's names, in its order, and every value seen; settle
// then decides how each parameter's values are numbered.
type t4Params struct {
	names []string
	index map[string]int
	seen  []map[t4Value]bool
	// labels number the string and float parameters' values, once
	// settled; a parameter absent from it takes integers.
	labels map[string][]string
}

// read lays result i's configuration out in the first result's order
// (into vals, reused when long enough) and notes its values.
func (t *t4Params) read(i int, r *t4Result, vals []t4Value) ([]t4Value, error) {
	keys, kv, err := orderedValues(r.Configuration)
	if err != nil {
		return nil, fmt.Errorf("%w: T4 result %d: configuration: %v", ErrFormat, i, err)
	}
	if t.names == nil {
		t.names, t.index = keys, map[string]int{}
		for j, k := range keys {
			t.index[k] = j
			t.seen = append(t.seen, map[t4Value]bool{})
		}
	}
	if len(keys) != len(t.names) {
		return nil, fmt.Errorf("%w: T4 result %d has %d parameters, result 0 has %d", ErrFormat, i, len(keys), len(t.names))
	}
	vals = slices.Grow(vals[:0], len(keys))[:len(keys)]
	for j, k := range keys {
		at, ok := t.index[k]
		if !ok {
			return nil, fmt.Errorf("%w: T4 result %d has parameter %q, which result 0 lacks", ErrFormat, i, k)
		}
		vals[at] = kv[j]
		if s := t.seen[at]; !s[kv[j]] {
			if len(s) == features.MaxParamValues {
				return nil, fmt.Errorf("%w: T4 parameter %s takes more than %d values", features.ErrLimit, k, features.MaxParamValues)
			}
			s[kv[j]] = true
		}
	}
	return vals, nil
}

// settle returns the parameters seen, each value once, and the labels of
// those whose values are not all integers: spec's (its string and float
// parameters' values, in its order; nil: none) where it has the parameter,
// else the values seen, sorted (numbers by value, strings by text; of two
// texts of one number, such as 1.5 and 1.50, the first by text).
func (t *t4Params) settle(spec map[string][]string) ([]features.Param, map[string][]string, error) {
	var params []features.Param
	t.labels = nil
	for j, n := range t.names {
		p := features.Param{Name: n}
		var vals []t4Value
		for v := range t.seen[j] {
			vals = append(vals, v)
		}
		labels, err := t4Labels(n, vals, spec[n])
		if err != nil {
			return nil, nil, err
		}
		if labels != nil {
			if t.labels == nil {
				t.labels = map[string][]string{}
			}
			t.labels[n] = labels
		}
		for _, v := range vals {
			x, err := t4Number(v, labels)
			if err != nil {
				return nil, nil, fmt.Errorf("%w: T4 parameter %s: %v", ErrFormat, n, err)
			}
			p.Values = append(p.Values, x)
		}
		slices.Sort(p.Values)
		p.Values = slices.Compact(p.Values) // 1.5 and 1.50 are one value
		params = append(params, p)
	}
	return params, t.labels, nil
}

// t4Labels returns how a parameter's values are numbered: nil for
// integers, else spec's labels or the values sorted.
func t4Labels(name string, vals []t4Value, spec []string) ([]string, error) {
	nums, whole := 0, true
	for _, v := range vals {
		if v.num {
			f, _ := strconv.ParseFloat(v.text, 64)
			whole = whole && f == math.Trunc(f) && math.Abs(f) <= 1<<53
			nums++
		}
	}
	switch {
	case nums > 0 && nums < len(vals):
		return nil, fmt.Errorf("%w: T4 parameter %s mixes numbers and strings", ErrFormat, name)
	case spec != nil:
		for _, v := range vals {
			if (datasets.Choices{Labels: spec, Numeric: v.num}).Index(v.text) < 0 {
				return nil, fmt.Errorf("%w: T4 parameter %s has %s, which is none of the spec's values %q", ErrFormat, name, v.quoted(), spec)
			}
		}
		return spec, nil
	case nums == len(vals) && whole:
		return nil, nil
	}
	slices.SortFunc(vals, func(a, b t4Value) int {
		if a.num {
			x, _ := strconv.ParseFloat(a.text, 64)
			y, _ := strconv.ParseFloat(b.text, 64)
			if c := cmp.Compare(x, y); c != 0 {
				return c
			}
		}
		return strings.Compare(a.text, b.text)
	})
	var labels []string
	numeric := nums > 0
	for _, v := range vals {
		if (datasets.Choices{Labels: labels, Numeric: numeric}).Index(v.text) < 0 {
			labels = append(labels, v.text)
		}
	}
	return labels, nil
}

// t4Number is a value's number: its place in labels, or the integer.
func t4Number(v t4Value, labels []string) (int, error) {
	if labels != nil {
		n := datasets.Choices{Labels: labels, Numeric: v.num}.Index(v.text)
		if n < 0 {
			return 0, fmt.Errorf("%s is none of %q", v.quoted(), labels)
		}
		return n, nil
	}
	f, err := strconv.ParseFloat(v.text, 64)
	if !v.num || err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return 0, fmt.Errorf("%s is no integer", v.quoted())
	}
	return int(f), nil
}

// quoted is the value as the file writes it.
func (v t4Value) quoted() string {
	if v.num {
		return v.text
	}
	return strconv.Quote(v.text)
}

// config numbers result i's values, as read, by the settled parameters,
// into cfg (reused when long enough).
func (t *t4Params) config(i int, vals []t4Value, cfg features.Config) (features.Config, error) {
	cfg = slices.Grow(cfg[:0], len(vals))[:len(vals)]
	for j, v := range vals {
		n, err := t4Number(v, t.labels[t.names[j]])
		if err != nil {
			return nil, fmt.Errorf("%w: T4 result %d: parameter %s: %v", ErrFormat, i, t.names[j], err)
		}
		cfg[j] = n
	}
	return cfg, nil
}

// t4Measure fills m's status and times from result i. An invalidity T4
// does not define, or a time no run can take, makes a failed row
// (Measurement.Unrecognized).
func t4Measure(i int, r *t4Result, m *Measurement) error {
	st, ok := t4Invalidity[r.Invalidity]
	m.Status, m.Error, m.MeanOnly, m.TimesMs, m.Unrecognized = st, "", false, m.TimesMs[:0], false
	if !ok {
		m.Status, m.Unrecognized = failureStatus(r.Invalidity), true
	}
	// T4 states no unit for compilation_time; it is taken as
	// milliseconds, as Kernel Tuner's compile_time is and as the files
	// seen give it (834 ms beside runtimes of 2.8 ms).
	m.CompileMs = 0
	if c := float64(r.Times.CompilationTime); c > 0 && !math.IsInf(c, 0) {
		m.CompileMs = c
	}
	if m.Status != record.StatusOK {
		m.Error = r.Invalidity
		return nil
	}
	scale, fallback := 1.0, t4Float(0)
	for _, ms := range r.Measurements {
		if ms.Name != "time" {
			continue
		}
		if scale, ok = t4Units[ms.Unit]; !ok {
			return fmt.Errorf("%w: T4 result %d: unknown time unit %q", ErrFormat, i, ms.Unit)
		}
		_ = json.Unmarshal(ms.Value, &fallback)
	}
	for _, t := range r.Times.Runtimes {
		m.TimesMs = append(m.TimesMs, float64(t))
	}
	if len(m.TimesMs) == 0 && fallback != 0 {
		m.TimesMs, m.MeanOnly = append(m.TimesMs, float64(fallback)), true
	}
	if len(m.TimesMs) == 0 {
		return fmt.Errorf("%w: T4 result %d is correct but has no runtimes", ErrFormat, i)
	}
	for j := range m.TimesMs {
		m.TimesMs[j] *= scale
	}
	if err := checkTimes(m.TimesMs); err != nil {
		badTime(m, err)
	}
	return nil
}

// orderedValues reads a JSON object of numbers and strings, keeping the
// keys' order, which a Go map would lose.
func orderedValues(raw json.RawMessage) ([]string, []t4Value, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := expectDelim(dec, '{'); err != nil {
		return nil, nil, err
	}
	var keys []string
	var vals []t4Value
	for dec.More() {
		k, err := objectKey(dec)
		if err != nil {
			return nil, nil, err
		}
		if slices.Contains(keys, k) {
			return nil, nil, fmt.Errorf("parameter %q appears twice", k)
		}
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, fmt.Errorf("parameter %s: %v", k, err)
		}
		var v t4Value
		switch x := tok.(type) {
		case json.Number:
			f, err := x.Float64()
			if err != nil || math.IsInf(f, 0) {
				return nil, nil, fmt.Errorf("parameter %s is %s, not a finite number", k, x)
			}
			v = t4Value{text: x.String(), num: true}
		case string:
			v = t4Value{text: x}
		default:
			return nil, nil, fmt.Errorf("parameter %s is %v, want a number or a string", k, tok)
		}
		keys = append(keys, k)
		vals = append(vals, v)
	}
	return keys, vals, expectDelim(dec, '}')
}
