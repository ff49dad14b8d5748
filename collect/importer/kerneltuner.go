package importer

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/augur-tuning/augur/collect/record"
	"github.com/augur-tuning/augur/features"
)

// Results are the measurements of one file of another tuner, in the file's
// own terms, before they are fitted to a space.
type Results struct {
	// Device is the device name the tuner recorded; "" when the format
	// has none (T4).
	Device string
	// Kernel is the tuner's name of the kernel; "" when unknown.
	Kernel string
	// ProblemSize is the input's size per dimension; nil when unknown.
	ProblemSize []int
	// Params are the tuning parameters in the file's order. Their values
	// are the tuner's declared values (Kernel Tuner's tune_params) or,
	// where the format declares none (T4), the values seen, ascending.
	Params []features.Param
	// Measurements are the configurations in file order.
	Measurements []Measurement
}

// Measurement is one configuration as another tuner recorded it.
type Measurement struct {
	// Config holds one value per Results.Params, in that order.
	Config features.Config
	Status record.Status
	// TimesMs are the timed runs in milliseconds; empty unless Status is
	// ok.
	TimesMs []float64
	// Error is the tuner's failure string for a failed configuration.
	Error string
}

// Kernel Tuner's failure strings, kept in the time field of a cache entry,
// and the status each becomes.
var kernelTunerFailures = map[string]record.Status{
	"CompilationFailedConfig": record.StatusCompileError,
	"RuntimeFailedConfig":     record.StatusLaunchError,
	"InvalidConfig":           record.StatusPruned,
}

// ReadKernelTuner reads a Kernel Tuner cache file, gzip'ed or plain
// (told apart by the gzip magic bytes). A live cache file that ends
// without its closing braces, as Kernel Tuner leaves it while tuning, is
// completed first. Every parameter value must be an integer. An entry
// whose time is a number but which has no times (old caches) counts its
// mean time as one run.
func ReadKernelTuner(r io.Reader) (*Results, error) {
	data, err := readMaybeGzip(r)
	if err != nil {
		return nil, err
	}
	if data, err = repair(data); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := expectDelim(dec, '{'); err != nil {
		return nil, err
	}
	res := &Results{}
	var (
		keys     []string
		values   map[string][]int
		entries  []map[string]json.RawMessage
		entryKey []string
		seen     = map[string]bool{}
	)
	for dec.More() {
		name, err := objectKey(dec)
		if err != nil {
			return nil, err
		}
		if seen[name] {
			return nil, fmt.Errorf("%w: key %q appears twice", ErrFormat, name)
		}
		seen[name] = true
		switch name {
		case "device_name":
			err = decodeField(dec, name, &res.Device)
		case "kernel_name":
			err = decodeField(dec, name, &res.Kernel)
		case "problem_size":
			var raw json.RawMessage
			if err = decodeField(dec, name, &raw); err == nil {
				res.ProblemSize, err = problemSize(raw)
			}
		case "tune_params_keys":
			err = decodeField(dec, name, &keys)
		case "tune_params":
			values, err = decodeTuneParams(dec)
		case "cache":
			if err = expectDelim(dec, '{'); err != nil {
				break
			}
			for dec.More() {
				var k string
				if k, err = objectKey(dec); err != nil {
					break
				}
				var e map[string]json.RawMessage
				if err = dec.Decode(&e); err != nil {
					err = fmt.Errorf("%w: cache entry %q: %v", ErrFormat, k, err)
					break
				}
				entries = append(entries, e)
				entryKey = append(entryKey, k)
			}
			if err == nil {
				err = expectDelim(dec, '}')
			}
		default:
			var skip json.RawMessage
			err = decodeField(dec, name, &skip)
		}
		if err != nil {
			return nil, err
		}
	}
	if err := expectDelim(dec, '}'); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%w: data after the end of the cache file", ErrFormat)
	}
	if keys == nil || values == nil {
		return nil, fmt.Errorf("%w: cache file lacks tune_params_keys or tune_params", ErrFormat)
	}
	if len(keys) > features.MaxParams {
		return nil, fmt.Errorf("%w: %d tune_params_keys, at most %d allowed", features.ErrLimit, len(keys), features.MaxParams)
	}
	for _, k := range keys {
		vs, ok := values[k]
		if !ok {
			return nil, fmt.Errorf("%w: tune_params lacks %q of tune_params_keys", ErrFormat, k)
		}
		res.Params = append(res.Params, features.Param{Name: k, Values: vs})
	}
	res.Measurements = make([]Measurement, len(entries))
	for i, e := range entries {
		if err := kernelTunerEntry(&res.Measurements[i], e, keys); err != nil {
			return nil, fmt.Errorf("%w: cache entry %q: %v", ErrFormat, entryKey[i], err)
		}
	}
	return res, nil
}

// kernelTunerEntry fills m from one cache entry.
func kernelTunerEntry(m *Measurement, e map[string]json.RawMessage, keys []string) error {
	m.Config = make(features.Config, len(keys))
	for j, k := range keys {
		raw, ok := e[k]
		if !ok {
			return fmt.Errorf("lacks parameter %s", k)
		}
		n, err := strconv.Atoi(string(bytes.TrimSpace(raw)))
		if err != nil {
			return fmt.Errorf("parameter %s is %s, want an integer", k, raw)
		}
		m.Config[j] = n
	}
	raw, ok := e["time"]
	if !ok {
		return errors.New("lacks time")
	}
	var failure string
	if json.Unmarshal(raw, &failure) == nil {
		st, ok := kernelTunerFailures[failure]
		if !ok {
			return fmt.Errorf("unknown failure %q", failure)
		}
		m.Status, m.Error = st, failure
		return nil
	}
	var mean float64
	if err := json.Unmarshal(raw, &mean); err != nil {
		return fmt.Errorf("time is %s, want a number or a failure string", raw)
	}
	if t, ok := e["times"]; ok {
		if err := json.Unmarshal(t, &m.TimesMs); err != nil {
			return fmt.Errorf("times: %v", err)
		}
	}
	if len(m.TimesMs) == 0 {
		m.TimesMs = []float64{mean}
	}
	if err := checkTimes(m.TimesMs); err != nil {
		return err
	}
	m.Status = record.StatusOK
	return nil
}

// checkTimes refuses times that no ok measurement can have, so that the
// log-speedups computed from them are numbers.
func checkTimes(ts []float64) error {
	for _, t := range ts {
		if !(t > 0) || t > 1e15 {
			return fmt.Errorf("time %v ms, want a positive number", t)
		}
	}
	return nil
}

// problemSize reads Kernel Tuner's problem_size: one integer or a list of
// them.
func problemSize(raw json.RawMessage) ([]int, error) {
	var n int
	if json.Unmarshal(raw, &n) == nil {
		return []int{n}, nil
	}
	var ns []int
	if err := json.Unmarshal(raw, &ns); err != nil {
		return nil, fmt.Errorf("%w: problem_size is %s, want integers", ErrFormat, raw)
	}
	return ns, nil
}

// maxInput bounds what the readers take in, decompressed, so that a
// corrupt or hostile file cannot exhaust memory.
const maxInput = 1 << 30

// readMaybeGzip reads r whole, decompressing it when it starts with the
// gzip magic bytes.
func readMaybeGzip(r io.Reader) ([]byte, error) {
	br := bufio.NewReader(r)
	var src io.Reader = br
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("importer: gzip: %w", err)
		}
		defer zr.Close()
		src = zr
	}
	data, err := io.ReadAll(io.LimitReader(src, maxInput+1))
	if err != nil {
		return nil, fmt.Errorf("importer: read: %w", err)
	}
	if len(data) > maxInput {
		return nil, fmt.Errorf("importer: input exceeds %d bytes", maxInput)
	}
	return data, nil
}

// repair appends the closing brackets that data lacks, after dropping a
// trailing comma: Kernel Tuner appends one cache entry at a time and writes
// the closing braces only when tuning ends. Data cut inside a string, or
// with a closing bracket too many, is left for the JSON decoder to refuse.
func repair(data []byte) ([]byte, error) {
	var open []byte
	inString, escaped := false, false
	for _, c := range data {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{':
			open = append(open, '}')
		case c == '[':
			open = append(open, ']')
		case c == '}' || c == ']':
			if len(open) > 0 {
				open = open[:len(open)-1]
			}
		}
	}
	if inString {
		return nil, fmt.Errorf("%w: input ends inside a string", ErrFormat)
	}
	if len(open) == 0 {
		return data, nil
	}
	fixed := bytes.TrimRight(data, " \t\r\n")
	fixed = bytes.TrimSuffix(fixed, []byte(","))
	fixed = append(fixed[:len(fixed):len(fixed)], '\n')
	for i := len(open) - 1; i >= 0; i-- {
		fixed = append(fixed, open[i])
	}
	return fixed, nil
}

// decodeTuneParams reads tune_params, an object of integer lists, a token
// at a time: a list longer than features.MaxParamValues is refused as soon
// as it is, in constant memory (a cache file declaring 2M values for one
// parameter is 4 KB compressed).
func decodeTuneParams(dec *json.Decoder) (map[string][]int, error) {
	if err := expectDelim(dec, '{'); err != nil {
		return nil, err
	}
	out := map[string][]int{}
	for dec.More() {
		k, err := objectKey(dec)
		if err != nil {
			return nil, err
		}
		if len(out) >= features.MaxParams {
			return nil, fmt.Errorf("%w: tune_params has over %d parameters", features.ErrLimit, features.MaxParams)
		}
		if err := expectDelim(dec, '['); err != nil {
			return nil, fmt.Errorf("%w: tune_params %q: %v", ErrFormat, k, err)
		}
		var vs []int
		for dec.More() {
			if len(vs) == features.MaxParamValues {
				return nil, fmt.Errorf("%w: parameter %s declares more than %d values", features.ErrLimit, k, features.MaxParamValues)
			}
			tok, err := dec.Token()
			if err != nil {
				return nil, fmt.Errorf("%w: tune_params %q: %v", ErrFormat, k, err)
			}
			f, ok := tok.(float64)
			if !ok || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
				return nil, fmt.Errorf("%w: parameter %s has value %v, want integers only", ErrFormat, k, tok)
			}
			vs = append(vs, int(f))
		}
		if err := expectDelim(dec, ']'); err != nil {
			return nil, err
		}
		out[k] = vs
	}
	return out, expectDelim(dec, '}')
}

// expectDelim reads the next token and checks that it is the delimiter d.
func expectDelim(dec *json.Decoder, d json.Delim) error {
	t, err := dec.Token()
	if err != nil {
		return fmt.Errorf("%w: %v", ErrFormat, err)
	}
	if t != d {
		return fmt.Errorf("%w: got %v, want %q", ErrFormat, t, string(d))
	}
	return nil
}

// objectKey reads the next key of an object.
func objectKey(dec *json.Decoder) (string, error) {
	t, err := dec.Token()
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrFormat, err)
	}
	k, ok := t.(string)
	if !ok {
		return "", fmt.Errorf("%w: got %v, want an object key", ErrFormat, t)
	}
	return k, nil
}

// decodeField decodes the value of the key name into v.
func decodeField(dec *json.Decoder, name string, v any) error {
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%w: %s: %v", ErrFormat, name, err)
	}
	return nil
}
