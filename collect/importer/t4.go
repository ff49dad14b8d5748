package importer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/augur-tuning/augur/collect/record"
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
		Runtimes []float64 `json:"runtimes"`
	} `json:"times"`
	Measurements []struct {
		Name  string          `json:"name"`
		Value json.RawMessage `json:"value"`
		Unit  string          `json:"unit"`
	} `json:"measurements"`
}

// ReadT4 reads a T4 results file, gzip'ed or plain. T4 names neither the
// device nor the problem size, so Results.Device and ProblemSize stay
// empty, and the parameters are those of the first configuration, in its
// order, with the values seen. Runtimes are taken in the unit of the "time"
// measurement when the result has one, else in milliseconds (what Kernel
// Tuner writes). A correct result without runtimes counts its "time"
// measurement as one run (Measurement.MeanOnly).
func ReadT4(r io.Reader) (*Results, error) {
	var t t4Params
	res := &Results{}
	err := scanT4(r, func(i int, r *t4Result) error {
		var m Measurement
		if err := t.measurement(i, r, &m); err != nil {
			return err
		}
		res.Measurements = append(res.Measurements, m)
		return nil
	})
	if err != nil {
		return nil, err
	}
	res.Params = t.params()
	return res, nil
}

// scanT4 reads a T4 file a result at a time (memory bounded by the largest
// result, not the file) and calls fn with each and its index.
func scanT4(r io.Reader, fn func(i int, r *t4Result) error) error {
	src, closeSrc, err := openInput(r)
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
			if err := dec.Decode(&res); err != nil {
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
		return fmt.Errorf("%w: T4: data after the end of the file", ErrFormat)
	}
	if !found {
		return fmt.Errorf("%w: T4: no results list", ErrFormat)
	}
	return nil
}

// t4Params gathers a T4 file's parameters as its results are read: the
// first configuration's names, in its order, and every value seen.
type t4Params struct {
	names []string
	index map[string]int
	seen  []map[int]bool
}

// params returns the parameters seen so far, each value once, in order.
func (t *t4Params) params() []features.Param {
	var out []features.Param
	for j, n := range t.names {
		p := features.Param{Name: n}
		for v := range t.seen[j] {
			p.Values = append(p.Values, v)
		}
		slices.Sort(p.Values)
		out = append(out, p)
	}
	return out
}

// measurement decodes result i into m (its configuration in the order of
// the first result's parameters) and notes its parameter values.
func (t *t4Params) measurement(i int, r *t4Result, m *Measurement) error {
	keys, vals, err := orderedInts(r.Configuration)
	if err != nil {
		return fmt.Errorf("%w: T4 result %d: configuration: %v", ErrFormat, i, err)
	}
	if i == 0 {
		t.names, t.index = keys, map[string]int{}
		for j, k := range keys {
			t.index[k] = j
			t.seen = append(t.seen, map[int]bool{})
		}
	}
	if len(keys) != len(t.names) {
		return fmt.Errorf("%w: T4 result %d has %d parameters, result 0 has %d", ErrFormat, i, len(keys), len(t.names))
	}
	*m = Measurement{Config: make(features.Config, len(t.names))}
	for j, k := range keys {
		at, ok := t.index[k]
		if !ok {
			return fmt.Errorf("%w: T4 result %d has parameter %q, which result 0 lacks", ErrFormat, i, k)
		}
		m.Config[at] = vals[j]
		t.seen[at][vals[j]] = true
	}
	st, ok := t4Invalidity[r.Invalidity]
	if !ok {
		return fmt.Errorf("%w: T4 result %d: unknown invalidity %q", ErrFormat, i, r.Invalidity)
	}
	m.Status = st
	if st != record.StatusOK {
		m.Error = r.Invalidity
		return nil
	}
	scale, fallback := 1.0, 0.0
	for _, ms := range r.Measurements {
		if ms.Name != "time" {
			continue
		}
		if scale, ok = t4Units[ms.Unit]; !ok {
			return fmt.Errorf("%w: T4 result %d: unknown time unit %q", ErrFormat, i, ms.Unit)
		}
		_ = json.Unmarshal(ms.Value, &fallback)
	}
	m.TimesMs = slices.Clone(r.Times.Runtimes)
	if len(m.TimesMs) == 0 && fallback != 0 {
		m.TimesMs, m.MeanOnly = []float64{fallback}, true
	}
	if len(m.TimesMs) == 0 {
		return fmt.Errorf("%w: T4 result %d is correct but has no runtimes", ErrFormat, i)
	}
	for j := range m.TimesMs {
		m.TimesMs[j] *= scale
	}
	if err := checkTimes(m.TimesMs); err != nil {
		return fmt.Errorf("%w: T4 result %d: %v", ErrFormat, i, err)
	}
	return nil
}

// orderedInts reads a JSON object of integers, keeping the keys' order,
// which a Go map would lose.
func orderedInts(raw json.RawMessage) ([]string, []int, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := expectDelim(dec, '{'); err != nil {
		return nil, nil, err
	}
	var keys []string
	var vals []int
	for dec.More() {
		k, err := objectKey(dec)
		if err != nil {
			return nil, nil, err
		}
		if slices.Contains(keys, k) {
			return nil, nil, fmt.Errorf("parameter %q appears twice", k)
		}
		var n json.Number
		if err := dec.Decode(&n); err != nil {
			return nil, nil, fmt.Errorf("parameter %s: %v", k, err)
		}
		v, err := strconv.Atoi(n.String())
		if err != nil {
			return nil, nil, fmt.Errorf("parameter %s is %s, want an integer", k, n)
		}
		keys = append(keys, k)
		vals = append(vals, v)
	}
	return keys, vals, expectDelim(dec, '}')
}
