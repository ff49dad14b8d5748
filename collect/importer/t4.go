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

type t4File struct {
	Results []struct {
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
	} `json:"results"`
}

// ReadT4 reads a T4 results file, gzip'ed or plain. T4 names neither the
// device nor the problem size, so Results.Device and ProblemSize stay
// empty, and the parameters are those of the first configuration, in its
// order, with the values seen. Runtimes are taken in the unit of the "time"
// measurement when the result has one, else in milliseconds (what Kernel
// Tuner writes). A correct result without runtimes counts its "time"
// measurement as one run.
func ReadT4(r io.Reader) (*Results, error) {
	data, err := readMaybeGzip(r)
	if err != nil {
		return nil, err
	}
	var f t4File
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("%w: T4: %v", ErrFormat, err)
	}
	if f.Results == nil {
		return nil, fmt.Errorf("%w: T4: no results list", ErrFormat)
	}
	res := &Results{Measurements: make([]Measurement, len(f.Results))}
	var names []string
	index := map[string]int{}
	seen := map[string]map[int]bool{}
	for i, r := range f.Results {
		keys, vals, err := orderedInts(r.Configuration)
		if err != nil {
			return nil, fmt.Errorf("%w: T4 result %d: configuration: %v", ErrFormat, i, err)
		}
		if i == 0 {
			names = keys
			for j, k := range keys {
				index[k] = j
				seen[k] = map[int]bool{}
			}
		}
		if len(keys) != len(names) {
			return nil, fmt.Errorf("%w: T4 result %d has %d parameters, result 0 has %d", ErrFormat, i, len(keys), len(names))
		}
		m := &res.Measurements[i]
		m.Config = make(features.Config, len(names))
		for j, k := range keys {
			at, ok := index[k]
			if !ok {
				return nil, fmt.Errorf("%w: T4 result %d has parameter %q, which result 0 lacks", ErrFormat, i, k)
			}
			m.Config[at] = vals[j]
			seen[k][vals[j]] = true
		}
		st, ok := t4Invalidity[r.Invalidity]
		if !ok {
			return nil, fmt.Errorf("%w: T4 result %d: unknown invalidity %q", ErrFormat, i, r.Invalidity)
		}
		m.Status = st
		if st != record.StatusOK {
			m.Error = r.Invalidity
			continue
		}
		scale, fallback := 1.0, 0.0
		for _, ms := range r.Measurements {
			if ms.Name != "time" {
				continue
			}
			if scale, ok = t4Units[ms.Unit]; !ok {
				return nil, fmt.Errorf("%w: T4 result %d: unknown time unit %q", ErrFormat, i, ms.Unit)
			}
			_ = json.Unmarshal(ms.Value, &fallback)
		}
		m.TimesMs = slices.Clone(r.Times.Runtimes)
		if len(m.TimesMs) == 0 && fallback != 0 {
			m.TimesMs = []float64{fallback}
		}
		if len(m.TimesMs) == 0 {
			return nil, fmt.Errorf("%w: T4 result %d is correct but has no runtimes", ErrFormat, i)
		}
		for j := range m.TimesMs {
			m.TimesMs[j] *= scale
		}
		if err := checkTimes(m.TimesMs); err != nil {
			return nil, fmt.Errorf("%w: T4 result %d: %v", ErrFormat, i, err)
		}
	}
	for _, n := range names {
		p := features.Param{Name: n}
		for v := range seen[n] {
			p.Values = append(p.Values, v)
		}
		slices.Sort(p.Values)
		res.Params = append(res.Params, p)
	}
	return res, nil
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
