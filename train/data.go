package train

import (
	"errors"
	"fmt"
	"io/fs"
	"iter"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/augur-tuning/augur/collect/record"
	"github.com/augur-tuning/augur/features"
)

// Data is a kernel's training set: one feature vector and target per row,
// and what the metrics need to know about each row.
type Data struct {
	Kernel        string
	KernelVersion string
	TaskNames     []string
	Params        []features.Param
	Constraints   []string
	Reference     features.Config
	// Features are the encoder's column names, one per column of X.
	Features []string
	// Derived is the ID of the derived features in X (LoadOptions.Derived),
	// and DerivedExprs their definitions when they are expressions.
	Derived      string
	DerivedExprs []string
	derive       features.Deriver
	groupParams  []string
	// cols hold the feature vectors, one coded column a feature: about a
	// byte a value, none for a feature of the task, the device or the
	// configuration alone (keyed by the sample's), and no float64 matrix
	// (see codedCol). Row
	// decodes a row; Append adds one.
	cols []codedCol
	// Y is the target of each row: the log-speedup ln(t_ref/t), or Zeta
	// for an invalid row loaded with InvalidZeta.
	Y []float64
	// samples hold what each row was measured on, in columns (see
	// sampleCols); Sample and Samples give them row by row.
	samples sampleCols
	// Platforms are the devices the rows come from, in the order their
	// files were read; Sample.Platform indexes it.
	Platforms []features.Platform
	// OtherVersions are the files left out for holding another kernel
	// version than LoadOptions.KernelVersion.
	OtherVersions []string
}

// Sample is what a row of Data was measured on and how long it took.
type Sample struct {
	Task   features.Task
	Config features.Config
	// Platform indexes Data.Platforms.
	Platform int
	// TimeNs and RefTimeNs are the median times of the configuration and
	// of the reference on the same task and device, in nanoseconds; both
	// zero for an invalid row.
	TimeNs, RefTimeNs float64
}

// Measured reports whether the row has a real time, not a stand-in target
// for an invalid configuration.
func (s Sample) Measured() bool { return s.TimeNs > 0 && s.RefTimeNs > 0 }

// Len is the number of rows.
func (d *Data) Len() int { return len(d.Y) }

// Sample returns what row i was measured on. Its Task and Config are
// shared with every row of the same task or configuration: read them, do
// not modify them.
func (d *Data) Sample(i int) Sample { return d.samples.at(i) }

// Samples returns an iterator over the rows' samples, in order, with each
// row's index, as Sample gives them.
func (d *Data) Samples() iter.Seq2[int, Sample] {
	return func(yield func(int, Sample) bool) {
		for i := range d.samples.len() {
			if !yield(i, d.samples.at(i)) {
				return
			}
		}
	}
}

// Row returns row i's feature vector, decoded into a new slice.
func (d *Data) Row(i int) []float64 { return d.AppendRow(nil, i) }

// AppendRow appends row i's feature vector to dst and returns the extended
// slice; d.AppendRow(buf[:0], i) decodes rows without allocating.
func (d *Data) AppendRow(dst []float64, i int) []float64 {
	for f := range d.cols {
		dst = append(dst, d.cols[f].value(i))
	}
	return dst
}

// value is feature f of row i.
func (d *Data) value(i, f int) float64 { return d.cols[f].value(i) }

// Append adds a row: its feature vector x, laid out as Features, its
// target y and its sample.
func (d *Data) Append(x []float64, y float64, s Sample) error {
	if len(x) != len(d.Features) {
		return fmt.Errorf("train: row of %d features, data has %d", len(x), len(d.Features))
	}
	if s.Platform < 0 || s.Platform > math.MaxUint32 {
		return fmt.Errorf("train: sample's platform %d must be in [0, %d]", s.Platform, uint32(math.MaxUint32))
	}
	if d.samples.len() != len(d.Y) || d.codedRows() != len(d.Y) {
		return fmt.Errorf("train: data has %d samples, %d targets and %d feature vectors", d.samples.len(), len(d.Y), d.codedRows())
	}
	if d.cols == nil {
		d.cols = make([]codedCol, len(d.Features))
	}
	for f, v := range x {
		d.cols[f].push(v)
	}
	d.Y = append(d.Y, y)
	d.samples.push(s)
	return nil
}

// codedRows is the number of feature vectors d holds.
func (d *Data) codedRows() int {
	if len(d.cols) == 0 {
		return 0
	}
	return d.cols[0].len()
}

// fitSet is the fitSet of the given rows of d (every row when rows is
// nil), its targets in buf when buf is not nil. A fit on every row reads
// d's rows and targets where they are, which no fit modifies.
func (d *Data) fitSet(rows []int, buf *fitBuffers) fitSet {
	if rows == nil {
		return fitSet{nFeat: len(d.Features), y: slices.Clip(d.Y), cols: d.cols, buf: buf}
	}
	var y []float64
	if buf != nil {
		y = reuse(&buf.y, len(rows))
	} else {
		y = make([]float64, len(rows))
	}
	for j, i := range rows {
		y[j] = d.Y[i]
	}
	return fitSet{nFeat: len(d.Features), y: y, cols: d.cols, rows: rows, buf: buf}
}

// Encoder returns the encoder that lays d's rows out, whose Names are
// Features.
func (d *Data) Encoder() features.Encoder {
	enc := features.Encoder{TaskNames: d.TaskNames}.WithDerived(d.derive)
	for _, p := range d.Params {
		enc.ParamNames = append(enc.ParamNames, p.Name)
	}
	return enc
}

// Subset returns a Data holding the given rows of d, in that order. The
// feature vectors (a byte or so a value) are copied; the descriptions are
// shared.
func (d *Data) Subset(rows []int) *Data {
	s := *d
	s.samples = d.samples.gather(rows)
	s.cols = make([]codedCol, len(d.cols))
	for f := range d.cols {
		s.cols[f] = d.cols[f].gather(rows, s.samples.key(d.cols[f].keyedBy))
	}
	s.Y = make([]float64, len(rows))
	for j, i := range rows {
		s.Y[j] = d.Y[i]
	}
	return &s
}

// Invalid says what Load does with rows that are not ok (failed to compile,
// run or verify, timed out, or were pruned).
type Invalid int

const (
	// InvalidIgnore leaves invalid rows out.
	InvalidIgnore Invalid = iota
	// InvalidZeta keeps invalid rows with the target LoadOptions.Zeta,
	// so that the model learns to avoid them (Bergstra et al. 2.1).
	InvalidZeta
)

// ParseInvalid reads the name of an Invalid: "ignore" (InvalidIgnore) or
// "zeta" (InvalidZeta), as the command line's --invalid gives it.
func ParseInvalid(s string) (Invalid, error) {
	switch s {
	case "ignore":
		return InvalidIgnore, nil
	case "zeta":
		return InvalidZeta, nil
	}
	return 0, fmt.Errorf("train: invalid handling must be ignore or zeta, got %q", s)
}

// DefaultZeta is the target of invalid rows under InvalidZeta when
// LoadOptions.Zeta is 0: ln(0.1), ten times slower than the reference.
const DefaultZeta = -2.302585092994046

// LoadOptions configure LoadWith. The zero value ignores invalid rows.
type LoadOptions struct {
	// MaxCV drops measured rows whose timings' coefficient of variation
	// exceeds it (their target is mostly noise); 0 keeps every row.
	MaxCV float64
	// Derived computes derived features added to every row (the kernel
	// family's, from datasets, or expressions); nil adds none, and the
	// model then sees the raw features alone (augur train always sets
	// the kernel's: see Train).
	Derived features.Deriver
	// GroupParams are the kernel's work-group parameters
	// (datasets.Kernel.GroupParams): the model's starting points are also
	// drawn from configurations that differ from measured ones only in
	// smaller values of these, as the runtime's picks may be. nil: from
	// measured configurations only.
	GroupParams []string
	Invalid     Invalid
	// Zeta is the target given to invalid rows under InvalidZeta; 0 means
	// DefaultZeta. It must be negative (worse than the reference).
	Zeta float64
	// Specs describe devices from another source than measurement, such
	// as datasets.Devices().Devices (vendor specifications): a device
	// whose files leave a measured platform feature 0 (recorded before
	// collect measured them, or imported) takes it from the spec of the
	// same name, case-insensitively. nil fills nothing.
	Specs []features.Platform
	// Tasks gives the task space to check each file's shapes against
	// (record.ReadOptions.Tasks); nil checks none.
	Tasks func(record.Meta) record.TaskChecker
	// TaskNames, when set, are the kernel's task features (a kernel
	// family's, whose derived features read them by position): a file of
	// other task names is an error naming it. nil checks none.
	TaskNames []string
	// KernelVersion, when set, reads only the files of this kernel
	// version (a spec kernel's datasets.Kernel.Version) and leaves out,
	// counting them in Data.OtherVersions, those collected before the
	// kernel or its spec changed. Empty: every file must be of one
	// version.
	KernelVersion string
}

// zeta checks o and returns the target of invalid rows under InvalidZeta.
func (o LoadOptions) zeta() (float64, error) {
	switch o.Invalid {
	case InvalidIgnore, InvalidZeta:
	default:
		return 0, fmt.Errorf("train: LoadOptions.Invalid must be InvalidIgnore or InvalidZeta, got %d", o.Invalid)
	}
	zeta := o.Zeta
	if zeta == 0 {
		zeta = DefaultZeta
	}
	if !(zeta < 0) || math.IsInf(zeta, 0) {
		return 0, fmt.Errorf("train: LoadOptions.Zeta must be a negative number, got %g", o.Zeta)
	}
	return zeta, nil
}

// Load reads every dataset file under dir/<kernel>/ and builds the
// training set of its ok rows. See LoadWith.
func Load(dir, kernel string) (*Data, error) {
	return LoadWith(dir, kernel, LoadOptions{})
}

// LoadWith reads every dataset file under dir/<kernel>/, recursively. All
// files must agree on the kernel version (or those of another version than
// LoadOptions.KernelVersion are left out), task names, parameters,
// constraints and reference configuration, or the error names the file that
// differs. Ok rows whose log-speedup is unknown (no reference time) are
// left out.
func LoadWith(dir, kernel string, opt LoadOptions) (*Data, error) {
	zeta, err := opt.zeta()
	if err != nil {
		return nil, err
	}
	if !(opt.MaxCV >= 0) {
		return nil, fmt.Errorf("train: LoadOptions.MaxCV must be >= 0, got %g", opt.MaxCV)
	}
	paths, err := record.Files(filepath.Join(dir, kernel))
	if errors.Is(err, fs.ErrNotExist) {
		if filepath.Base(filepath.Clean(dir)) == kernel {
			return nil, fmt.Errorf("train: no dataset files under %s: the data directory is the one that holds %s/, not %s/ itself (%w)", filepath.Join(dir, kernel), kernel, kernel, fs.ErrNotExist)
		}
		return nil, fmt.Errorf("train: no dataset files under %s (no such directory; the data directory holds one directory a kernel): %w", filepath.Join(dir, kernel), fs.ErrNotExist)
	}
	if err != nil {
		return nil, err // record names itself
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("train: no dataset files under %s", filepath.Join(dir, kernel))
	}
	d := &Data{Kernel: kernel, derive: opt.Derived, groupParams: opt.GroupParams}
	if opt.Derived != nil {
		d.Derived = opt.Derived.ID()
		if e, ok := opt.Derived.(*features.ExprDeriver); ok {
			d.DerivedExprs = e.Definitions()
		}
	}
	l := &loader{d: d, opt: opt, zeta: zeta, slugs: map[string]int{}, seen: map[rowKey]int{}}
	// The files are read one at a time, so that one file's rows are alive
	// beside the training set; the feature vectors are encoded at the end,
	// once every file has described its device.
	versions := map[string]bool{}
	for _, path := range paths {
		meta, rows, err := record.ReadFileWith(path, record.ReadOptions{Tasks: opt.Tasks})
		if err != nil {
			return nil, err // record names itself and the file
		}
		if opt.TaskNames != nil && !slices.Equal(meta.TaskNames, opt.TaskNames) {
			return nil, fmt.Errorf("train: %s holds shapes of %v, not kernel %s's %v: data of another kernel under its name", path, meta.TaskNames, kernel, opt.TaskNames)
		}
		if opt.KernelVersion != "" && meta.KernelVersion != opt.KernelVersion {
			d.OtherVersions = append(d.OtherVersions, path)
			versions[meta.KernelVersion] = true
			continue
		}
		if err := l.addFile(l.first.Path == "", record.File{Path: path, Meta: meta}, rows); err != nil {
			return nil, err
		}
	}
	if len(d.OtherVersions) == len(paths) {
		return nil, fmt.Errorf("train: none of the %d files under %s is of kernel version %s (they hold %s): the kernel or its spec changed since they were collected; collect again",
			len(paths), filepath.Join(dir, kernel), opt.KernelVersion, strings.Join(slices.Sorted(maps.Keys(versions)), ", "))
	}
	if d.Len() == 0 {
		return nil, fmt.Errorf("train: no usable rows in %d files under %s", len(paths), filepath.Join(dir, kernel))
	}
	l.encode()
	return d, nil
}

// loader is LoadWith's state while it reads files.
type loader struct {
	d     *Data
	opt   LoadOptions
	zeta  float64
	first record.File
	enc   features.Encoder
	slugs map[string]int
	seen  map[rowKey]int // row index in d
	// repeats are the repeats of each row of d.
	repeats []int
}

// addFile adds the rows of file f, the first read when first, to the
// training set.
func (l *loader) addFile(first bool, f record.File, rows []record.Row) error {
	d, meta := l.d, f.Meta
	if first {
		l.first = f
		d.KernelVersion, d.TaskNames, d.Params = meta.KernelVersion, meta.TaskNames, meta.Params
		d.Constraints, d.Reference = meta.Constraints, meta.Reference
		l.enc = d.Encoder()
		d.Features = l.enc.Names()
	}
	if err := agree(f, l.first, d.Kernel); err != nil {
		return err
	}
	// One description a device, so that all its rows share one platform
	// vector: the first file's, with what it did not measure taken from
	// the device's later files, then from the specs.
	slug := meta.Platform.Slug()
	pi, ok := l.slugs[slug]
	if !ok {
		pi = len(d.Platforms)
		l.slugs[slug] = pi
		d.Platforms = append(d.Platforms, meta.Platform)
	} else {
		d.Platforms[pi] = d.Platforms[pi].FillMeasured(meta.Platform)
	}
	for _, r := range rows {
		if err := l.addRow(f.Path, pi, r); err != nil {
			return err
		}
	}
	return nil
}

// addRow adds row r of the file at path, of platform pi.
func (l *loader) addRow(path string, pi int, r record.Row) error {
	d := l.d
	if l.opt.MaxCV > 0 && r.Status == record.StatusOK && r.TimeCV > l.opt.MaxCV {
		return nil
	}
	y, s, ok := target(r, l.opt.Invalid, l.zeta)
	if !ok {
		return nil
	}
	if len(r.Task) != len(l.enc.TaskNames) || len(r.Config) != len(l.enc.ParamNames) {
		return fmt.Errorf("train: %s: row of %d task and %d parameter values, want %d and %d",
			path, len(r.Task), len(r.Config), len(l.enc.TaskNames), len(l.enc.ParamNames))
	}
	// Rows of one task or configuration share one slice of it (d.samples
	// keeps each once), and a row's key is their indexes.
	tk, ck := d.samples.taskOf(r.Task), d.samples.configOf(r.Config)
	s.Task, s.Config, s.Platform = d.samples.tasks[tk], d.samples.configs[ck], pi
	// A later row of the same (platform, task, config) timed with at least
	// as many repeats supersedes the earlier: a confirmation pass re-times
	// the best configurations with more repeats.
	key := rowKey{pi, tk, ck}
	if at, dup := l.seen[key]; dup {
		if r.Repeats >= l.repeats[at] {
			l.repeats[at] = r.Repeats
			d.Y[at] = y
			d.samples.set(at, s)
		}
		return nil
	}
	l.seen[key] = len(d.Y)
	l.repeats = append(l.repeats, r.Repeats)
	d.Y = append(d.Y, y)
	d.samples.push(s)
	return nil
}

// encode completes the devices' descriptions from LoadOptions.Specs and
// codes every row's feature vector.
func (l *loader) encode() {
	d := l.d
	pvs := make([][]float64, len(d.Platforms))
	for pi, p := range d.Platforms {
		for _, spec := range l.opt.Specs {
			if strings.EqualFold(spec.Name, p.Name) {
				p = p.FillMeasured(spec)
				break
			}
		}
		d.Platforms[pi] = p
		pvs[pi] = p.Vector()
	}
	d.cols = make([]codedCol, l.enc.Len())
	x := make([]float64, l.enc.Len())
	for _, s := range d.Samples() {
		l.enc.Encode(x, s.Task, s.Config, pvs[s.Platform])
		for f, v := range x {
			d.cols[f].push(v)
		}
	}
	for f := range d.cols {
		d.cols[f].index = nil // rebuilt by the first Append
	}
	d.keyColumns()
}

// keyColumns keys every feature that takes one value a device, a task or
// a configuration by the rows' platforms, tasks or configurations
// (codedCol.keyBy), the fewest keys first, and returns the number it
// keyed.
func (d *Data) keyColumns() int {
	n := 0
	for f := range d.cols {
		c := &d.cols[f]
		if c.keyBy(d.samples.platform, keyPlatform, len(d.Platforms)) ||
			c.keyBy(d.samples.task, keyTask, len(d.samples.tasks)) ||
			c.keyBy(d.samples.config, keyConfig, len(d.samples.configs)) {
			n++
		}
	}
	return n
}

// rowKey identifies a row of LoadWith: a configuration on a task and a
// platform.
type rowKey struct {
	platform     int
	task, config uint32 // indexes into Data.samples' tasks and configs
}

// target returns a row's target and times, or false when the row is left
// out. A missing log_speedup is computed from the times when both are
// known.
func target(r record.Row, inv Invalid, zeta float64) (float64, Sample, bool) {
	if r.Status != record.StatusOK {
		if inv == InvalidZeta {
			return zeta, Sample{}, true
		}
		return 0, Sample{}, false
	}
	s := Sample{TimeNs: r.TimeNs, RefTimeNs: r.RefTimeNs}
	y := r.LogSpeedup
	if math.IsNaN(y) && s.Measured() {
		y = math.Log(r.RefTimeNs / r.TimeNs)
	}
	if math.IsNaN(y) || math.IsInf(y, 0) || !s.Measured() {
		return 0, Sample{}, false
	}
	return y, s, true
}

// agree checks that f describes the same kernel, version and space as first.
func agree(f, first record.File, kernel string) error {
	a, b := f.Meta, first.Meta
	var what string
	switch {
	case a.Kernel != kernel:
		return fmt.Errorf("train: %s holds kernel %q, want %q", f.Path, a.Kernel, kernel)
	case a.KernelVersion != b.KernelVersion:
		return fmt.Errorf("train: %s has kernel version %q, unlike %s (%q): the kernel or its spec changed between collections; read one version (a spec names its own) or move the other's files away",
			f.Path, a.KernelVersion, first.Path, b.KernelVersion)
	case !slices.Equal(a.TaskNames, b.TaskNames):
		what = fmt.Sprintf("task names %v", a.TaskNames)
	case !slices.EqualFunc(a.Params, b.Params, func(p, q features.Param) bool {
		return p.Name == q.Name && slices.Equal(p.Values, q.Values)
	}):
		what = fmt.Sprintf("parameters %v", a.Params)
	case !slices.Equal(a.Constraints, b.Constraints):
		what = fmt.Sprintf("constraints %q", a.Constraints)
	case !a.Reference.Equal(b.Reference):
		what = fmt.Sprintf("reference %v", a.Reference)
	default:
		return nil
	}
	return fmt.Errorf("train: %s has %s, unlike %s", f.Path, what, first.Path)
}

// ExprDeriver compiles derived-feature definitions ("name = expression")
// against the task features and parameters of kernel's data under dir.
func ExprDeriver(dir, kernel string, defs []string) (*features.ExprDeriver, error) {
	files, err := record.ReadDir(filepath.Join(dir, kernel))
	if err != nil {
		return nil, err // record names itself and the file
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("train: no dataset files under %s", filepath.Join(dir, kernel))
	}
	m := files[0].Meta
	s, err := features.NewSpace(m.Params, m.Constraints)
	if err != nil {
		return nil, fmt.Errorf("train: %w", err)
	}
	return features.NewExprDeriver(defs, m.TaskNames, s)
}

// Bytes is about the memory d's rows take: their coded feature vectors,
// targets and samples.
func (d *Data) Bytes() int64 {
	n := int64(8*len(d.Y) + d.samples.bytes())
	for f := range d.cols {
		n += int64(d.cols[f].bytes())
	}
	return n
}

// MemoryLimit returns a soft memory limit, in bytes, for training on d,
// for runtime/debug.SetMemoryLimit. Go's collector lets the heap grow to
// about twice what it found live before it collects again (GOGC=100), so
// without a limit training's peak is about twice its largest live heap:
// d, one fit's buffers on every row, and the models with their text. The
// limit is 5/4 of d's Bytes and a fit's buffers on all its rows (a byte a
// feature and 40 bytes a row, at most: large fits bin keyed features by
// key), plus 32 MiB for the models and the program,
// and at least 256 MiB, which the evaluation sets never reach; the
// collector runs sooner as the heap nears it. It is soft: a live heap
// above it is not an error, the collector then uses more of the CPU (at
// most about half, Go's bound). At a million rows (repeated) the default
// selection peaked at 229 bytes a row under this limit (the floor) and
// at 236-240 without, in three runs (bench/RESULTS.md, session 17).
func MemoryLimit(d *Data) int64 {
	fit := int64(d.Len()) * int64(len(d.Features)+40)
	return max(256<<20, (d.Bytes()+fit)*5/4+32<<20)
}
