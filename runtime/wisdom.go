package runtime

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/augur-tuning/augur/features"
)

// WisdomRecord is one measurement of a wisdom file; features owns the
// line format (features.WisdomRecord documents it).
type WisdomRecord = features.WisdomRecord

// SourceWisdom is Pick.Source for a configuration measured on this very
// shape and recorded in the Chooser's wisdom (Options.Wisdom).
const SourceWisdom = "wisdom"

// WisdomOptions configures OpenWisdom.
type WisdomOptions struct {
	// KernelVersion is the version of the kernel whose measurements the
	// store keeps (Bundle.KernelVersion); required. Records of another
	// version are skipped when read, with a warning.
	KernelVersion string
	// Device names the device the measurements are of (a platform slug,
	// say); Record writes it into every record and reading skips, with a
	// warning, records of another device. "" keeps records of any device
	// and writes none.
	Device string
	// Warn receives one line per skipped line or group of records; nil
	// discards the warnings.
	Warn io.Writer
}

// Wisdom is a store of measured (shape, configuration, time) for one kernel
// version and one device, kept in a file of JSON lines, one record a line
// (features.WisdomRecord shows the line). A library measures a shape's
// few candidates (Chooser.Candidates) once, records them, and a Chooser
// given the store (Options.Wisdom) answers that shape with the fastest
// recorded configuration from then on (Pick.Source "wisdom").
//
// Several goroutines may use one Wisdom, and several processes may append
// to one file: Record writes its line with one write(2) on a file opened
// with O_APPEND, under an exclusive flock(2) (where the system has one),
// and first reads the lines other processes appended since, so that each
// process sees the others' records at its next Record (or Refresh).
// A line that does not parse (a torn write of a process that died, a
// damaged file) is skipped with a warning to WisdomOptions.Warn, never an
// error.
type Wisdom struct {
	path string
	opt  WisdomOptions

	mu      sync.Mutex // serializes the file and the fields below
	f       *os.File
	offset  int64 // bytes of the file read so far
	records []WisdomRecord
	best    map[features.TaskKey]int // index of each shape's fastest record
	// gen is len(records), readable without mu: a Chooser compares it
	// with the generation its cache reflects, at every cached Choose.
	gen atomic.Uint64
}

// WisdomDevice returns the device a Chooser of b with opt answers for, as
// WisdomOptions.Device wants it: the slug of the platform that Options
// names or that the fleet model is scored with, or the name of the
// device's own model, whatever name or case Options.Device used. A fleet
// model with no device named serves no one device: an error, as records
// of every device would mix.
func WisdomDevice(b *features.Bundle, opt Options) (string, error) {
	e, plat, _, _, err := selectModel(b, opt)
	switch {
	case err != nil:
		return "", err
	case plat != nil:
		return plat.Slug(), nil
	case opt.Platform != nil:
		return opt.Platform.Slug(), nil
	case e != nil && e.Name != SourceFleet:
		return e.Name, nil
	}
	return "", fmt.Errorf("runtime: wisdom records are of one device: name the device (Options.Device or Platform); the bundle serves no device by default")
}

// OpenWisdom opens the wisdom file at path, creating it when missing, and
// reads the records it holds.
func OpenWisdom(path string, opt WisdomOptions) (*Wisdom, error) {
	if opt.KernelVersion == "" {
		return nil, errors.New("runtime: WisdomOptions.KernelVersion is empty")
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("runtime: wisdom: %w", err)
	}
	w := &Wisdom{path: path, opt: opt, f: f, best: map[features.TaskKey]int{}}
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := lockFile(f, false); err != nil {
		f.Close()
		return nil, fmt.Errorf("runtime: wisdom %s: %w", path, err)
	}
	var warned bytes.Buffer
	warn := w.opt.Warn
	w.opt.Warn = &warned // held until the file is known to be wisdom
	parsed, damaged, notJSON, err := w.read()
	w.opt.Warn = warn
	unlockFile(f)
	if err == nil && parsed == 0 && (damaged > 1 || notJSON == 1 && endsWithNewline(f)) {
		// Not a wisdom file (a bundle or a CSV given by mistake): records
		// appended to it would damage it further. One damaged line alone
		// may be the torn first record of a writer that died, or a record
		// of another augur: a whole line of no JSON object is neither.
		err = fmt.Errorf("runtime: wisdom %s: none of its %d lines is a wisdom record: not a wisdom file", path, damaged)
	}
	if err == nil && warn != nil {
		warn.Write(warned.Bytes())
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return w, nil
}

// KernelVersion returns the kernel version the store keeps.
func (w *Wisdom) KernelVersion() string { return w.opt.KernelVersion }

// Device returns the device the store keeps ("" for any).
func (w *Wisdom) Device() string { return w.opt.Device }

// Record appends a measurement of cfg on shape, in nanoseconds, to the
// file and the store. A Chooser using the store forgets its cached pick of
// shape. The store knows no space: Chooser.Record checks the shape and
// the configuration against the kernel first, and a Chooser passes over a
// record outside its space.
func (w *Wisdom) Record(shape features.Task, cfg features.Config, timeNs float64) error {
	r := WisdomRecord{KernelVersion: w.opt.KernelVersion, Device: w.opt.Device, Shape: slices.Clone(shape), Config: cfg.Clone(), TimeNs: timeNs}
	line, err := features.AppendWisdomLine(nil, r)
	if err != nil {
		return fmt.Errorf("runtime: wisdom record: %w", err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return errors.New("runtime: wisdom record: store is closed")
	}
	if err := lockFile(w.f, true); err != nil {
		return fmt.Errorf("runtime: wisdom %s: %w", w.path, err)
	}
	defer unlockFile(w.f)
	// Others' lines first, so that ours follows them in the store as in
	// the file.
	if err := w.catchUp(); err != nil {
		return err
	}
	if w.offset > 0 {
		// A line torn by a writer that died would swallow ours.
		var last [1]byte
		if _, err := w.f.ReadAt(last[:], w.offset-1); err != nil {
			return fmt.Errorf("runtime: wisdom %s: %w", w.path, err)
		}
		if last[0] != '\n' {
			line = append([]byte{'\n'}, line...)
		}
	}
	n, err := w.f.Write(line)
	if err != nil {
		return fmt.Errorf("runtime: wisdom %s: %w", w.path, err)
	}
	w.offset += int64(n)
	w.add(r)
	return nil
}

// Refresh reads the records other processes appended since the last read.
func (w *Wisdom) Refresh() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return errors.New("runtime: wisdom refresh: store is closed")
	}
	if err := lockFile(w.f, false); err != nil {
		return fmt.Errorf("runtime: wisdom %s: %w", w.path, err)
	}
	defer unlockFile(w.f)
	return w.catchUp()
}

// Best returns the fastest configuration recorded for shape and its time
// in nanoseconds; false when the store has none.
func (w *Wisdom) Best(shape features.Task) (features.Config, float64, bool) {
	if len(shape) > features.MaxTaskLen {
		return nil, 0, false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	i, ok := w.best[shape.Key()]
	if !ok || len(w.records[i].Shape) != len(shape) {
		return nil, 0, false
	}
	return w.records[i].Config.Clone(), w.records[i].TimeNs, true
}

// bestValid is Best among the records whose configuration valid accepts
// (the Chooser's space): a record outside it, such as one written for
// another build of the kernel's space, must not hide the valid ones.
func (w *Wisdom) bestValid(shape features.Task, valid func(features.Config) bool) (features.Config, bool) {
	if len(shape) > features.MaxTaskLen {
		return nil, false
	}
	key := shape.Key()
	w.mu.Lock()
	defer w.mu.Unlock()
	i, ok := w.best[key]
	if !ok {
		return nil, false
	}
	if r := w.records[i]; len(r.Shape) == len(shape) && valid(r.Config) {
		return r.Config.Clone(), true // the fastest is valid: the usual case
	}
	best := -1
	for j, r := range w.records {
		if len(r.Shape) == len(shape) && r.Shape.Key() == key && valid(r.Config) && (best < 0 || r.TimeNs < w.records[best].TimeNs) {
			best = j
		}
	}
	if best < 0 {
		return nil, false
	}
	return w.records[best].Config.Clone(), true
}

// fastest returns the fastest time recorded for cfg at shape; false when
// none is.
func (w *Wisdom) fastest(shape features.Task, cfg features.Config) (float64, bool) {
	key := shape.Key()
	w.mu.Lock()
	defer w.mu.Unlock()
	t, ok := 0.0, false
	for _, r := range w.records {
		if len(r.Shape) == len(shape) && r.Shape.Key() == key && r.Config.Equal(cfg) && (!ok || r.TimeNs < t) {
			t, ok = r.TimeNs, true
		}
	}
	return t, ok
}

// Records returns a copy of every record in the store, in file order.
func (w *Wisdom) Records() []WisdomRecord {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make([]WisdomRecord, len(w.records))
	for i, r := range w.records {
		r.Shape, r.Config = slices.Clone(r.Shape), r.Config.Clone()
		out[i] = r
	}
	return out
}

// Close closes the file; the store answers Best and Records still, and
// Record fails.
func (w *Wisdom) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return nil
	}
	err := w.f.Close()
	w.f = nil
	if err != nil {
		return fmt.Errorf("runtime: wisdom %s: %w", w.path, err)
	}
	return nil
}

// shapesSince returns the shapes of the records from generation gen on:
// what a Chooser whose cache reflects gen must forget.
func (w *Wisdom) shapesSince(gen uint64) []features.TaskKey {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []features.TaskKey
	for _, r := range w.records[min(gen, uint64(len(w.records))):] {
		out = append(out, r.Shape.Key())
	}
	return out
}

// catchUp reads the file from w.offset to its end, under w.mu and a lock
// of the file. Every writer holds the exclusive lock while it writes, so a
// last line without its newline is a torn one, not one being written.
func (w *Wisdom) catchUp() error {
	_, _, _, err := w.read()
	return err
}

// read is catchUp, returning how many lines parsed as records, how many
// did not, and how many of those are no JSON object at all.
func (w *Wisdom) read() (parsed, damaged, notJSON int, err error) {
	st, err := w.f.Stat()
	if err != nil {
		return 0, 0, 0, fmt.Errorf("runtime: wisdom %s: %w", w.path, err)
	}
	if st.Size() <= w.offset {
		return 0, 0, 0, nil
	}
	buf := make([]byte, st.Size()-w.offset)
	if _, err := w.f.ReadAt(buf, w.offset); err != nil && !errors.Is(err, io.EOF) {
		return 0, 0, 0, fmt.Errorf("runtime: wisdom %s: %w", w.path, err)
	}
	start := w.offset
	w.offset += int64(len(buf))
	otherVersion, otherDevice := 0, 0
	for len(buf) > 0 {
		line, rest, _ := bytes.Cut(buf, []byte{'\n'})
		at := start
		start += int64(len(line) + 1)
		buf = rest
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		r, err := features.ParseWisdomLine(line)
		if err == nil {
			parsed++
		}
		switch {
		case err != nil:
			// The first few by place; a file of thousands (a bundle given
			// by mistake) is refused at open, one line.
			if !bytes.HasPrefix(bytes.TrimSpace(line), []byte{'{'}) {
				notJSON++
			}
			if damaged++; damaged <= maxDamagedWarnings {
				w.warn("runtime: wisdom %s: byte %d: skipped a damaged line: %v", w.path, at, err)
			}
		case r.KernelVersion != w.opt.KernelVersion:
			otherVersion++
		case w.opt.Device != "" && r.Device != "" && r.Device != w.opt.Device:
			otherDevice++
		default:
			w.add(r)
		}
	}
	if damaged > maxDamagedWarnings && parsed > 0 {
		w.warn("runtime: wisdom %s: skipped %d damaged lines in all", w.path, damaged)
	}
	if otherVersion > 0 {
		w.warn("runtime: wisdom %s: skipped %d records of another kernel, or another version of it, than %s", w.path, otherVersion, w.opt.KernelVersion)
	}
	if otherDevice > 0 {
		w.warn("runtime: wisdom %s: skipped %d records of other devices than %s", w.path, otherDevice, w.opt.Device)
	}
	return parsed, damaged, notJSON, nil
}

// endsWithNewline reports whether f's last byte is a newline.
func endsWithNewline(f *os.File) bool {
	st, err := f.Stat()
	if err != nil || st.Size() == 0 {
		return false
	}
	var b [1]byte
	_, err = f.ReadAt(b[:], st.Size()-1)
	return err == nil && b[0] == '\n'
}

// maxDamagedWarnings is how many damaged lines read warns of one by one.
const maxDamagedWarnings = 3

// add keeps r, under w.mu.
func (w *Wisdom) add(r WisdomRecord) {
	w.records = append(w.records, r)
	k := r.Shape.Key()
	if i, ok := w.best[k]; !ok || r.TimeNs < w.records[i].TimeNs {
		w.best[k] = len(w.records) - 1
	}
	w.gen.Store(uint64(len(w.records)))
}

func (w *Wisdom) warn(format string, args ...any) {
	if w.opt.Warn != nil {
		fmt.Fprintf(w.opt.Warn, format+"\n", args...)
	}
}

// KernelVersion returns the version of the kernel the bundle was trained
// on: the version a wisdom store for this Chooser keeps
// (WisdomOptions.KernelVersion).
func (c *Chooser) KernelVersion() string { return c.bundle.KernelVersion }

// Record checks shape and cfg against the kernel and records the
// measurement, in nanoseconds, in the Chooser's wisdom (Options.Wisdom);
// the next Choose of shape answers from it. An error without a wisdom
// store, for a bad shape (wrapping ErrShape) or a configuration outside
// the space.
func (c *Chooser) Record(shape features.Task, cfg features.Config, timeNs float64) error {
	if c.opt.Wisdom == nil {
		return errors.New("runtime: Record: the Chooser has no wisdom (Options.Wisdom)")
	}
	if err := c.checkShape(shape); err != nil {
		return err
	}
	if err := c.space.Check(cfg); err != nil {
		return fmt.Errorf("runtime: Record: %w", err)
	}
	return c.opt.Wisdom.Record(shape, cfg, timeNs)
}
