package features

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// MeasuredBest is one entry of Bundle.Measured.
type MeasuredBest struct {
	// Device is the platform slug (Platform.Slug) of the device measured.
	Device string `json:"device"`
	// Type is the device's Platform.Type ("gpu", "cpu"); empty in bundles
	// written before it, where the device's model, if any, tells.
	Type   string `json:"type,omitempty"`
	Task   Task   `json:"task"`
	Config Config `json:"config"`
	// TimeNs is Config's median time on Task, in nanoseconds.
	TimeNs float64 `json:"time_ns"`
}

// MeasuredType is the type ("gpu", "cpu") of the device that measured m:
// m.Type, or in bundles written before it the type of the device's model;
// "" when neither tells.
func (b *Bundle) MeasuredType(m MeasuredBest) string {
	if m.Type != "" {
		return m.Type
	}
	for _, e := range b.Models {
		if e.Name == m.Device && e.Platform != nil {
			return e.Platform.Type
		}
	}
	return ""
}

// BundleFormat is the version of the bundle layout this package writes and
// reads. Format 2 added derived features, the training shapes, the
// checksum and the models' climb starts.
const BundleFormat = 2

// ErrNewerFormat is returned for a bundle whose format is newer than
// BundleFormat: it was written by a newer augur, and only a newer one reads it.
var ErrNewerFormat = errors.New("features: bundle format too new")

// newerFormat returns an ErrNewerFormat naming the versions when data is
// a bundle of a format newer than BundleFormat, and nil otherwise.
func newerFormat(data []byte) error {
	var head struct {
		Format       int    `json:"format"`
		AugurVersion string `json:"augur_version"`
	}
	if json.Unmarshal(data, &head) != nil || head.Format <= BundleFormat {
		return nil
	}
	return fmt.Errorf("%w: the bundle is format %d, written by augur %s; this augur (%s) reads format %d: upgrade augur to load it",
		ErrNewerFormat, head.Format, head.AugurVersion, Version, BundleFormat)
}

// Bundle is the self-describing model file that train writes and the
// runtime loads: everything Choose needs, in one JSON document, so that a
// library can go:embed it whole.
type Bundle struct {
	Format        int      `json:"format"`
	Kernel        string   `json:"kernel"`
	KernelVersion string   `json:"kernel_version"`
	AugurVersion  string   `json:"augur_version"`
	TaskNames     []string `json:"task_names"`
	Params        []Param  `json:"params"`
	Constraints   []string `json:"constraints"`
	// Features are the encoder's column names; every model has exactly
	// these inputs. The platform features at the end are the first few of
	// PlatformNames (PlatformColumns): all of them in a bundle written
	// now, the first LegacyPlatformFeatures in one written before the
	// measured features, whose models keep scoring as they did.
	Features []string `json:"features"`
	// Derived is the ID of the derived-feature definitions the models were
	// trained with (Deriver.ID), empty when there are none. A runtime with
	// other definitions refuses the bundle.
	Derived string `json:"derived,omitempty"`
	// DerivedExprs holds the definitions themselves when they are
	// expressions (ExprDeriver), for kernels augur has no Go code for.
	DerivedExprs []string `json:"derived_exprs,omitempty"`
	Reference    Config   `json:"reference"`
	// TrainShapes are the distinct shapes the models were trained on; the
	// runtime measures how far a new shape lies from them.
	TrainShapes []Task  `json:"train_shapes,omitempty"`
	Models      []Model `json:"models"`
	// Measured is the fastest measured configuration of each (device,
	// shape) of the training data: for a device and shape it lists, the
	// runtime need not ask a model. Empty in bundles written before it.
	Measured []MeasuredBest `json:"measured,omitempty"`
	// Classifiers predict the best value of a categorical parameter from
	// the shape and the device before the search (Garvey and Abdelrahman
	// 2018: the data-loading technique); the runtime then searches the
	// other parameters with that one fixed. Empty in bundles written
	// before them, which older augur reads without them.
	Classifiers []Classifier `json:"classifiers,omitempty"`
	// Unseen is how the runtime picks for a device with no model of its
	// own, as leave-one-device-out at training time chose it; nil in
	// bundles of one device and those written before it, for which the
	// runtime copies another device's best when Measured has one.
	Unseen *UnseenPolicy `json:"unseen,omitempty"`
	// KernelSpec is the spec file (the T1 tuning format) of a kernel that
	// augur read from one rather than knowing it, KernelSource its OpenCL
	// source and SpecFiles the data files the spec names, by name: the
	// runtime rebuilds the kernel from them (datasets.ParseSpec) for its
	// launch plans. Empty for augur's own kernels and imported data.
	KernelSpec   json.RawMessage   `json:"kernel_spec,omitempty"`
	KernelSource string            `json:"kernel_source,omitempty"`
	SpecFiles    map[string][]byte `json:"spec_files,omitempty"`
	// Checksum is the SHA-256, in hex, of the file's bytes without these
	// hex digits; ReadBundle refuses a bundle whose bytes changed, even by
	// a space. It must stay the last field.
	Checksum string `json:"checksum,omitempty"`

	space *Space // built once by ReadBundle
}

// Model is one trained surrogate inside a bundle.
type Model struct {
	// Name is the platform slug the model was trained for, or "fleet".
	Name string `json:"name"`
	// Platform is the device the data came from; nil for a fleet model.
	Platform *Platform `json:"platform,omitempty"`
	// Kind is the learner: "gbrt" or "rf".
	Kind string `json:"kind"`
	// Target is what the model predicts: "log_speedup", ln(t_ref/t).
	Target string `json:"target"`
	// LightGBM is the model in LightGBM text format, version v3.
	LightGBM  string `json:"lightgbm"`
	TrainRows int    `json:"train_rows"`
	// Shapes counts the distinct shapes (tasks) of the training rows; 0
	// in a bundle written before it was recorded (unknown).
	Shapes     int     `json:"shapes,omitempty"`
	FitSeconds float64 `json:"fit_seconds"`
	// Stats are the model's errors on held-out data, by metric name
	// (e.g. "cv_rmse_log_speedup", "cv_mre_time", "cv_spearman").
	Stats map[string]float64 `json:"stats,omitempty"`
	// Options are the learner's settings the model was fitted with, by
	// name (e.g. "trees", "max_depth", "learning_rate"), defaults resolved.
	Options map[string]float64 `json:"options,omitempty"`
	// Candidates are configurations that ran fastest on the training
	// shapes; Choose scores them for a new shape and climbs from the best,
	// which keeps it near configurations known to run on the device.
	Candidates []Config `json:"candidates,omitempty"`
	// Starts are climb starting points computed at training time: for each
	// shape of a grid over the training range, the configurations the
	// model ranks highest when it scores the whole space. Choose rescores
	// those of the grid shapes nearest the asked one.
	Starts *Starts `json:"starts,omitempty"`
	// Consensus, when not nil, re-ranks the model's first configurations
	// for a new shape by their timings at the nearest training shapes
	// (Consensus); nil when training found the model's own pick better,
	// and in bundles written before it.
	Consensus *Consensus `json:"consensus,omitempty"`
	// Fixed, when not nil, is one configuration that picked better than
	// the model on the selection's held-out shapes (FixedPick): Choose
	// returns it at every new shape where it runs. nil when the model
	// picked better, and in bundles written before it.
	Fixed *FixedPick `json:"fixed,omitempty"`
	// Known are the configurations that ran on the device in the training
	// data. Choose stays among them (and, with OptionSmallerGroups, those
	// that differ from them only in smaller work groups): a model knows
	// least, and flatters most, where it saw nothing. Empty means every
	// valid configuration.
	Known []Config `json:"known,omitempty"`
	// Learner names the learner setting that model selection chose
	// (train.Select), empty when it was given.
	Learner string `json:"learner,omitempty"`
	// Limits are the largest values of resource features (derived
	// features such as "wg_items" or "local_mem") among the configurations
	// that ran on the device; Choose never picks beyond them, since the
	// model has not seen what happens there (on NVIDIA's OpenCL the
	// driver refuses conv2d work-groups above 256 items, below the
	// device's reported maximum).
	Limits map[string]float64 `json:"limits,omitempty"`
	// TypeLimits are, for a model of several devices (the fleet model),
	// Limits over the rows of each device type ("gpu", "cpu"): a device
	// of a type listed keeps to its type's, since a CPU's 1,024-item
	// work-groups say nothing of what a GPU's driver runs. nil in other
	// models and in bundles written before it.
	TypeLimits map[string]map[string]float64 `json:"type_limits,omitempty"`
	// Pool is training's choice, for a device's model in a bundle of
	// several devices, between this model and the fleet model
	// (PoolChoice); nil for the fleet model, a bundle of one device and
	// bundles written before it, whose devices use their own models.
	Pool *PoolChoice `json:"pool,omitempty"`
	// Siblings is training's choice, for this device, at a shape it did
	// not measure but another device of its type did (SiblingChoice); nil
	// where training made none (no such shape, one device, or bundles
	// written before it): the device searches its model.
	Siblings *SiblingChoice `json:"siblings,omitempty"`
}

// FixedPick is one configuration a device's model serves at every new
// shape instead of its search: of the configurations measured on the
// training shapes, the one with the highest geometric mean of its speed as
// a fraction of each shape's fastest. Training keeps it when, leaving
// shapes out in its learner selection, it picked better than the model
// (or the model's nearest-shape rule) on the held-out shapes: a kernel
// whose best configuration hardly depends on the shape (a transpose's
// tile) is served by it, one whose best moves with the shape by the model.
type FixedPick struct {
	Config Config `json:"config"`
	// PctGeomean and PctWorst are its picks on the held-out shapes, % of
	// each shape's fastest (geometric mean, worst); ModelPctGeomean the
	// model's on the same shapes.
	PctGeomean      float64 `json:"pct_geomean"`
	PctWorst        float64 `json:"pct_worst"`
	ModelPctGeomean float64 `json:"model_pct_geomean"`
}

// OptionSmallerGroups, set to 1 in Model.Options, says that the model
// was trained to be searched also among the configurations that differ
// from Known ones only in smaller work groups (the kernel's
// datasets.Kernel.GroupParams, `augur train --smaller-groups`); the
// runtime then searches them too.
const OptionSmallerGroups = "smaller_groups"

// Classifier is a trained classifier of one parameter inside a bundle.
type Classifier struct {
	// Param is the parameter it classifies.
	Param string `json:"param"`
	// Classes are Param's values: class k is the value Classes[k]. They
	// are the parameter's values in the space, in order.
	Classes []int `json:"classes"`
	// Kind is the learner: "forest" (augur's) or "golearn".
	Kind string `json:"kind"`
	// Features are the model's inputs: the task features, "task.<name>",
	// then the derived features that depend on the task alone,
	// "static.<name>" (TaskDeriver; none in a bundle written before them
	// or of a kernel without them), then the platform features,
	// "platform.<name>" (ClassFeatures; the first LegacyPlatformFeatures
	// of them in a bundle written before the measured features).
	Features []string `json:"features"`
	// LightGBM is the model in LightGBM text format, version v3, a
	// multiclass model of len(Classes) classes whose raw scores are the
	// class probabilities.
	LightGBM string `json:"lightgbm"`
	// TrainGroups is the number of (shape, device) groups it was fitted on.
	TrainGroups int `json:"train_groups"`
	// FoldBy names the task features whose values made the held-out folds
	// of Stats (leave one kernel out); empty means every task feature.
	FoldBy []string `json:"fold_by,omitempty"`
	// Stats are its scores on held-out folds ("cv_accuracy",
	// "cv_penalty_weighted", "cv_folds", "cv_groups").
	Stats map[string]float64 `json:"stats,omitempty"`
	// Options are the learner's settings, by name, defaults resolved.
	Options map[string]float64 `json:"options,omitempty"`
}

// ClassFeatures returns the inputs of a new classifier of a kernel with the
// given task features and task-only derived features (TaskDeriver's
// TaskNames; nil for none): the task features, the static ones, then every
// platform feature.
func ClassFeatures(taskNames, static []string) []string {
	out := make([]string, 0, len(taskNames)+len(static)+len(platformNames))
	for _, n := range taskNames {
		out = append(out, "task."+n)
	}
	for _, n := range static {
		out = append(out, "static."+n)
	}
	for _, n := range platformNames {
		out = append(out, "platform."+n)
	}
	return out
}

// StaticNames returns the task-only derived features the classifier takes,
// without the "static." prefix.
func (c *Classifier) StaticNames() []string {
	var out []string
	for _, f := range c.Features {
		if n, ok := strings.CutPrefix(f, "static."); ok {
			out = append(out, n)
		}
	}
	return out
}

// check checks c against the bundle's task features, derived features and
// space.
func (c *Classifier) check(taskNames, derived []string, s *Space) error {
	i := s.Param(c.Param)
	if i < 0 {
		return fmt.Errorf("classifier of %q: no such parameter", c.Param)
	}
	if !slices.Equal(c.Classes, s.Params[i].Values) {
		return fmt.Errorf("classifier of %q: classes %v, the parameter's values are %v", c.Param, c.Classes, s.Params[i].Values)
	}
	n, err := platformColumns(c.Features)
	if err != nil {
		return fmt.Errorf("classifier of %q: %v", c.Param, err)
	}
	static := c.StaticNames()
	if len(static) > len(derived) || !slices.Equal(static, derived[:len(static)]) {
		return fmt.Errorf("classifier of %q: static features %v are not the first of the bundle's derived features %v", c.Param, static, derived)
	}
	if want := ClassFeatures(taskNames, static)[:len(taskNames)+len(static)+n]; !slices.Equal(c.Features, want) {
		return fmt.Errorf("classifier of %q: features %v, want %v", c.Param, c.Features, want)
	}
	return nil
}

// Starts is a table of good configurations over a grid of shapes.
type Starts struct {
	// Shapes are the grid's shapes.
	Shapes []Task `json:"shapes"`
	// Configs[i] are the best configurations of Shapes[i], best first, as
	// indices into Pool.
	Configs [][]int `json:"configs"`
	// Pool holds each distinct configuration once.
	Pool []Config `json:"pool"`
}

// Space returns the bundle's tuning space, built once.
func (b *Bundle) Space() (*Space, error) {
	if b.space != nil {
		return b.space, nil
	}
	s, err := NewSpace(b.Params, b.Constraints)
	if err != nil {
		return nil, err
	}
	b.space = s
	return s, nil
}

// DerivedNames returns the derived features the bundle's models take,
// without the "derived." prefix.
func (b *Bundle) DerivedNames() []string {
	var out []string
	for _, f := range b.Features {
		if n, ok := strings.CutPrefix(f, "derived."); ok {
			out = append(out, n)
		}
	}
	return out
}

// Encoder returns the encoder of the bundle's models. d computes the
// derived features; it must be the definitions the bundle records (same ID
// and names), or nil when the bundle has none or holds them as expressions.
func (b *Bundle) Encoder(d Deriver) (Encoder, error) {
	s, err := b.Space()
	if err != nil {
		return Encoder{}, err
	}
	e := NewEncoder(b.TaskNames, s)
	if e.PlatformFeatures, err = PlatformColumns(b.Features); err != nil {
		return Encoder{}, err
	}
	names := b.DerivedNames()
	if d == nil && len(b.DerivedExprs) > 0 {
		if d, err = NewExprDeriver(b.DerivedExprs, b.TaskNames, s); err != nil {
			return Encoder{}, err
		}
	}
	switch {
	case d == nil && len(names) == 0:
		return e, nil
	case d == nil:
		return Encoder{}, fmt.Errorf("%w: bundle was trained with derived features %q, and none were given", ErrDerived, b.Derived)
	case d.ID() != b.Derived:
		return Encoder{}, fmt.Errorf("%w: bundle was trained with derived features %q, this augur has %q", ErrDerived, b.Derived, d.ID())
	}
	got := d.Names()
	if strings.Join(got, ",") != strings.Join(names, ",") {
		return Encoder{}, fmt.Errorf("%w: bundle's derived features %v differ from %q's %v", ErrDerived, names, d.ID(), got)
	}
	return e.WithDerived(d), nil
}

// WriteBundle writes b as indented JSON with its checksum.
func WriteBundle(w io.Writer, b *Bundle) error {
	b.Format = BundleFormat
	// The checksum is the SHA-256 of the file's bytes without the
	// checksum's own hex digits, so that reading needs no second encoding:
	// the bytes are written with a placeholder, hashed, and the placeholder
	// replaced.
	b.Checksum = strings.Repeat("0", sha256.Size*2)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", " ")
	if err := enc.Encode(b); err != nil {
		return fmt.Errorf("features: write bundle: %w", err)
	}
	data := buf.Bytes()
	at := checksumAt(data)
	if at < 0 {
		return fmt.Errorf("features: write bundle: no checksum field written")
	}
	sum := sha256.Sum256(slices.Concat(data[:at], data[at+sha256.Size*2:]))
	b.Checksum = hex.EncodeToString(sum[:])
	copy(data[at:], b.Checksum)
	if _, err := w.Write(data); err != nil {
		return fmt.Errorf("features: write bundle: %w", err)
	}
	return nil
}

// checksumKey opens the checksum field as WriteBundle writes it.
const checksumKey = `"checksum": "`

// checksumAt returns the offset of the checksum's hex digits in a bundle's
// bytes, or -1. The field is the last of the document, so the last
// occurrence of its key is the field itself, even if a string inside the
// bundle spells the key.
func checksumAt(data []byte) int {
	i := bytes.LastIndex(data, []byte(checksumKey))
	if i < 0 || i+len(checksumKey)+sha256.Size*2 > len(data) {
		return -1
	}
	return i + len(checksumKey)
}

// checksumOK reports whether data's checksum matches its other bytes.
func checksumOK(data []byte, want string) bool {
	at := checksumAt(data)
	if at < 0 || len(want) != sha256.Size*2 || string(data[at:at+len(want)]) != want {
		return false
	}
	sum := sha256.Sum256(slices.Concat(data[:at], data[at+len(want):]))
	return hex.EncodeToString(sum[:]) == want
}

// WriteBundleFile writes b to path with WriteBundle: into a temporary
// file beside it, renamed into place once complete, so that a failed
// write never leaves a half-written bundle behind (nor harms the file it
// would replace).
func WriteBundleFile(path string, b *Bundle) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".bundle-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := WriteBundle(tmp, b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	// A bundle is shipped and read by other users: CreateTemp's 0600 is
	// a temporary file's mode, not a bundle's.
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// ReadBundleFile reads the bundle at path with ReadBundle. An error
// reading the file is the os package's, which names the path; an error in
// the bundle is ReadBundle's, after the path.
func ReadBundleFile(path string) (*Bundle, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	b, err := ReadBundle(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return b, nil
}

// notBundle says why data, which did not parse as JSON, is no bundle: cut
// short (a bundle is one JSON object), or not JSON at all (another file).
func notBundle(data []byte, err error) string {
	trimmed := bytes.TrimSpace(data)
	var syn *json.SyntaxError
	switch {
	case len(trimmed) == 0:
		return "not a model bundle: the file is empty"
	case trimmed[0] == '{' && (errors.Is(err, io.ErrUnexpectedEOF) || err.Error() == "unexpected end of JSON input"):
		return fmt.Sprintf("a truncated model bundle: its JSON ends after %d bytes (copied or written in part?)", len(data))
	case trimmed[0] != '{':
		return "not a model bundle (augur train writes one JSON object; this file does not start with '{')"
	case errors.As(err, &syn):
		return fmt.Sprintf("a damaged model bundle: JSON syntax error at byte %d: %v", syn.Offset, err)
	}
	return "bundle: " + err.Error()
}

// ReadBundle parses a bundle and checks its format version and that its
// feature names match its task features and parameters. A bundle that
// declares more than the limits allow (MaxParams and the others beside it)
// is refused with ErrLimit before its space is built.
func ReadBundle(data []byte) (*Bundle, error) {
	var b Bundle
	if err := json.Unmarshal(data, &b); err != nil {
		if err := newerFormat(data); err != nil {
			return nil, err // a newer layout may not parse as this one
		}
		return nil, fmt.Errorf("%w: %s", ErrSyntax, notBundle(data, err))
	}
	if b.Format > BundleFormat {
		return nil, newerFormat(data)
	}
	if b.Format == 0 && len(b.Models) == 0 {
		return nil, fmt.Errorf("%w: not a model bundle (JSON without a bundle's format and models; augur train writes bundles)", ErrSyntax)
	}
	if b.Format != BundleFormat {
		return nil, fmt.Errorf("%w: bundle format %d, this augur reads %d (train the bundle again)", ErrSyntax, b.Format, BundleFormat)
	}
	if !checksumOK(data, b.Checksum) {
		return nil, fmt.Errorf("%w: bundle checksum %.12s does not match its contents", ErrChecksum, b.Checksum)
	}
	if len(b.TaskNames) > MaxTaskLen {
		return nil, fmt.Errorf("%w: bundle has %d task features, at most %d allowed", ErrSyntax, len(b.TaskNames), MaxTaskLen)
	}
	if err := checkBundleLimits(&b); err != nil {
		return nil, err
	}
	s, err := b.Space()
	if err != nil {
		return nil, fmt.Errorf("features: bundle space: %w", err)
	}
	if err := b.checkFeatures(s); err != nil {
		return nil, err
	}
	if !s.Valid(b.Reference) {
		return nil, fmt.Errorf("%w: bundle reference %v is not in its space", ErrSyntax, b.Reference)
	}
	if len(b.Models) == 0 {
		return nil, fmt.Errorf("%w: bundle holds no models", ErrSyntax)
	}
	for _, sh := range b.TrainShapes {
		if len(sh) != len(b.TaskNames) {
			return nil, fmt.Errorf("%w: bundle training shape %v has %d values, want %d", ErrSyntax, sh, len(sh), len(b.TaskNames))
		}
	}
	if b.Unseen != nil {
		if err := b.Unseen.check(); err != nil {
			return nil, err
		}
	}
	if err := b.checkTables(s); err != nil {
		return nil, err
	}
	return &b, nil
}

// checkFeatures checks that the bundle's feature names are its kernel's:
// task features, parameters of space s, derived features, then the
// platform's.
func (b *Bundle) checkFeatures(s *Space) error {
	var err error
	// The platform features are the first few of PlatformNames: as many
	// as the models were trained with.
	enc := NewEncoder(b.TaskNames, s)
	if enc.PlatformFeatures, err = platformColumns(b.Features); err != nil {
		return fmt.Errorf("%w: bundle %v", ErrSyntax, err)
	}
	base := enc.Names()
	// The derived features sit between the parameters and the platform.
	at := len(b.TaskNames) + len(s.Params)
	want := append([]string(nil), base[:at]...)
	for _, n := range b.DerivedNames() {
		want = append(want, "derived."+n)
	}
	want = append(want, base[at:]...)
	if len(want) != len(b.Features) {
		return fmt.Errorf("%w: bundle lists %d features, its kernel has %d", ErrSyntax, len(b.Features), len(want))
	}
	for i := range want {
		if want[i] != b.Features[i] {
			return fmt.Errorf("%w: bundle feature %d is %q, want %q", ErrSyntax, i, b.Features[i], want[i])
		}
	}
	return nil
}

// checkTables checks the measured bests, classifiers and the models'
// tables against space s.
func (b *Bundle) checkTables(s *Space) error {
	seen := map[string]bool{}
	for _, e := range b.Measured {
		key := e.Device + "|" + fmt.Sprint(e.Task)
		switch {
		case e.Device == "":
			return fmt.Errorf("%w: bundle measured entry for %v names no device", ErrSyntax, e.Task)
		case len(e.Task) != len(b.TaskNames):
			return fmt.Errorf("%w: bundle measured shape %v has %d values, want %d", ErrSyntax, e.Task, len(e.Task), len(b.TaskNames))
		case !s.Valid(e.Config):
			return fmt.Errorf("%w: bundle measured configuration %v of %s is not in the space", ErrSyntax, e.Config, e.Device)
		case !(e.TimeNs > 0):
			return fmt.Errorf("%w: bundle measured time %v ns of %s, want > 0", ErrSyntax, e.TimeNs, e.Device)
		case seen[key]:
			return fmt.Errorf("%w: bundle lists the measured best of %s on %v twice", ErrSyntax, e.Device, e.Task)
		}
		seen[key] = true
	}
	classified := map[string]bool{}
	for i := range b.Classifiers {
		c := &b.Classifiers[i]
		if err := c.check(b.TaskNames, b.DerivedNames(), s); err != nil {
			return fmt.Errorf("%w: bundle %v", ErrSyntax, err)
		}
		if classified[c.Param] {
			return fmt.Errorf("%w: bundle has two classifiers of %q", ErrSyntax, c.Param)
		}
		classified[c.Param] = true
	}
	for _, m := range b.Models {
		if err := m.Starts.check(len(b.TaskNames), s); err != nil {
			return fmt.Errorf("%w: model %q: %v", ErrSyntax, m.Name, err)
		}
		if err := m.Consensus.check(len(b.TaskNames), s); err != nil {
			return fmt.Errorf("%w: model %q: %v", ErrSyntax, m.Name, err)
		}
		if f := m.Fixed; f != nil && !s.Valid(f.Config) {
			return fmt.Errorf("%w: model %q: fixed configuration %v is not in the space", ErrSyntax, m.Name, f.Config)
		}
		for _, c := range m.Known {
			if !s.Valid(c) {
				return fmt.Errorf("%w: model %q: known configuration %v is not in the space", ErrSyntax, m.Name, c)
			}
		}
	}
	return nil
}

// check reports whether the table is consistent: indices in range, shapes
// of the right length, configurations in the space.
func (st *Starts) check(nTask int, s *Space) error {
	if st == nil {
		return nil
	}
	if len(st.Shapes) != len(st.Configs) {
		return fmt.Errorf("starts: %d shapes, %d configuration lists", len(st.Shapes), len(st.Configs))
	}
	for _, sh := range st.Shapes {
		if len(sh) != nTask {
			return fmt.Errorf("starts: shape %v has %d values, want %d", sh, len(sh), nTask)
		}
	}
	for _, c := range st.Pool {
		if !s.Valid(c) {
			return fmt.Errorf("starts: configuration %v is not in the space", c)
		}
	}
	for _, idx := range st.Configs {
		for _, i := range idx {
			if i < 0 || i >= len(st.Pool) {
				return fmt.Errorf("starts: index %d outside a pool of %d", i, len(st.Pool))
			}
		}
	}
	return nil
}
