package importer

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/augur-tuning/augur/collect/record"
	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/features"
)

// The formats Import reads, the values of Options.From.
const (
	FromKernelTuner = "kerneltuner"
	FromT4          = "t4"
)

// Options configure Import. From, Files, Kernel and Out are required; the
// zero value of every other field means the documented default.
type Options struct {
	// From is the format of Files: FromKernelTuner or FromT4.
	From string
	// Files are the input files; each becomes one dataset file.
	Files []string
	// Kernel is augur's name for the kernel: the directory under Out and
	// the kernel recorded in the files.
	Kernel string
	// Spec is the path of a T1 kernel description. It supplies the
	// parameters, constraints and default (reference) configuration, the
	// names of the problem sizes (see the package documentation), and for
	// T4 the problem size. Without it the space is the product of the
	// file's parameter values with no constraints.
	Spec string
	// Out is the dataset directory; files go to
	// <Out>/<Kernel>/<platform slug>/import-<input name>.arrow.
	Out string
	// Shape is the problem size of the inputs, "name=value,...", for
	// files that give none (T4's, a Kernel Tuner cache without
	// problem_size); a file's own problem size must agree with it. With a
	// spec that names its problem sizes it names each of them (a size
	// answering to problem_size_I too); otherwise its names, in its
	// order, name the sizes. "" takes the spec's ProblemSize for a file
	// that gives none: every T4 file then has that one shape.
	Shape string
	// Device names the device the files were measured on, overriding the
	// names the files give. T4 files name none, so it is required for T4,
	// and for a Kernel Tuner file whose device_name is empty.
	Device string
	// Platforms is the device table the device is looked up in (by name,
	// case-insensitive): its features become the dataset's platform, so
	// that a fleet model can tell the devices apart. A device not in the
	// table is imported described by its name alone (PlatformOf), with
	// every numeric feature zero and a warning (FileSummary.Warning). nil
	// describes every device so, without a warning.
	Platforms *datasets.DeviceTable
	// Set fixes the value of spec parameters that the files lack: a file
	// measured with a parameter held at one value may omit it. Each value
	// must be one of the parameter's values in Spec.
	Set map[string]int
	// TaskParams names tuning parameters to move into the task features,
	// after the problem size: a parameter a kernel is tuned over but a
	// caller fixes, such as a filter's size. Each must have exactly one
	// value in the space; constraints that mention it get that value
	// substituted (and so need Spec's Python conditions, which Import
	// translates again).
	TaskParams []string
	// BatchRows is the number of rows per Arrow record batch; 0 means
	// record.DefaultBatchRows.
	BatchRows int
	// Compression is the codec of the files' record batches; "" means
	// zstd (record.Compression).
	Compression record.Compression
	// MaxInputBytes is the most an input file may hold, decompressed, in
	// bytes; a larger one is refused with an *InputLimitError. 0 means
	// DefaultMaxInputBytes (1 GiB). Memory does not grow with it: it
	// bounds the time a corrupt or hostile file takes.
	MaxInputBytes int64
	// Now returns the creation time written into each file; nil means
	// time.Now.
	Now func() time.Time
}

// Summary reports what Import wrote, one entry per input file.
type Summary struct {
	Files []FileSummary `json:"files"`
}

// FileSummary reports the import of one input file.
type FileSummary struct {
	// Input is the file read and Path the dataset file written.
	Input    string            `json:"input"`
	Path     string            `json:"path"`
	Platform features.Platform `json:"platform"`
	// Counts are the rows written, by status.
	Counts map[record.Status]int `json:"counts"`
	// Violations counts the configurations left out because they are not
	// in the space (a value out of a parameter's domain or a constraint
	// broken); Violation describes the first.
	Violations int    `json:"violations"`
	Violation  string `json:"violation,omitempty"`
	// Reference is the configuration log-speedups are taken against,
	// written out as "name=value,...", and RefTimeNs the time used for
	// it: its median time, or, when RefFromMedian, the median over the
	// ok rows because the reference failed or was not measured.
	Reference     string  `json:"reference"`
	RefTimeNs     float64 `json:"ref_time_ns"`
	RefFromMedian bool    `json:"ref_from_median"`
	// Best is the fastest ok configuration ("name=value,...") and
	// BestTimeNs its median time; empty and zero when no row is ok.
	Best       string  `json:"best,omitempty"`
	BestTimeNs float64 `json:"best_time_ns"`
	// MeanOnly counts the ok rows written without runs because the file
	// gives only their mean time (Measurement.MeanOnly); String names
	// them when there are any.
	MeanOnly int `json:"mean_only"`
	// Duplicates counts the rows whose configuration an earlier row of
	// the input has (a T4 file that measured it twice, say): all are
	// written, and training keeps one row of each configuration, the
	// later unless it has fewer runs. Duplicate names one of them.
	Duplicates int    `json:"duplicates"`
	Duplicate  string `json:"duplicate,omitempty"`
	// Unrecognized counts the failed rows of configurations whose result
	// the format does not define (Measurement.Unrecognized): a failure
	// string it does not know, or a time no run can take. Among Counts,
	// by the status given them; Unrecognized describes the first.
	Unrecognized      int    `json:"unrecognized"`
	UnrecognizedFirst string `json:"unrecognized_first,omitempty"`
	// Shape is the rows' task, "name=value,..." (the problem size, then
	// the task parameters), and ShapeFrom where the problem size came
	// from: ShapeFromFile, ShapeFromGiven or ShapeFromSpec ("" when the
	// rows have none).
	Shape     string `json:"shape"`
	ShapeFrom string `json:"shape_from,omitempty"`
	// Labels are the values that the rows' numbers of string and float
	// parameters stand for, by parameter (0 the first): the spec's order,
	// or the file's. A bundle trained on the rows knows only the numbers.
	Labels map[string][]string `json:"labels,omitempty"`
	// Warning says, in one line, what was imported with less than the
	// file could have given, or what will not read it as the caller may
	// expect: a device the device table (Options.Platforms) lacks, whose
	// platform features are left unknown; rows that are not of the
	// spec's kernel version. Empty when none. String leaves it out, so
	// that a caller can print it apart (augur import writes it to
	// stderr).
	Warning string `json:"warning,omitempty"`
}

// warn adds w to the file's warning, after a "; ".
func (f *FileSummary) warn(w string) {
	if f.Warning != "" {
		f.Warning += "; "
	}
	f.Warning += w
}

// Rows is the number of rows written.
func (f FileSummary) Rows() int {
	n := 0
	for _, c := range f.Counts {
		n += c
	}
	return n
}

// String prints one line per file.
func (s *Summary) String() string {
	lines := make([]string, len(s.Files))
	for i, f := range s.Files {
		lines[i] = f.String()
	}
	return strings.Join(lines, "\n")
}

// String prints the file's counts, best time and reference on one line.
func (f FileSummary) String() string {
	statuses := make([]record.Status, 0, len(f.Counts))
	for st := range f.Counts {
		statuses = append(statuses, st)
	}
	slices.Sort(statuses)
	parts := make([]string, len(statuses))
	for i, st := range statuses {
		parts[i] = fmt.Sprintf("%s %d", st, f.Counts[st])
	}
	ref := fmt.Sprintf("reference %s %.4g ms", f.Reference, f.RefTimeNs/1e6)
	if f.RefFromMedian {
		ref = fmt.Sprintf("reference failed or missing (%s), using the median %.4g ms", f.Reference, f.RefTimeNs/1e6)
	}
	best := "no ok rows"
	if f.Best != "" {
		best = fmt.Sprintf("best %.4g ms (%s)", f.BestTimeNs/1e6, f.Best)
	}
	outside := fmt.Sprintf("%d outside the space", f.Violations)
	if f.Violations > 0 {
		outside += " (first: " + strings.TrimPrefix(f.Violation, "importer: ") + ")"
	}
	shape := "no shape"
	if f.Shape != "" {
		shape = "shape " + f.Shape
	}
	switch f.ShapeFrom {
	case ShapeFromGiven:
		shape += " (given)"
	case ShapeFromSpec:
		shape += " (the spec's ProblemSize)"
	}
	line := fmt.Sprintf("%s on %s, %s: %d rows [%s], %s; %s; %s",
		f.Path, f.Platform.Slug(), shape, f.Rows(), strings.Join(parts, ", "), outside, best, ref)
	if f.MeanOnly > 0 {
		line += fmt.Sprintf("; %d ok rows with a mean time only, no runs", f.MeanOnly)
	}
	if f.Duplicates > 0 {
		line += fmt.Sprintf("; %d rows repeat a configuration of an earlier row (such as %s): training keeps one row of each", f.Duplicates, f.Duplicate)
	}
	if f.Unrecognized > 0 {
		line += fmt.Sprintf("; %d failed rows of results the format does not define (first: %s)", f.Unrecognized, f.UnrecognizedFirst)
	}
	names := make([]string, 0, len(f.Labels))
	for n := range f.Labels {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		nums := make([]string, len(f.Labels[n]))
		for i, l := range f.Labels[n] {
			nums[i] = fmt.Sprintf("%d=%s", i, l)
		}
		line += fmt.Sprintf("; %s numbered %s", n, strings.Join(nums, " "))
	}
	return line
}

// dataset is one input file converted, ready to write.
type dataset struct {
	path string
	meta record.Meta
	// rows calls emit with each row to write, in file order. Import's
	// read the input file again (the first reading only counted), so that
	// no more than one row is in memory at a time.
	rows func(emit func(record.Row) error) error
	sum  FileSummary
	// task is the rows' task, and configs the space indexes
	// (features.Space.Index) of the rows' configurations, sorted: 8 bytes
	// a row, to find configurations given twice.
	task    features.Task
	configs []int
	// space is the rows' space, and firstDup the smallest index of a
	// configuration given twice (when sum.Duplicates > 0), which writing
	// names.
	space    *features.Space
	firstDup int
}

// Import converts every input file and writes one dataset file for each.
// It converts all inputs before writing any, so that a malformed input or
// an output path that exists already (it never overwrites one) stops the
// import with nothing written; it writes every file under a temporary name
// and publishes them only once all are complete, so that a failed write
// publishes nothing either (and a retry finds the paths free). When ctx
// is done (an interrupt), it stops within a row, removes what it wrote
// and returns an error that wraps ctx's. An input without results is
// refused with ErrNoResults. Declared sizes beyond features' limits
// (features.CheckSpaceLimits) are refused before the space is built. The
// summary lists the files written.
func Import(ctx context.Context, opt Options) (*Summary, error) {
	if err := opt.check(); err != nil {
		return nil, err
	}
	var spec *Spec
	var kernel *datasets.Kernel // the spec as augur reads it; nil when it does not
	if opt.Spec != "" {
		f, err := os.Open(opt.Spec)
		if err != nil {
			return nil, fmt.Errorf("importer: %w", err)
		}
		spec, err = ReadT1(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", opt.Spec, err)
		}
		if k, err := datasets.ReadSpec(opt.Spec); err == nil {
			// train and eval --spec read rows of the spec's task names
			// (problem_size_0, ... unless the spec names them).
			kernel, spec.ProblemSizeNames = k, k.TaskNames
		}
	}
	now := time.Now
	if opt.Now != nil {
		now = opt.Now
	}
	given, err := parseShape(opt.Shape, spec)
	if err != nil {
		return nil, err
	}
	var sets []*dataset
	planned := map[string]string{}
	for _, in := range opt.Files {
		d, err := convert(ctx, fileSource(in, opt.From, spec, cmp.Or(opt.MaxInputBytes, DefaultMaxInputBytes)), spec, given, opt)
		if errors.Is(err, ErrNoResults) {
			return nil, fmt.Errorf("%w in %s; nothing written", ErrNoResults, in)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", in, err)
		}
		d.meta.Created = now().UTC()
		d.sum.Input = in
		d.path = filepath.Join(opt.Out, opt.Kernel, d.meta.Platform.Slug(), "import-"+baseName(in)+".arrow")
		d.sum.Path = d.path
		if prev, dup := planned[d.path]; dup {
			return nil, fmt.Errorf("importer: %s and %s would both be written to %s", prev, in, d.path)
		}
		planned[d.path] = in
		if _, err := os.Stat(d.path); err == nil {
			return nil, fmt.Errorf("importer: %s: %w", d.path, fs.ErrExist)
		}
		sets = append(sets, d)
	}
	if kernel != nil {
		if w := specVersion(kernel, sets); w != "" {
			for _, d := range sets {
				d.sum.warn(w)
			}
		}
	}
	if err := checkVersions(filepath.Join(opt.Out, opt.Kernel), sets); err != nil {
		return nil, err
	}
	warnOverlaps(sets)
	return writeAll(ctx, sets, record.WriterOptions{BatchRows: opt.BatchRows, Compression: opt.Compression})
}

// writeAll writes every dataset to a temporary name first and publishes
// them only once all are complete, so that an error (a row the writer
// refuses, a full disk) leaves no dataset behind, truncated or whole, and
// a retry finds the paths free.
func writeAll(ctx context.Context, sets []*dataset, wopt record.WriterOptions) (*Summary, error) {
	var tmps []string
	defer func() {
		for _, t := range tmps {
			os.Remove(t)
		}
	}()
	for _, d := range sets {
		tmp, err := write(ctx, d, wopt)
		if err != nil {
			return &Summary{}, err
		}
		tmps = append(tmps, tmp)
	}
	sum := &Summary{}
	for i, d := range sets {
		if err := publish(tmps[i], d.path); err != nil {
			for _, done := range sets[:i] {
				os.Remove(done.path)
			}
			return &Summary{}, err
		}
		sum.Files = append(sum.Files, d.sum)
	}
	return sum, nil
}

// interrupted is the error of an import stopped by its context.
func interrupted(err error) error {
	return fmt.Errorf("importer: interrupted, nothing written: %w", err)
}

// publish moves the finished file tmp to path, which must not exist: a
// hard link fails rather than replace a file that appeared meanwhile.
func publish(tmp, path string) error {
	err := os.Link(tmp, path)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("importer: %s: %w", path, fs.ErrExist)
	}
	if err != nil {
		// A file system without hard links: check, then rename.
		if _, serr := os.Lstat(path); serr == nil {
			return fmt.Errorf("importer: %s: %w", path, fs.ErrExist)
		}
		if err := os.Rename(tmp, path); err != nil {
			return fmt.Errorf("importer: %w", err)
		}
	}
	return nil
}

// check refuses options Import cannot work with, naming the field.
func (o Options) check() error {
	switch {
	case o.From != FromKernelTuner && o.From != FromT4:
		return fmt.Errorf("importer: From must be %q or %q, got %q", FromKernelTuner, FromT4, o.From)
	case len(o.Files) == 0:
		return fmt.Errorf("importer: Files is empty, want at least one input file")
	case o.Kernel == "" || o.Kernel != filepath.Base(o.Kernel) || o.Kernel == "." || o.Kernel == "..":
		return fmt.Errorf("importer: Kernel must be a plain name (a directory under Out), got %q", o.Kernel)
	case builtIn(o.Kernel):
		// Its data would be read with that family's shape, space and
		// derived features, which another tuner's kernel does not have.
		return fmt.Errorf("importer: %s is one of augur's kernel families (augur kernels); import under another name", o.Kernel)
	case o.Out == "":
		return fmt.Errorf("importer: Out is empty, want the dataset directory")
	case o.From == FromT4 && o.Device == "":
		return fmt.Errorf("importer: Device is empty; T4 files do not name their device, so it must be given")
	case len(o.Set) > 0 && o.Spec == "":
		return fmt.Errorf("importer: Set needs Spec: the values of parameters a file lacks come from the spec's space")
	case o.BatchRows < 0:
		return fmt.Errorf("importer: BatchRows must be >= 0, got %d", o.BatchRows)
	case o.MaxInputBytes < 0:
		return fmt.Errorf("importer: MaxInputBytes must be >= 0 (0: %s), got %d", sizeText(DefaultMaxInputBytes), o.MaxInputBytes)
	}
	if _, err := record.ParseCompression(string(o.Compression)); err != nil {
		return fmt.Errorf("importer: Compression must be zstd or none, got %q", o.Compression)
	}
	return nil
}

// source reads an input file: it calls start with the parameters, then
// each with every measurement in file order (m is reused once each
// returns), and returns the file's Results without their Measurements.
// It can be called again, to read the file again.
type source func(start func([]features.Param) error, each func(m *Measurement) error) (*Results, error)

// fileSource reads the file at path in the given format: a Kernel Tuner
// cache a token at a time, a T4 file a result at a time, at most limit
// bytes of it decompressed.
func fileSource(path, from string, spec *Spec, limit int64) source {
	var labels map[string][]string
	if spec != nil {
		labels = spec.Labels
	}
	var t4 *t4Params // a T4 file's parameters, once read
	return func(start func([]features.Param) error, each func(*Measurement) error) (*Results, error) {
		f, err := os.Open(path)
		if err != nil {
			return nil, fmt.Errorf("importer: %w", err)
		}
		defer f.Close()
		if from != FromT4 {
			return scanKernelTuner(f, limit, labels, start, each)
		}
		return scanT4Source(path, f, limit, &t4, labels, start, each)
	}
}

// scanT4Source reads a T4 file a result at a time: first for its
// parameters, which T4 gathers from every result (unless *params holds them
// settled from an earlier reading), then for each. labels number string and
// float parameters' values (Spec.Labels; nil: the values seen, sorted).
func scanT4Source(path string, f *os.File, limit int64, params **t4Params, labels map[string][]string, start func([]features.Param) error, each func(*Measurement) error) (*Results, error) {
	if *params == nil {
		t := &t4Params{}
		var vals []t4Value
		n := 0
		err := scanT4(f, limit, func(i int, r *t4Result) (err error) {
			n++
			vals, err = t.read(i, r, vals)
			return err
		})
		if err != nil {
			return nil, err
		}
		if n == 0 {
			// Before start, which would ask for every parameter of the
			// spec, none of them in the file.
			return nil, ErrNoResults
		}
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return nil, fmt.Errorf("importer: %s: %w", path, err)
		}
		*params = t
	}
	t := *params
	ps, lab, err := t.settle(labels)
	if err != nil {
		return nil, err
	}
	if err := start(ps); err != nil {
		return nil, err
	}
	var m Measurement
	var vals []t4Value
	err = scanT4(f, limit, func(i int, r *t4Result) (err error) {
		if vals, err = t.read(i, r, vals); err != nil {
			return err
		}
		if m.Config, err = t.config(i, vals, m.Config); err != nil {
			return err
		}
		if err := t4Measure(i, r, &m); err != nil {
			return err
		}
		return each(&m)
	})
	if err != nil {
		return nil, err
	}
	return &Results{Labels: lab}, nil
}

// baseName is the input's file name without .gz and .json.
func baseName(path string) string {
	b := filepath.Base(path)
	b = strings.TrimSuffix(b, ".gz")
	b = strings.TrimSuffix(b, ".json")
	return b
}

// write writes d's rows to a new dataset file beside d.path, under a
// temporary name that no reader takes for a dataset (nor Recover for a
// partial one: it does not end in .arrow), and returns that name. On an
// error, or when ctx is done, nothing is left behind.
func write(ctx context.Context, d *dataset, wopt record.WriterOptions) (string, error) {
	dir := filepath.Dir(d.path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("importer: %w", err)
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(d.path)+".tmp-*")
	if err != nil {
		return "", fmt.Errorf("importer: %w", err)
	}
	tmp := f.Name()
	f.Close()
	os.Remove(tmp) // record.Create refuses an existing path
	w, err := record.Create(tmp, d.meta, wopt)
	if err != nil {
		return "", fmt.Errorf("importer: %w", err)
	}
	n, total := 0, d.sum.Rows()
	err = d.rows(func(r record.Row) error {
		if err := ctx.Err(); err != nil {
			return interrupted(err)
		}
		n++
		if d.sum.Duplicates > 0 && d.sum.Duplicate == "" && d.space.Index(r.Config) == d.firstDup {
			d.sum.Duplicate = d.space.Format(r.Config)
		}
		if err := w.Write(r); err != nil {
			return fmt.Errorf("importer: %s: row %d of %d: %w (nothing written)", d.sum.Input, n, total, err)
		}
		return nil
	})
	if err == nil && n != total {
		err = fmt.Errorf("importer: %s: %d rows on the second reading, %d on the first: did the file change? (nothing written)", d.sum.Input, n, total)
	}
	if err != nil {
		w.Close()
		os.Remove(tmp)
		os.Remove(tmp + ".partial")
		return "", err
	}
	if err := w.Close(); err != nil {
		os.Remove(tmp)
		os.Remove(tmp + ".partial")
		return "", fmt.Errorf("importer: %w", err)
	}
	return tmp, nil
}

// convert reads src once to fit its measurements to the space (spec's,
// or the file's own parameters), pick the reference and count the rows;
// the dataset's rows read it again. Memory does not grow with the file
// but by 8 bytes a row (the configurations' indexes, to find repeated
// ones) and 8 more an ok row (the median reference time needs them all).
func convert(ctx context.Context, src source, spec *Spec, given *givenShape, opt Options) (*dataset, error) {
	var pl *plan
	d := &dataset{sum: FileSummary{Counts: map[record.Status]int{}}}
	var okTimes []float64
	var refTime float64
	var best features.Config
	res, err := src(func(params []features.Param) error {
		var err error
		pl, err = newPlan(params, spec, opt)
		return err
	}, func(m *Measurement) error {
		if err := ctx.Err(); err != nil {
			return interrupted(err)
		}
		c, err := pl.fit(m.Config)
		if err != nil {
			if d.sum.Violations == 0 {
				d.sum.Violation = err.Error()
			}
			d.sum.Violations++
			return nil
		}
		if m.Status == record.StatusOK {
			if m.MeanOnly {
				d.sum.MeanOnly++
			}
			t := timingOf(m).median // the row's TimeNs
			okTimes = append(okTimes, t)
			if refTime == 0 && c.Equal(pl.ref) {
				refTime = t
			}
			if best == nil || t < d.sum.BestTimeNs {
				best, d.sum.BestTimeNs = c, t
			}
		}
		if m.Unrecognized {
			if d.sum.Unrecognized == 0 {
				d.sum.UnrecognizedFirst = fmt.Sprintf("%q, taken for %s", m.Error, m.Status)
			}
			d.sum.Unrecognized++
		}
		d.sum.Counts[m.Status]++
		d.configs = append(d.configs, pl.space.Index(c))
		return nil
	})
	if err != nil {
		return nil, err
	}
	if d.sum.Rows()+d.sum.Violations == 0 {
		return nil, ErrNoResults
	}
	slices.Sort(d.configs)
	d.space = pl.space
	for i := 1; i < len(d.configs); i++ {
		if d.configs[i] == d.configs[i-1] {
			if d.sum.Duplicates == 0 {
				d.firstDup = d.configs[i]
			}
			d.sum.Duplicates++
		}
	}
	space := pl.space
	d.sum.Reference = space.Format(pl.ref)
	source := "import:" + opt.From
	if refTime == 0 && len(okTimes) > 0 {
		refTime, _, _ = record.Summarize(okTimes)
		d.sum.RefFromMedian = true
		source += " ref=median"
	}
	d.sum.RefTimeNs = refTime
	for _, p := range space.Params {
		if l, ok := res.Labels[p.Name]; ok {
			if d.sum.Labels == nil {
				d.sum.Labels = map[string][]string{}
			}
			d.sum.Labels[p.Name] = l
		}
	}
	if best != nil {
		d.sum.Best = space.Format(best)
	}

	names, sizes, from, err := problemShape(res, spec, given)
	if err != nil {
		return nil, err
	}
	taskNames, task, err := pl.task(names, sizes, opt)
	if err != nil {
		return nil, err
	}
	d.sum.Shape, d.sum.ShapeFrom, d.task = features.FormatTask(taskNames, task), from, task
	if d.sum.Platform, d.sum.Warning, err = platformOf(res, opt); err != nil {
		return nil, err
	}
	d.meta = record.Meta{
		Kernel:        opt.Kernel,
		KernelVersion: version(pl.spaceParams, pl.constraints, taskNames),
		Platform:      d.sum.Platform,
		AugurVersion:  features.Version,
		TaskNames:     taskNames,
		Params:        pl.spaceParams,
		Constraints:   pl.constraints,
		Reference:     pl.ref,
		Source:        source,
	}
	d.rows = pl.rows(src, task, refTime)
	return d, nil
}

// task returns the imported data's task names and its one task: the
// problem size (problemShape's), then opt.TaskParams' values.
func (p *plan) task(names []string, problem []int, opt Options) ([]string, features.Task, error) {
	taskNames := names
	task := features.Task(problem)
	for _, name := range opt.TaskParams {
		if slices.Contains(names, name) {
			return nil, nil, fmt.Errorf("importer: TaskParams (--task-params) names %s, which names a problem size too", name)
		}
		taskNames = append(taskNames, name)
		task = append(task, p.consts[name])
	}
	if len(taskNames) > features.MaxTaskLen {
		return nil, nil, fmt.Errorf("importer: %d task features %v, at most %d allowed", len(taskNames), taskNames, features.MaxTaskLen)
	}
	return taskNames, task, nil
}

// platformOf returns the platform of the file's device (opt.Device when
// given), from opt.Platforms when it knows the device; a device it lacks
// gives unknown platform features and a warning.
func platformOf(res *Results, opt Options) (features.Platform, string, error) {
	device := res.Device
	if opt.Device != "" {
		device = opt.Device
	}
	if strings.TrimSpace(device) == "" {
		return features.Platform{}, "", fmt.Errorf("importer: the file names no device; give its name with Device (--device)")
	}
	if opt.Platforms == nil {
		return PlatformOf(device), "", nil
	}
	p, err := opt.Platforms.Lookup(device)
	switch {
	case errors.Is(err, datasets.ErrUnknownDevice):
		// Rows of a device the table lacks still train: its platform
		// features stay unknown, 0 as features.Platform documents for an
		// unmeasured feature, and its model is its own.
		p := PlatformOf(device)
		return p, fmt.Sprintf("device %q is not in the device table: imported with unknown platform features (name, vendor and %s); add it to a table given with --platforms to record them", device, typeNote(p)), nil
	case err != nil:
		return features.Platform{}, "", fmt.Errorf("importer: %w", err)
	}
	return p, "", nil
}

// rows returns the function that reads src a second time and emits its
// rows, of task, scored against refTime.
func (p *plan) rows(src source, task features.Task, refTime float64) func(emit func(record.Row) error) error {
	return func(emit func(record.Row) error) error {
		_, err := src(func(params []features.Param) error {
			if !slices.EqualFunc(params, p.fileParams, func(a, b features.Param) bool {
				return a.Name == b.Name && slices.Equal(a.Values, b.Values)
			}) {
				return fmt.Errorf("importer: the parameters changed between two readings of the file")
			}
			return nil
		}, func(m *Measurement) error {
			c, err := p.fit(m.Config)
			if err != nil {
				return nil // counted as a violation by the first reading
			}
			r := record.Row{Task: task, Config: c, Status: m.Status, Error: m.Error, LogSpeedup: math.NaN(), RefTimeNs: refTime, CompileMs: m.CompileMs}
			if m.Status == record.StatusOK {
				t := timingOf(m)
				r.TimeNs, r.TimeMinNs, r.TimeCV, r.Repeats, r.Runs = t.median, t.minimum, t.cv, t.repeats, t.runs
				if refTime > 0 {
					r.LogSpeedup = math.Log(refTime / r.TimeNs)
				}
			}
			return emit(r)
		})
		return err
	}
}

// plan is how the configurations of one file become configurations of
// the space: built from the file's parameters, the spec and the options.
type plan struct {
	fileParams  []features.Param // the file's, in its order
	space       *features.Space
	spaceParams []features.Param
	constraints []string
	ref         features.Config
	from        []int // file column of each space parameter
	fixed       []int // values from Set of parameters the file lacks
	consts      map[string]int
	inFile      map[string]int
}

// fit is the package's fit for one of the file's configurations.
func (p *plan) fit(fc features.Config) (features.Config, error) {
	if len(p.fixed) > 0 {
		fc = append(fc[:len(fc):len(fc)], p.fixed...)
	}
	return fit(fc, p.space, p.from, p.consts, p.inFile)
}

// newPlan checks the file's parameters against the spec and options and
// builds the space.
func newPlan(fileParams []features.Param, spec *Spec, opt Options) (*plan, error) {
	params, constraints := fileParams, []string(nil)
	if spec != nil {
		params, constraints = spec.Params, spec.Constraints
	}
	// Where each parameter of the space comes from in the file.
	inFile := map[string]int{}
	var fixed []int // values from Set of parameters the file lacks
	for i, p := range fileParams {
		inFile[p.Name] = i
	}
	for name := range opt.Set {
		if _, ok := inFile[name]; ok {
			return nil, fmt.Errorf("importer: Set (--set) fixes %s, which the file has", name)
		}
		if !slices.ContainsFunc(params, func(q features.Param) bool { return q.Name == name }) {
			return nil, fmt.Errorf("importer: Set (--set) fixes %s, which is not a parameter of the spec", name)
		}
	}
	for _, p := range params {
		if _, ok := inFile[p.Name]; ok {
			continue
		}
		v, ok := opt.Set[p.Name]
		if !ok {
			return nil, fmt.Errorf("importer: the file lacks parameter %s; fix its value with Set (--set %s=VALUE)", p.Name, p.Name)
		}
		if !slices.Contains(p.Values, v) {
			return nil, fmt.Errorf("importer: Set (--set) fixes %s=%d, which is not one of its values %v", p.Name, v, p.Values)
		}
		// Missing parameters read their value from a column past the
		// file's own, filled from Set in fit.
		inFile[p.Name] = len(fileParams) + len(fixed)
		fixed = append(fixed, v)
	}
	for _, p := range fileParams {
		if !slices.ContainsFunc(params, func(q features.Param) bool { return q.Name == p.Name }) {
			return nil, fmt.Errorf("importer: the file has parameter %s, which the spec lacks", p.Name)
		}
	}

	consts := map[string]int{}
	for _, name := range opt.TaskParams {
		i := slices.IndexFunc(params, func(p features.Param) bool { return p.Name == name })
		switch {
		case i < 0:
			return nil, fmt.Errorf("importer: TaskParams (--task-params) names %q, which is not a parameter", name)
		case len(params[i].Values) != 1:
			return nil, fmt.Errorf("importer: TaskParams (--task-params) names %s, which has %d values; a task parameter must have one", name, len(params[i].Values))
		}
		if _, dup := consts[name]; dup {
			return nil, fmt.Errorf("importer: TaskParams (--task-params) names %s twice", name)
		}
		consts[name] = params[i].Values[0]
	}
	if len(consts) > 0 && len(constraints) > 0 {
		constraints = nil
		for _, c := range spec.Conditions {
			e, err := translate(c, consts, spec.strings(), spec.Numbers)
			if err != nil {
				return nil, err
			}
			constraints = append(constraints, e)
		}
	}
	var spaceParams []features.Param
	var from []int // file column of each space parameter
	for _, p := range params {
		if _, isTask := consts[p.Name]; !isTask {
			spaceParams = append(spaceParams, p)
			from = append(from, inFile[p.Name])
		}
	}
	if err := features.CheckSpaceLimits(spaceParams, constraints); err != nil {
		return nil, err
	}
	space, err := features.NewSpace(spaceParams, constraints)
	if err != nil {
		return nil, fmt.Errorf("importer: %w", err)
	}
	ref, err := reference(space, spec, consts)
	if err != nil {
		return nil, err
	}
	return &plan{fileParams: slices.Clone(fileParams), space: space, spaceParams: spaceParams, constraints: constraints,
		ref: ref, from: from, fixed: fixed, consts: consts, inFile: inFile}, nil
}

// fit lays a file's configuration out in the space's order and checks it:
// task parameters must hold their one value, and the rest must be a valid
// configuration of the space.
func fit(fc features.Config, space *features.Space, from []int, consts, inFile map[string]int) (features.Config, error) {
	for name, v := range consts {
		if got := fc[inFile[name]]; got != v {
			return nil, fmt.Errorf("importer: task parameter %s=%d, want %d", name, got, v)
		}
	}
	c := make(features.Config, len(from))
	for k, i := range from {
		c[k] = fc[i]
	}
	if !space.Valid(c) {
		return nil, fmt.Errorf("importer: %w", space.Check(c))
	}
	return c, nil
}

// reference picks the configuration log-speedups are taken against: the
// spec's defaults (the kernel author's own portable choice) or, when they
// are no valid configuration, the nearest valid one, as augur's spec
// reader takes it (each value outside its domain moved to the nearest in
// it, then features.Space.NearestValid); without a spec, the first valid
// configuration in the space's order, which for values listed ascending is
// the smallest. It depends on the space alone, never on the measurements,
// so that the files of different devices agree on it, as train requires.
func reference(space *features.Space, spec *Spec, consts map[string]int) (features.Config, error) {
	if spec != nil && len(spec.Default) == len(spec.Params) {
		var def features.Config
		for i, p := range spec.Params {
			if _, isTask := consts[p.Name]; !isTask {
				def = append(def, spec.Default[i])
			}
		}
		if len(def) == len(space.Params) {
			for k, p := range space.Params {
				def[k] = p.Nearest(def[k])
			}
			if near, ok := space.NearestValid(def); ok {
				return near, nil
			}
		}
	}
	var ref features.Config
	space.Each(func(c features.Config) bool { ref = c.Clone(); return false })
	if ref == nil {
		return nil, fmt.Errorf("importer: the space has no valid configuration")
	}
	return ref, nil
}

// problemNames names the problem-size dimensions: width and height for an
// image, problem_size_<i> otherwise.
func problemNames(n int) []string {
	if n == 2 {
		return []string{"width", "height"}
	}
	names := make([]string, n)
	for i := range names {
		names[i] = "problem_size_" + strconv.Itoa(i)
	}
	return names
}

// version is the first 12 hex digits of a SHA-256 over the space and task
// names, as datasets.Kernel.Version is for augur's own kernels (which
// hash their source too; imported data has none).
func version(params []features.Param, constraints, taskNames []string) string {
	js, _ := json.Marshal(struct {
		P []features.Param
		C []string
		T []string
	}{params, constraints, taskNames})
	sum := sha256.Sum256(js)
	return hex.EncodeToString(sum[:])[:12]
}

// PlatformOf describes a device known only by name, as other tuners
// record it: Name is the name, Vendor ("NVIDIA", "AMD", "Intel" or "")
// and Type ("gpu", "cpu" or "", unknown) are guessed from it, and the
// numeric features are zero (unknown).
func PlatformOf(device string) features.Platform {
	p := features.Platform{Name: device}
	l := strings.ToLower(device)
	has := func(words ...string) bool {
		return slices.ContainsFunc(words, func(w string) bool { return strings.Contains(l, w) })
	}
	switch {
	case has("nvidia", "geforce", "tesla", "quadro", "titan", "rtx", "gtx"):
		p.Vendor = "NVIDIA"
	case has("amd", "radeon", "instinct", "firepro", "epyc", "ryzen", "threadripper", "opteron"):
		p.Vendor = "AMD"
	case has("intel", "iris", "arc a", "xeon", "core(tm)"):
		p.Vendor = "Intel"
	}
	// A GPU's name first: an integrated GPU's may name its CPU's vendor.
	// A CPU is named by its processor (an OpenCL CPU device's name is
	// the processor's) or by PoCL's device prefixes (cpu-, pthread-).
	switch {
	case has("nvidia", "geforce", "tesla", "quadro", "titan", "rtx", "gtx", "radeon", "instinct", "firepro",
		"iris", "arc a", "graphics", "gpu", "mali", "adreno", "gfx"):
		p.Type = "gpu"
	case has("cpu", "xeon", "epyc", "core(tm)", "ryzen", "threadripper", "opteron", "pentium", "celeron",
		"processor", "pthread-", "cortex-a", "neoverse"):
		p.Type = "cpu"
	}
	return p
}

// typeNote says what PlatformOf took p's type for, for a warning.
func typeNote(p features.Platform) string {
	if p.Type == "" {
		return "type unknown"
	}
	return "type " + p.Type + ", guessed from the name"
}

// builtIn reports whether name is one of augur's kernel families.
func builtIn(name string) bool {
	_, err := datasets.Lookup(name)
	return err == nil
}

// specVersion gives the datasets the kernel version of k, the spec as
// augur's spec reader reads it (datasets.Kernel.Version, which hashes the
// kernel's source and spec too), so that train, eval and tune --spec read
// the imported rows. Where the import made another space, task features
// or reference than the spec's (--task-params, say), it leaves the
// datasets' own version (of the space alone) and returns why, for a
// warning: train --spec would find none of the rows of its version.
func specVersion(k *datasets.Kernel, sets []*dataset) string {
	for _, d := range sets {
		m := d.meta
		why := ""
		switch {
		case !slices.Equal(m.TaskNames, k.TaskNames):
			why = fmt.Sprintf("task features %s here, %s in the spec", strings.Join(m.TaskNames, ","), strings.Join(k.TaskNames, ","))
		case !slices.EqualFunc(m.Params, k.Space.Params, sameParam):
			why = "other parameters or values than the spec's"
		case !slices.Equal(m.Constraints, k.Space.Constraints):
			why = "other constraints than the spec's"
		case !m.Reference.Equal(k.Reference):
			why = fmt.Sprintf("reference %s here, %s in the spec", features.FormatConfig(m.Params, m.Reference), k.Space.Format(k.Reference))
		}
		if why != "" {
			return fmt.Sprintf("the rows are not of the spec's kernel version %s (%s): train and eval read them with --kernel %s, not with --spec", k.Version(), why, m.Kernel)
		}
	}
	for _, d := range sets {
		d.meta.KernelVersion = k.Version()
	}
	return ""
}

func sameParam(p, q features.Param) bool { return p.Name == q.Name && slices.Equal(p.Values, q.Values) }

// warnOverlaps warns of two inputs of one device and shape that give some
// configurations both (T4 files, which name no shape, given the same one):
// training keeps one row of each, and the other file's measurements of
// them are lost. The inputs are of one space (checkVersions).
func warnOverlaps(sets []*dataset) {
	for j, d := range sets {
		for _, e := range sets[:j] {
			if d.meta.Platform.Slug() != e.meta.Platform.Slug() || !slices.Equal(d.task, e.task) {
				continue
			}
			if n := common(e.configs, d.configs); n > 0 {
				d.sum.warn(fmt.Sprintf("same device and shape (%s) as %s, and %d configurations in both: training keeps one row of each; give each input its own shape (--shape, an import each)",
					d.sum.Shape, e.sum.Input, n))
			}
		}
	}
}

// common counts the values that the sorted a and b both hold, each once.
func common(a, b []int) int {
	n := 0
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			v := a[i]
			n++
			for i < len(a) && a[i] == v {
				i++
			}
			for j < len(b) && b[j] == v {
				j++
			}
		}
	}
	return n
}

// checkVersions refuses an import into a kernel directory that holds data
// of another kernel version (another space, constraints, task features or
// reference), which train would refuse to read together with it: better
// to say so before anything is written.
func checkVersions(dir string, sets []*dataset) error {
	files, err := record.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		files, err = nil, nil
	}
	if err != nil {
		return fmt.Errorf("importer: %w", err)
	}
	for _, d := range sets {
		for _, f := range files {
			if f.Meta.KernelVersion != d.meta.KernelVersion || !f.Meta.Reference.Equal(d.meta.Reference) {
				return fmt.Errorf("importer: %s holds kernel version %s, and %s makes version %s (another space, task features or reference); import into another directory or kernel name",
					f.Path, f.Meta.KernelVersion, d.sum.Input, d.meta.KernelVersion)
			}
		}
		if d != sets[0] && (d.meta.KernelVersion != sets[0].meta.KernelVersion || !d.meta.Reference.Equal(sets[0].meta.Reference)) {
			return fmt.Errorf("importer: %s makes kernel version %s and %s version %s; import them under different kernel names",
				sets[0].sum.Input, sets[0].meta.KernelVersion, d.sum.Input, d.meta.KernelVersion)
		}
	}
	return nil
}
