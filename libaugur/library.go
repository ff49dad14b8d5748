package main

import (
	"bytes"
	"crypto/ed25519"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/predict"
	"github.com/augur-tuning/augur/runtime"
)

// status is a return code of the C API; the values are augur_types.h's
// AUGUR_OK and AUGUR_ERR_* (TestStatusCodesMatchHeader checks).
type status int32

const (
	statusOK          status = 0
	statusArg         status = 1
	statusHandle      status = 2
	statusIO          status = 3
	statusBundle      status = 4
	statusVersion     status = 5
	statusDevice      status = 6
	statusShape       status = 7
	statusConfig      status = 8
	statusNoWisdom    status = 9
	statusTruncated   status = 10
	statusUnsupported status = 11
	statusUntrusted   status = 12
	statusInternal    status = 99
)

// The kinds augur_param_labels writes: augur_types.h's AUGUR_PARAM_*.
const (
	paramInt    = 0
	paramFloat  = 1
	paramString = 2
)

// maxParams is AUGUR_MAX_PARAMS: the fixed array of augur_config.
const maxParams = 64

// callError is an error with the C return code that reports it.
type callError struct {
	code status
	err  error
}

func (e *callError) Error() string { return e.err.Error() }
func (e *callError) Unwrap() error { return e.err }

// fail returns err as a callError with code; the message gets the
// library's prefix unless it names its package already.
func fail(code status, err error) error {
	if !strings.HasPrefix(err.Error(), "runtime:") && !strings.HasPrefix(err.Error(), "features:") &&
		!strings.HasPrefix(err.Error(), "predict:") && !strings.HasPrefix(err.Error(), "datasets:") {
		err = fmt.Errorf("libaugur: %w", err)
	}
	return &callError{code, err}
}

func failf(code status, format string, args ...any) error {
	return &callError{code, fmt.Errorf("libaugur: "+format, args...)}
}

// codeOf returns the return code of err (statusOK for nil).
func codeOf(err error) status {
	var ce *callError
	switch {
	case err == nil:
		return statusOK
	case errors.As(err, &ce):
		return ce.code
	}
	return statusInternal
}

// openOptions is augur_open_options in Go.
type openOptions struct {
	Path         string
	Bundle       []byte
	Device       string
	PlatformJSON string
	WisdomPath   string
	// TrustedKeysPEM holds PEM public keys; SignaturePath the bundle's
	// signature file ("" means Path + ".sig").
	TrustedKeysPEM string
	SignaturePath  string
}

// library is the table of open choosers behind the C API's integer
// handles: C never holds a Go pointer. The C entry points share one
// library (export.go); tests make their own.
type library struct {
	mu      sync.RWMutex
	next    int64
	handles map[int64]*handle
}

func newLibrary() *library { return &library{handles: map[int64]*handle{}} }

// handle is one open chooser.
type handle struct {
	chooser    *runtime.Chooser
	wisdom     *runtime.Wisdom // nil without a wisdom path
	space      *features.Space
	shapeNames []string
	paramNames []string
	valueNames []string // the arguments a configuration sets (Plan.Values)
	// labels are each parameter's value texts (runtime.Chooser.ParamLabels),
	// nil for an integer parameter; numeric marks a float parameter's.
	labels  [][]string
	numeric []bool
}

// open loads a bundle as opt says and returns the new chooser's handle.
func (l *library) open(opt openOptions) (int64, error) {
	data := opt.Bundle
	switch {
	case opt.Path != "" && opt.Bundle != nil:
		return 0, failf(statusArg, "open: both a path and a bundle's bytes given; set one")
	case opt.Path != "":
		var err error
		if data, err = os.ReadFile(opt.Path); err != nil {
			return 0, fail(statusIO, err)
		}
	case len(opt.Bundle) == 0:
		return 0, failf(statusArg, "open: no bundle: set a path or the bundle's bytes")
	}
	if opt.TrustedKeysPEM != "" {
		// Before anything reads the bytes: the signature covers them all.
		keys, sig, err := trust(opt)
		if err != nil {
			return 0, err
		}
		if _, err := features.VerifyBundle(data, sig, keys); err != nil {
			return 0, fail(statusUntrusted, err)
		}
	}
	b, err := features.ReadBundle(data)
	if err != nil {
		return 0, fail(statusBundle, err)
	}
	ropt := runtime.Options{Device: opt.Device}
	switch {
	case opt.PlatformJSON != "":
		p, err := parsePlatform(opt.PlatformJSON)
		if err != nil {
			return 0, err
		}
		ropt.Platform = &p
	case opt.Device != "":
		// A device the bundle has no model of but the shipped device
		// table knows gets its features from the table, as 'augur
		// choose --device' does.
		if err := runtime.ResolveDevice(b, opt.Device, nil, &ropt); err != nil {
			return 0, fail(statusDevice, err)
		}
	}
	h := &handle{}
	if opt.WisdomPath != "" {
		// Records carry the device's slug, whatever name it was opened
		// by, as augur choose and tune read and write them.
		device, err := runtime.WisdomDevice(b, ropt)
		if err != nil {
			return 0, fail(statusDevice, err)
		}
		w, err := runtime.OpenWisdom(opt.WisdomPath, runtime.WisdomOptions{KernelVersion: b.KernelVersion, Device: device})
		if err != nil {
			return 0, fail(statusIO, err)
		}
		h.wisdom, ropt.Wisdom = w, w
	}
	ch, err := runtime.FromBundle(b, ropt)
	if err == nil && ch.Source() == runtime.SourceReference && (opt.Device != "" || ropt.Platform != nil) {
		var names []string
		for _, m := range b.Models {
			names = append(names, m.Name)
		}
		err = failf(statusDevice, "open: bundle has no model for device %q (it has %s); a device with no model of its own needs its features (platform_json) and a bundle with a fleet model",
			deviceName(opt.Device, ropt.Platform), strings.Join(names, ", "))
	}
	if err == nil && ch.OtherDevice() != "" {
		// A library has no terminal to warn on: picks learnt on other
		// hardware are refused, not served in silence.
		err = failf(statusDevice, "open: bundle has no model for device %q; its only model is of %s: open with no device to use it anyway",
			deviceName(opt.Device, ropt.Platform), ch.OtherDevice())
	}
	if err == nil && len(ch.ParamNames()) > maxParams {
		err = failf(statusUnsupported, "open: kernel %s has %d parameters, libaugur takes at most %d", b.Kernel, len(ch.ParamNames()), maxParams)
	}
	if err != nil {
		if h.wisdom != nil {
			h.wisdom.Close()
		}
		switch {
		case codeOf(err) != statusInternal:
		case errors.Is(err, runtime.ErrKernelVersion):
			err = fail(statusVersion, err)
		case errors.Is(err, predict.ErrNoModel):
			err = fail(statusDevice, err)
		default:
			err = fail(statusBundle, err)
		}
		return 0, err
	}
	h.chooser, h.space = ch, ch.Space()
	h.shapeNames, h.paramNames, h.valueNames = ch.TaskNames(), ch.ParamNames(), ch.PlanValueNames()
	for i := range h.paramNames {
		l, num := ch.ParamLabels(i)
		h.labels, h.numeric = append(h.labels, l), append(h.numeric, num)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.next++
	l.handles[l.next] = h
	return l.next, nil
}

func deviceName(device string, p *features.Platform) string {
	if device != "" || p == nil {
		return device
	}
	return p.Name
}

// parsePlatform reads one device's features as `augur devices --json`
// prints them: an object, an array of one, or `--bench`'s {"Platform":
// {...}} form.
func parsePlatform(s string) (features.Platform, error) {
	data := bytes.TrimSpace([]byte(s))
	if len(data) > 0 && data[0] == '[' {
		var list []json.RawMessage
		if err := json.Unmarshal(data, &list); err != nil {
			return features.Platform{}, fail(statusArg, fmt.Errorf("platform_json: %w", err))
		}
		if len(list) != 1 {
			return features.Platform{}, failf(statusArg, "platform_json: an array of %d devices; give one", len(list))
		}
		data = list[0]
	}
	var p features.Platform
	var wrapped struct{ Platform *features.Platform }
	if err := json.Unmarshal(data, &wrapped); err == nil && wrapped.Platform != nil {
		p = *wrapped.Platform
	} else if err := json.Unmarshal(data, &p); err != nil {
		return p, fail(statusArg, fmt.Errorf("platform_json: %w", err))
	}
	if p.Name == "" {
		return p, failf(statusArg, "platform_json: no device name (\"name\")")
	}
	return p, nil
}

// get returns the open chooser of handle h.
func (l *library) get(h int64) (*handle, error) {
	l.mu.RLock()
	c := l.handles[h]
	l.mu.RUnlock()
	if c == nil {
		return nil, failf(statusHandle, "no open chooser has handle %d", h)
	}
	return c, nil
}

// close closes handle h.
func (l *library) close(h int64) error {
	l.mu.Lock()
	c := l.handles[h]
	delete(l.handles, h)
	l.mu.Unlock()
	if c == nil {
		return failf(statusHandle, "close: no open chooser has handle %d", h)
	}
	if c.wisdom != nil {
		if err := c.wisdom.Close(); err != nil {
			return fail(statusIO, err)
		}
	}
	return nil
}

// task converts a C shape into a features.Task, checking its length.
func (c *handle) task(shape []int64) (features.Task, error) {
	if len(shape) != len(c.shapeNames) {
		return nil, failf(statusShape, "shape has %d values, want %d (%s)", len(shape), len(c.shapeNames), strings.Join(c.shapeNames, ", "))
	}
	t := make(features.Task, len(shape))
	for i, v := range shape {
		if v < math.MinInt32 || v > math.MaxInt32 {
			return nil, failf(statusShape, "shape value %s=%d out of range", c.shapeNames[i], v)
		}
		t[i] = int(v)
	}
	return t, nil
}

// choose returns the pick for shape.
func (c *handle) choose(shape []int64) (runtime.Pick, error) {
	t, err := c.task(shape)
	if err != nil {
		return runtime.Pick{}, err
	}
	p, err := c.chooser.ChoosePick(t)
	if err != nil {
		return runtime.Pick{}, shapeOrInternal(err)
	}
	return p, nil
}

// shapeOrInternal reports a runtime error as a bad shape when it is one.
func shapeOrInternal(err error) error {
	if errors.Is(err, runtime.ErrShape) {
		return fail(statusShape, err)
	}
	return fail(statusInternal, err)
}

// record appends a measurement to the handle's wisdom.
func (c *handle) record(shape, config []int64, timeNs float64) error {
	if c.wisdom == nil {
		return failf(statusNoWisdom, "record: chooser opened without a wisdom file")
	}
	t, err := c.task(shape)
	if err != nil {
		return err
	}
	if _, err := c.chooser.Plan(t, c.chooser.Reference()); err != nil {
		return shapeOrInternal(err)
	}
	cfg, err := c.config("record", config)
	if err != nil {
		return err
	}
	if !(timeNs > 0) || math.IsInf(timeNs, 0) {
		return failf(statusArg, "record: time must be positive and finite, got %g ns", timeNs)
	}
	if err := c.wisdom.Record(t, cfg, timeNs); err != nil {
		return fail(statusIO, err)
	}
	return nil
}

// refresh reads the records other choosers and processes appended to the
// handle's wisdom file since it last read it.
func (c *handle) refresh() error {
	if c.wisdom == nil {
		return failf(statusNoWisdom, "refresh: chooser opened without a wisdom file")
	}
	if err := c.wisdom.Refresh(); err != nil {
		return fail(statusIO, err)
	}
	return nil
}

// config converts a C configuration into a features.Config of the space;
// op names the call in errors.
func (c *handle) config(op string, config []int64) (features.Config, error) {
	if len(config) != len(c.paramNames) {
		return nil, failf(statusConfig, "%s: configuration has %d values, want %d (%s)", op, len(config), len(c.paramNames), strings.Join(c.paramNames, ", "))
	}
	cfg := make(features.Config, len(config))
	for i, v := range config {
		if v < math.MinInt32 || v > math.MaxInt32 {
			return nil, failf(statusConfig, "%s: %s=%d out of range", op, c.paramNames[i], v)
		}
		cfg[i] = int(v)
	}
	if !c.space.Valid(cfg) {
		return nil, failf(statusConfig, "%s: configuration %v is outside the tuning space", op, cfg)
	}
	return cfg, nil
}

// planValue returns the value the configuration sets for the kernel
// argument name on shape (runtime.Plan.Values).
func (c *handle) planValue(shape, config []int64, name string) (float64, error) {
	t, err := c.task(shape)
	if err != nil {
		return 0, err
	}
	if !slices.Contains(c.valueNames, name) {
		have := "none"
		if len(c.valueNames) > 0 {
			have = strings.Join(c.valueNames, ", ")
		}
		return 0, failf(statusArg, "plan_value: the configuration sets no argument %q (it sets %s)", name, have)
	}
	cfg, err := c.config("plan_value", config)
	if err != nil {
		return 0, err
	}
	p, err := c.chooser.Plan(t, cfg)
	if err != nil {
		return 0, shapeOrInternal(err)
	}
	return p.Values[name], nil
}

// joinNames writes names joined by ',' with a NUL into buf.
func joinNames(names []string, buf []byte) error {
	s := strings.Join(names, ",")
	if len(buf) < len(s)+1 {
		return failf(statusTruncated, "names need %d bytes, buffer has %d", len(s)+1, len(buf))
	}
	copy(buf, s)
	buf[len(s)] = 0
	return nil
}

// paramLabels writes parameter i's value texts into buf, each
// NUL-terminated, and returns their number and the parameter's kind
// (paramInt, paramFloat or paramString).
func (c *handle) paramLabels(i int, buf []byte) (n, kind int, err error) {
	if i < 0 || i >= len(c.paramNames) {
		return 0, 0, failf(statusArg, "param_labels: parameter %d of %d", i, len(c.paramNames))
	}
	l := c.labels[i]
	switch {
	case l == nil:
		kind = paramInt
	case c.numeric[i]:
		kind = paramFloat
	default:
		kind = paramString
	}
	need := 1
	for _, s := range l {
		need += len(s) + 1
	}
	if len(l) > 0 {
		need-- // the last label's NUL ends the list
	}
	if len(buf) < need {
		return len(l), kind, failf(statusTruncated, "param_labels: the labels of %s need %d bytes, buffer has %d", c.paramNames[i], need, len(buf))
	}
	buf[0] = 0
	at := 0
	for _, s := range l {
		at += copy(buf[at:], s)
		buf[at] = 0
		at++
	}
	return len(l), kind, nil
}

// candidates returns the model's k best configurations for shape, the
// pick first.
func (c *handle) candidates(shape []int64, k int) ([]runtime.Pick, error) {
	if k < 1 {
		return nil, failf(statusArg, "candidates: k must be >= 1, got %d", k)
	}
	t, err := c.task(shape)
	if err != nil {
		return nil, err
	}
	ps, err := c.chooser.Candidates(t, k)
	if err != nil {
		return nil, shapeOrInternal(err)
	}
	return ps, nil
}

// trust reads the trusted keys and the bundle's signature of opt.
func trust(opt openOptions) ([]ed25519.PublicKey, []byte, error) {
	var keys []ed25519.PublicKey
	// Key files joined without a newline between them (cat of files that
	// lack a final one) run an END line into the next BEGIN, which PEM
	// does not read: each BEGIN starts a line here.
	rest := bytes.ReplaceAll([]byte(opt.TrustedKeysPEM), []byte("-----BEGIN "), []byte("\n-----BEGIN "))
	for {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			break
		}
		k, err := features.ParsePublicKey(pem.EncodeToMemory(block))
		if err != nil {
			return nil, nil, fail(statusArg, err)
		}
		keys = append(keys, k)
	}
	if len(keys) == 0 {
		return nil, nil, failf(statusArg, "open: trusted_keys_pem holds no PEM public key")
	}
	path := opt.SignaturePath
	if path == "" {
		if opt.Path == "" {
			return nil, nil, failf(statusArg, "open: trusted keys with a bundle's bytes need signature_path")
		}
		path = opt.Path + ".sig"
	}
	sig, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fail(statusUntrusted, fmt.Errorf("open: the bundle's signature: %w", err))
	}
	return keys, sig, nil
}
