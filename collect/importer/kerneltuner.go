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
	"slices"
	"strconv"
	"strings"

	"github.com/augur-tuning/augur/collect/record"
	"github.com/augur-tuning/augur/datasets"
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
	// Labels holds each string parameter's values, by name: its Values
	// and configurations number them by their place here (the spec's
	// order when Import has a spec, else the file's).
	Labels map[string][]string
	// Measurements are the configurations in file order.
	Measurements []Measurement
}

// Measurement is one configuration as another tuner recorded it.
type Measurement struct {
	// Config holds one value per Results.Params, in that order.
	Config features.Config
	Status record.Status
	// TimesMs are the timed runs in milliseconds, in the order they ran;
	// empty unless Status is ok.
	TimesMs []float64
	// MeanOnly says that the file lists no runs for this ok
	// configuration, only its mean time (Kernel Tuner's time, T4's time
	// measurement), which TimesMs then holds as its one value. Import
	// writes such a row with that time as its summary and no runs.
	MeanOnly bool
	// Error is the tuner's failure string for a failed configuration.
	Error string
	// CompileMs is the build time the file gives (Kernel Tuner's
	// compile_time, T4's times.compilation_time), in milliseconds; 0 when
	// it gives none.
	CompileMs float64
	// Unrecognized says that the file gave no status its format defines:
	// a failure string the format does not know (kept in Error, Status
	// guessed from it by failureStatus), or a time that no run can take
	// (not positive, or beyond record's bound: Status launch_error, Error
	// saying so). Such a configuration stays a failed row rather than
	// make the file unreadable.
	Unrecognized bool
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
// completed first. Every parameter value must be an integer or, for all
// of a parameter's values, a string or a number (numbered as
// Results.Labels when not all are integers). A time Kernel Tuner does not
// define makes a failed measurement (Measurement.Unrecognized). An entry
// whose time is a number but which has no times (old caches) counts its
// mean time as one run (Measurement.MeanOnly). It holds every measurement
// in memory; Import streams them instead (scanKernelTuner).
func ReadKernelTuner(r io.Reader) (*Results, error) {
	var ms []Measurement
	res, err := scanKernelTuner(r, DefaultMaxInputBytes, nil, nil, func(m *Measurement) error {
		c := *m
		c.Config = m.Config.Clone()
		c.TimesMs = nil
		if len(m.TimesMs) > 0 {
			c.TimesMs = slices.Clone(m.TimesMs)
		}
		ms = append(ms, c)
		return nil
	})
	if err != nil {
		return nil, err
	}
	res.Measurements = ms
	return res, nil
}

// Bounds on what one part of a cache file may hold, so that reading it
// takes memory independent of the file's size (issue 26: a 7.4 MB
// .json.gz that decompressed to 750 MB reached 4.8 GB resident).
const (
	// maxToken is the longest string or number, in bytes.
	maxToken = 1 << 20
	// maxEntryFields is the most fields one cache entry may have.
	maxEntryFields = 4096
	// maxDepth is the deepest nesting of a value augur skips.
	maxDepth = 64
	// maxTimes is the most timed runs one entry may list (Kernel Tuner
	// times 7 to 32; the decoder takes about 2 us a value on the 2-core
	// dev VM, so a list at the limit reads in about 0.1 s).
	maxTimes = 1 << 16
)

// scanKernelTuner reads a Kernel Tuner cache as ReadKernelTuner does, a
// token at a time, at most limit bytes of it decompressed, calls start (unless nil) with the parameters once they
// are known, before any entry, and then each with every cache entry in
// file order; the returned Results have no Measurements. labels (nil:
// none) numbers string parameters' values in place of the file's order. Memory stays bounded by the
// limits above whatever the file's size: the input is decompressed and
// repaired as it is read, and an entry is converted and handed on before
// the next is read. m and its slices are reused after each returns. Only
// a cache whose entries come before tune_params_keys (Kernel Tuner writes
// them last) is held whole, to be converted once the keys are known.
func scanKernelTuner(r io.Reader, limit int64, labels map[string][]string, start func([]features.Param) error, each func(m *Measurement) error) (*Results, error) {
	src, closeSrc, err := openInput(r, limit)
	if err != nil {
		return nil, err
	}
	defer closeSrc()
	dec := json.NewDecoder(newRepairReader(src))
	dec.UseNumber()
	if err := expectDelim(dec, '{'); err != nil {
		return nil, err
	}
	sc := &ktScan{dec: dec, res: &Results{}, start: start, each: each, labels: labels}
	seen := map[string]bool{}
	for dec.More() {
		name, err := objectKey(dec)
		if err != nil {
			return nil, err
		}
		if seen[name] {
			return nil, fmt.Errorf("%w: key %q appears twice", ErrFormat, name)
		}
		seen[name] = true
		if err := sc.field(name); err != nil {
			return nil, err
		}
	}
	if err := expectDelim(dec, '}'); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		if err != nil {
			return nil, tokenErr(err)
		}
		return nil, fmt.Errorf("%w: data after the end of the cache file", ErrFormat)
	}
	if err := sc.begin(); err != nil {
		return nil, err
	}
	for _, e := range sc.pending {
		if err := sc.emit(e); err != nil {
			return nil, err
		}
	}
	return sc.res, nil
}

// ktScan is scanKernelTuner's state while it reads the top-level object.
type ktScan struct {
	dec     *json.Decoder
	res     *Results
	start   func([]features.Param) error
	each    func(m *Measurement) error
	keys    []string
	values  map[string][]int
	strs    map[string][]string // tune_params' string lists, and float lists as written
	floats  map[string]bool     // which of strs are numbers
	labels  map[string][]string // the numbering of string values to use; nil: the file's
	pending []*ktEntry          // entries read before the keys
	m       Measurement
	started bool
}

// field reads the value of the top-level key name.
func (sc *ktScan) field(name string) error {
	var err error
	switch name {
	case "device_name":
		sc.res.Device, err = decodeString(sc.dec, name)
	case "kernel_name":
		sc.res.Kernel, err = decodeString(sc.dec, name)
	case "problem_size":
		sc.res.ProblemSize, err = decodeProblemSize(sc.dec)
	case "tune_params_keys", "tune_params":
		if sc.started {
			// Entries were handed on already, with the parameters as
			// they were.
			return fmt.Errorf("%w: %s after the cache entries", ErrFormat, name)
		}
		if name == "tune_params" {
			sc.values, sc.strs, sc.floats, err = decodeTuneParams(sc.dec)
		} else {
			sc.keys, err = decodeKeys(sc.dec)
		}
	case "cache":
		err = sc.cache()
	default:
		err = skipValue(sc.dec, 0)
	}
	return err
}

// cache reads the cache object: its entries are handed on as read when
// the parameters are known, else kept until they are.
func (sc *ktScan) cache() error {
	if err := expectDelim(sc.dec, '{'); err != nil {
		return err
	}
	stream := sc.keys != nil && sc.values != nil
	if stream {
		if err := sc.begin(); err != nil {
			return err
		}
	}
	e := &ktEntry{}
	for sc.dec.More() {
		if !stream {
			e = &ktEntry{}
		}
		if err := e.read(sc.dec); err != nil {
			return err
		}
		if !stream {
			sc.pending = append(sc.pending, e)
		} else if err := sc.emit(e); err != nil {
			return err
		}
	}
	return expectDelim(sc.dec, '}')
}

// begin settles the parameters, once keys and values are read, and calls
// start.
func (sc *ktScan) begin() error {
	if sc.started {
		return nil
	}
	sc.started = true
	if sc.keys == nil || sc.values == nil {
		return fmt.Errorf("%w: cache file lacks tune_params_keys or tune_params", ErrFormat)
	}
	for _, k := range sc.keys {
		vs, ok := sc.values[k]
		if strs, isStr := sc.strs[k]; isStr {
			labels := sc.labels[k]
			if labels == nil {
				labels = strs
			}
			vs, ok = nil, true
			for _, l := range strs {
				i := datasets.Choices{Labels: labels, Numeric: sc.floats[k]}.Index(l)
				if i < 0 {
					return fmt.Errorf("%w: tune_params %s has %q, which is none of the spec's values %q", ErrFormat, k, l, labels)
				}
				vs = append(vs, i)
			}
			if sc.res.Labels == nil {
				sc.res.Labels = map[string][]string{}
			}
			sc.res.Labels[k] = labels
		}
		if !ok {
			return fmt.Errorf("%w: tune_params lacks %q of tune_params_keys", ErrFormat, k)
		}
		sc.res.Params = append(sc.res.Params, features.Param{Name: k, Values: vs})
	}
	if sc.start != nil {
		return sc.start(sc.res.Params)
	}
	return nil
}

// emit hands entry e on as a measurement.
func (sc *ktScan) emit(e *ktEntry) error {
	if err := e.measurement(&sc.m, sc.keys, sc.res.Labels); err != nil {
		return fmt.Errorf("%w: cache entry %q: %v", ErrFormat, e.key, err)
	}
	return sc.each(&sc.m)
}

// ktEntry is one cache entry as read, before the parameter keys give its
// configuration.
type ktEntry struct {
	key    string
	fields []ktField // every field but time and times
	// time is the time field: a number or a failure string; hasTime is
	// false when the entry has none.
	time     ktField
	hasTime  bool
	timesMs  []float64
	timesErr string
}

// ktField is a field of an entry: its name, and its value's text when it
// is a number (num), or a description of any other value.
type ktField struct {
	name, text string
	num        bool
}

// read reads the next entry of the cache object: its key and its value.
func (e *ktEntry) read(dec *json.Decoder) error {
	var err error
	if e.key, err = objectKey(dec); err != nil {
		return err
	}
	e.fields, e.hasTime = e.fields[:0], false
	e.timesMs, e.timesErr = e.timesMs[:0], ""
	if err := expectDelim(dec, '{'); err != nil {
		return fmt.Errorf("%w: cache entry %q: %v", ErrFormat, e.key, err)
	}
	for dec.More() {
		name, err := objectKey(dec)
		if err != nil {
			return err
		}
		switch name {
		case "times":
			err = e.readTimes(dec)
		default:
			var f ktField
			if f, err = readField(dec, name); err != nil {
				break
			}
			if name == "time" {
				e.time, e.hasTime = f, true
			} else {
				if len(e.fields) == maxEntryFields {
					err = fmt.Errorf("%w: over %d fields", features.ErrLimit, maxEntryFields)
					break
				}
				e.fields = append(e.fields, f)
			}
		}
		if errors.Is(err, features.ErrLimit) {
			return fmt.Errorf("importer: cache entry %q: %w", e.key, err)
		}
		if err != nil {
			return fmt.Errorf("%w: cache entry %q: %v", ErrFormat, e.key, err)
		}
	}
	return expectDelim(dec, '}')
}

// readTimes reads an entry's list of timed runs, keeping what is wrong
// with it for when the entry turns out to be a measurement.
func (e *ktEntry) readTimes(dec *json.Decoder) error {
	t, err := dec.Token()
	if err != nil {
		return err
	}
	if t == nil {
		return nil
	}
	if t != json.Delim('[') {
		e.timesErr = fmt.Sprintf("times is %v, want a list of numbers", t)
		if _, ok := t.(json.Delim); ok {
			return skipRest(dec, 1)
		}
		return nil
	}
	for dec.More() {
		if len(e.timesMs) == maxTimes {
			return fmt.Errorf("%w: over %d times", features.ErrLimit, maxTimes)
		}
		t, err := dec.Token()
		if err != nil {
			return err
		}
		n, ok := t.(json.Number)
		if str, isStr := t.(string); isStr {
			n, ok = json.Number(strings.TrimSpace(str)), true // a number written as a string
		}
		f, ferr := n.Float64()
		if !ok || ferr != nil {
			if e.timesErr == "" {
				e.timesErr = fmt.Sprintf("times: %v is not a number", t)
			}
			if _, ok := t.(json.Delim); ok {
				if err := skipRest(dec, 2); err != nil {
					return err
				}
			}
			continue
		}
		e.timesMs = append(e.timesMs, f)
	}
	return expectDelim(dec, ']')
}

// measurement fills m from the entry, laying its parameters out in keys'
// order, a string parameter's value as its place in labels.
func (e *ktEntry) measurement(m *Measurement, keys []string, labels map[string][]string) error {
	m.Config = slices.Grow(m.Config[:0], len(keys))[:len(keys)]
	for j, k := range keys {
		i := slices.IndexFunc(e.fields, func(f ktField) bool { return f.name == k })
		if i < 0 {
			return fmt.Errorf("lacks parameter %s", k)
		}
		f := e.fields[i]
		if l, isStr := labels[k]; isStr {
			v := f.text // a float parameter's number
			if !f.num {
				v, _ = strconv.Unquote(f.text)
			}
			n := datasets.Choices{Labels: l, Numeric: f.num}.Index(v)
			if n < 0 {
				return fmt.Errorf("parameter %s is %s, want one of %q", k, f.text, l)
			}
			m.Config[j] = n
			continue
		}
		n, err := strconv.Atoi(f.text)
		if !f.num || err != nil {
			return fmt.Errorf("parameter %s is %s, want an integer", k, f.text)
		}
		m.Config[j] = n
	}
	m.TimesMs, m.Error, m.Status, m.MeanOnly, m.CompileMs, m.Unrecognized = m.TimesMs[:0], "", "", false, 0, false
	for _, f := range e.fields {
		if f.name == "compile_time" && f.num {
			if v, err := strconv.ParseFloat(f.text, 64); err == nil && v > 0 && !math.IsInf(v, 0) {
				m.CompileMs = v
			}
		}
	}
	if !e.hasTime {
		return errors.New("lacks time")
	}
	text := e.time.text
	if !e.time.num {
		failure, err := strconv.Unquote(text)
		if err != nil { // an object, a list, true, false or null
			return fmt.Errorf("time is %s, want a number or a failure string", text)
		}
		if st, ok := kernelTunerFailures[failure]; ok {
			m.Status, m.Error = st, failure
			return nil
		}
		if _, err := strconv.ParseFloat(strings.TrimSpace(failure), 64); err != nil && !errors.Is(err, strconv.ErrRange) {
			m.Status, m.Error, m.Unrecognized = failureStatus(failure), failure, true
			return nil
		}
		text = strings.TrimSpace(failure) // a number written as a string
	}
	mean, err := strconv.ParseFloat(text, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) { // out of range: ±Inf, refused below
		return fmt.Errorf("time is %s, want a number or a failure string", e.time.text)
	}
	if e.timesErr != "" {
		return errors.New(e.timesErr)
	}
	m.TimesMs = append(m.TimesMs, e.timesMs...)
	if len(m.TimesMs) == 0 {
		m.TimesMs, m.MeanOnly = append(m.TimesMs, mean), true
	}
	if err := checkTimes(m.TimesMs); err != nil {
		badTime(m, err)
		return nil
	}
	m.Status = record.StatusOK
	return nil
}

// badTime makes m, whose times no run can take, a failed row that says so.
func badTime(m *Measurement, err error) {
	m.TimesMs, m.MeanOnly = m.TimesMs[:0], false
	m.Status, m.Error, m.Unrecognized = record.StatusLaunchError, err.Error(), true
}

// failureStatus is the status of a failure string that the tuner's format
// does not define ("CUDA error: out of resources"), guessed from its words
// as collect maps OpenCL's failures: a build failure, a resource limit
// (out of resources or memory), a timeout, a wrong answer, else a failed
// launch.
func failureStatus(failure string) record.Status {
	l := strings.ToLower(failure)
	has := func(words ...string) bool {
		return slices.ContainsFunc(words, func(w string) bool { return strings.Contains(l, w) })
	}
	switch {
	case has("compil", "build", "ptxas", "nvrtc", "syntax"):
		return record.StatusCompileError
	case has("resource", "out of memory", "out_of_memory", "too many", "too large", "exceed"):
		return record.StatusResourceLimit
	case has("timeout", "timed out", "time out", "time limit"):
		return record.StatusTimeout
	case has("verif", "correct", "mismatch", "wrong"):
		return record.StatusVerifyError
	}
	return record.StatusLaunchError
}

// readField reads a field's value: a number's text, a string quoted, or
// a word for anything else (which is skipped).
func readField(dec *json.Decoder, name string) (ktField, error) {
	t, err := dec.Token()
	if err != nil {
		return ktField{}, err
	}
	switch v := t.(type) {
	case json.Number:
		return ktField{name: name, text: string(v), num: true}, nil
	case string:
		return ktField{name: name, text: strconv.Quote(v)}, nil
	case json.Delim:
		return ktField{name: name, text: "a " + map[json.Delim]string{'{': "object", '[': "list"}[v]}, skipRest(dec, 1)
	}
	return ktField{name: name, text: fmt.Sprint(t)}, nil
}

// skipValue reads and drops the next value, a token at a time; depth is
// how deep the value lies already.
func skipValue(dec *json.Decoder, depth int) error {
	t, err := dec.Token()
	if err != nil {
		return tokenErr(err)
	}
	if d, ok := t.(json.Delim); ok && (d == '{' || d == '[') {
		return skipRest(dec, depth+1)
	}
	return nil
}

// skipRest reads and drops the rest of an object or list just opened,
// depth levels deep.
func skipRest(dec *json.Decoder, depth int) error {
	for open := 1; open > 0; {
		if depth+open > maxDepth {
			return fmt.Errorf("%w: values nested over %d deep", features.ErrLimit, maxDepth)
		}
		t, err := dec.Token()
		if err != nil {
			return tokenErr(err)
		}
		if d, ok := t.(json.Delim); ok {
			if d == '{' || d == '[' {
				open++
			} else {
				open--
			}
		}
	}
	return nil
}

// decodeString reads a string (or null, "") field.
func decodeString(dec *json.Decoder, name string) (string, error) {
	t, err := dec.Token()
	if err != nil {
		return "", tokenErr(err)
	}
	switch v := t.(type) {
	case string:
		return v, nil
	case nil:
		return "", nil
	}
	return "", fmt.Errorf("%w: %s is %v, want a string", ErrFormat, name, t)
}

// decodeProblemSize reads Kernel Tuner's problem_size: one integer or a
// list of them, at most features.MaxTaskLen.
func decodeProblemSize(dec *json.Decoder) ([]int, error) {
	bad := func(t any) error { return fmt.Errorf("%w: problem_size holds %v, want integers", ErrFormat, t) }
	t, err := dec.Token()
	if err != nil {
		return nil, tokenErr(err)
	}
	if n, ok := t.(json.Number); ok {
		v, err := strconv.Atoi(string(n))
		if err != nil {
			return nil, bad(t)
		}
		return []int{v}, nil
	}
	if t != json.Delim('[') {
		return nil, bad(t)
	}
	var ns []int
	for dec.More() {
		if len(ns) == features.MaxTaskLen {
			return nil, fmt.Errorf("%w: problem_size has over %d dimensions", features.ErrLimit, features.MaxTaskLen)
		}
		t, err := dec.Token()
		if err != nil {
			return nil, tokenErr(err)
		}
		n, ok := t.(json.Number)
		v, err := strconv.Atoi(string(n))
		if !ok || err != nil {
			return nil, bad(t)
		}
		ns = append(ns, v)
	}
	return ns, expectDelim(dec, ']')
}

// decodeKeys reads tune_params_keys, at most features.MaxParams names.
func decodeKeys(dec *json.Decoder) ([]string, error) {
	if err := expectDelim(dec, '['); err != nil {
		return nil, fmt.Errorf("tune_params_keys: %w", err)
	}
	keys := []string{}
	for dec.More() {
		if len(keys) == features.MaxParams {
			return nil, fmt.Errorf("%w: over %d tune_params_keys", features.ErrLimit, features.MaxParams)
		}
		t, err := dec.Token()
		if err != nil {
			return nil, tokenErr(err)
		}
		k, ok := t.(string)
		if !ok {
			return nil, fmt.Errorf("%w: tune_params_keys holds %v, want names", ErrFormat, t)
		}
		keys = append(keys, k)
	}
	return keys, expectDelim(dec, ']')
}

// maxTimeMs is the longest time a run may take, in milliseconds: 10^7 ms
// is record's bound on a time (10^13 ns, 2.8 hours), which the writer
// would refuse a row beyond.
const maxTimeMs = 1e7

// checkTimes refuses times that no ok measurement can have, so that the
// log-speedups computed from them are numbers and every run converts to
// whole nanoseconds (runsNs).
func checkTimes(ts []float64) error {
	for _, t := range ts {
		if !(t > 0) || t > maxTimeMs {
			return fmt.Errorf("time %v ms, want a positive number of at most %g", t, float64(maxTimeMs))
		}
	}
	return nil
}

// DefaultMaxInputBytes bounds what the readers take in of one file,
// decompressed, unless Options.MaxInputBytes says otherwise: a bound on
// the time a corrupt or hostile file (a small .gz of endless JSON) takes,
// since the readers' memory does not grow with the file. 1 GiB holds the
// largest cache seen (750 MB of JSON, 804,000 entries).
const DefaultMaxInputBytes = 1 << 30

// InputLimitError is returned for an input that decompresses to more than
// the readers' limit. It matches features.ErrLimit with errors.Is.
type InputLimitError struct {
	// Limit is the limit in bytes.
	Limit int64
}

// Error names the limit and how to raise it.
func (e *InputLimitError) Error() string {
	return fmt.Sprintf("importer: the input is over %s decompressed, the limit on one file; raise it with MaxInputBytes (--max-input-gib)", sizeText(e.Limit))
}

// Is makes an InputLimitError match features.ErrLimit.
func (e *InputLimitError) Is(target error) bool { return target == features.ErrLimit }

// sizeText writes n bytes in GiB, MiB or bytes, whichever is whole.
func sizeText(n int64) string {
	switch {
	case n > 0 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n > 0 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n > 0 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// readMaybeGzip reads r whole, decompressing it when it starts with the
// gzip magic bytes.
func readMaybeGzip(r io.Reader) ([]byte, error) {
	src, closeSrc, err := openInput(r, DefaultMaxInputBytes)
	if err != nil {
		return nil, err
	}
	defer closeSrc()
	data, err := io.ReadAll(src)
	if err != nil {
		return nil, err
	}
	return data, nil
}

// openInput returns r decompressed when it starts with the gzip magic
// bytes, limited to limit bytes (reading past them is an
// *InputLimitError), and the function that releases it.
func openInput(r io.Reader, limit int64) (io.Reader, func(), error) {
	br := bufio.NewReader(r)
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, nil, fmt.Errorf("importer: gzip: %w", err)
		}
		return &inputReader{r: zr, limit: limit}, func() { zr.Close() }, nil
	}
	return &inputReader{r: br, limit: limit}, func() {}, nil
}

// inputReader reads at most limit bytes and prefixes its errors.
type inputReader struct {
	r        io.Reader
	n, limit int64
}

func (ir *inputReader) Read(p []byte) (int, error) {
	n, err := ir.r.Read(p)
	ir.n += int64(n)
	if ir.n > ir.limit {
		return n, &InputLimitError{Limit: ir.limit}
	}
	if err != nil && err != io.EOF {
		if _, ok := ir.r.(*gzip.Reader); ok {
			err = fmt.Errorf("importer: gzip: %w", err)
		} else {
			err = fmt.Errorf("importer: read: %w", err)
		}
	}
	return n, err
}

// repairReader passes its source on and, at its end, appends the closing
// brackets it lacks after dropping a trailing comma: Kernel Tuner appends
// one cache entry at a time and writes the closing braces only when
// tuning ends. Data cut inside a string, or with a closing bracket too
// many, is left for the JSON decoder to refuse. It also refuses a string
// or number longer than maxToken, which the decoder would hold whole.
// Its memory is the open brackets, a stack of one byte a level.
type repairReader struct {
	src               io.Reader
	buf               []byte
	out               []byte // processed bytes not yet returned
	held              []byte // trailing white space and commas, held back
	open              []byte // the closing bracket of each open level
	inString, escaped bool
	run               int // bytes of the current string or number
	done              bool
}

func newRepairReader(src io.Reader) *repairReader {
	return &repairReader{src: src, buf: make([]byte, 32<<10)}
}

func (rr *repairReader) Read(p []byte) (int, error) {
	for len(rr.out) == 0 {
		if rr.done {
			return 0, io.EOF
		}
		n, err := rr.src.Read(rr.buf)
		if perr := rr.process(rr.buf[:n]); perr != nil {
			return 0, perr
		}
		if err == io.EOF {
			if err := rr.finish(); err != nil {
				return 0, err
			}
			rr.done = true
		} else if err != nil {
			return 0, err
		}
	}
	n := copy(p, rr.out)
	rr.out = rr.out[:copy(rr.out, rr.out[n:])]
	return n, nil
}

// maxHeld is the most white space held back between two tokens; more is
// dropped (it means nothing in JSON).
const maxHeld = 64

func (rr *repairReader) process(data []byte) error {
	for _, c := range data {
		switch {
		case rr.inString:
			switch {
			case rr.escaped:
				rr.escaped = false
			case c == '\\':
				rr.escaped = true
			case c == '"':
				rr.inString = false
				rr.run = 0
			}
			rr.run++
		case c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ',':
			rr.run = 0
			if len(rr.held) < maxHeld || c == ',' {
				rr.held = append(rr.held, c)
			}
			if len(rr.held) > maxHeld {
				// Commas beyond the white space: JSON no decoder takes;
				// pass them on for it to refuse.
				rr.flush()
			}
			continue
		case c == '"':
			rr.inString = true
			rr.run = 0
		case c == '{':
			rr.open = append(rr.open, '}')
			rr.run = 0
		case c == '[':
			rr.open = append(rr.open, ']')
			rr.run = 0
		case c == '}' || c == ']':
			if len(rr.open) > 0 {
				rr.open = rr.open[:len(rr.open)-1]
			}
			rr.run = 0
		case c == ':':
			rr.run = 0
		default:
			rr.run++
		}
		if rr.run > maxToken {
			return fmt.Errorf("%w: a string or number over %d bytes", features.ErrLimit, maxToken)
		}
		rr.flush()
		rr.out = append(rr.out, c)
	}
	return nil
}

// flush passes the held bytes on.
func (rr *repairReader) flush() {
	rr.out = append(rr.out, rr.held...)
	rr.held = rr.held[:0]
}

// finish ends the data: as it is when every bracket is closed, else
// without its trailing comma and white space, with a newline and the
// missing brackets.
func (rr *repairReader) finish() error {
	if rr.inString {
		return fmt.Errorf("%w: input ends inside a string", ErrFormat)
	}
	if len(rr.open) == 0 {
		rr.flush()
		return nil
	}
	if i := bytes.LastIndexByte(rr.held, ','); i >= 0 {
		rr.out = append(rr.out, rr.held[:i]...)
	}
	rr.out = bytes.TrimRight(rr.out, " \t\r\n")
	rr.held = rr.held[:0]
	rr.out = append(rr.out, '\n')
	for i := len(rr.open) - 1; i >= 0; i-- {
		rr.out = append(rr.out, rr.open[i])
	}
	return nil
}

// decodeTuneParams reads tune_params, an object of integer lists, number
// lists and string lists, a token at a time: a list longer than
// features.MaxParamValues is refused as soon as it is, in constant memory
// (a cache file declaring 2M values for one parameter is 4 KB compressed).
// A list of numbers not all integers is returned among the strings, as
// written, and marked in floats.
func decodeTuneParams(dec *json.Decoder) (map[string][]int, map[string][]string, map[string]bool, error) {
	fail := func(err error) (map[string][]int, map[string][]string, map[string]bool, error) {
		return nil, nil, nil, err
	}
	if err := expectDelim(dec, '{'); err != nil {
		return fail(err)
	}
	out, strs, floats := map[string][]int{}, map[string][]string{}, map[string]bool{}
	for dec.More() {
		k, err := objectKey(dec)
		if err != nil {
			return fail(err)
		}
		if len(out)+len(strs) >= features.MaxParams {
			return fail(fmt.Errorf("%w: tune_params has over %d parameters", features.ErrLimit, features.MaxParams))
		}
		if err := expectDelim(dec, '['); err != nil {
			return fail(fmt.Errorf("%w: tune_params %q: %v", ErrFormat, k, err))
		}
		// Every value as written; what they are decided once all are read.
		var texts []string
		nums, whole := 0, true
		for dec.More() {
			if len(texts) == features.MaxParamValues {
				return fail(fmt.Errorf("%w: parameter %s declares more than %d values", features.ErrLimit, k, features.MaxParamValues))
			}
			tok, err := dec.Token()
			if err != nil {
				return fail(tokenErr(err))
			}
			switch v := tok.(type) {
			case string:
				texts = append(texts, v)
			case json.Number:
				f, err := v.Float64()
				if err != nil || math.IsInf(f, 0) {
					return fail(fmt.Errorf("%w: parameter %s has value %v, not a finite number", ErrFormat, k, tok))
				}
				whole = whole && f == math.Trunc(f) && math.Abs(f) <= 1<<53
				texts, nums = append(texts, v.String()), nums+1
			default:
				return fail(fmt.Errorf("%w: parameter %s has value %v, want numbers or strings", ErrFormat, k, tok))
			}
		}
		if err := expectDelim(dec, ']'); err != nil {
			return fail(err)
		}
		switch {
		case len(texts) == 0:
			out[k] = nil
			continue
		case nums > 0 && nums < len(texts):
			return fail(fmt.Errorf("%w: parameter %s mixes numbers and strings", ErrFormat, k))
		case nums > 0 && whole:
			vs := make([]int, len(texts))
			for i, t := range texts {
				f, _ := strconv.ParseFloat(t, 64)
				vs[i] = int(f)
			}
			out[k] = vs
			continue
		}
		for i, t := range texts {
			if slices.Contains(texts[:i], t) {
				return fail(fmt.Errorf("%w: parameter %s lists %q twice", ErrFormat, k, t))
			}
		}
		strs[k], floats[k] = texts, nums > 0
	}
	if err := expectDelim(dec, '}'); err != nil {
		return fail(err)
	}
	return out, strs, floats, nil
}

// tokenErr is a decoder's error as the readers return it: a limit the
// input reader enforces as it is, anything else as malformed input.
func tokenErr(err error) error {
	if errors.Is(err, features.ErrLimit) {
		return err
	}
	return fmt.Errorf("%w: %v", ErrFormat, err)
}

// expectDelim reads the next token and checks that it is the delimiter d.
func expectDelim(dec *json.Decoder, d json.Delim) error {
	t, err := dec.Token()
	if err != nil {
		return tokenErr(err)
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
		return "", tokenErr(err)
	}
	k, ok := t.(string)
	if !ok {
		return "", fmt.Errorf("%w: got %v, want an object key", ErrFormat, t)
	}
	return k, nil
}
