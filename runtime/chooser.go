package runtime

import (
	"cmp"
	"crypto/ed25519"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/predict"
)

// Options configures a Chooser. The zero value is the documented default
// of every field.
type Options struct {
	// Model names the bundle's model to use: a platform slug, or "fleet".
	// It overrides Device's choice of model. "" lets Device choose.
	Model string
	// Device names the device the kernel will run on, by the slug or the
	// name (case-insensitive) that collect recorded; Platform describes it
	// in full. The Chooser uses, in order, the device's own model in the
	// bundle (or the fleet model scored with the device's features, where
	// training found that it picks better on the device's shapes:
	// features.Model.Pool); the fleet model, scored with Platform's
	// features (so only when Platform is set), to search or to choose
	// among other devices' measured bests (see Unseen); the bundle's only model; else no model:
	// every pick is the kernel's reference configuration. Pick.Source says
	// which.
	// With neither Device nor Platform set, the Chooser uses the only
	// model, or the fleet model of a bundle with several, for a device it
	// knows nothing about.
	Device string
	// Platform is the device's features as queried and measured
	// (collect.Benchmark's Platform; collect/opencl's Device.Platform
	// has the queried ones only); nil when unknown. Device defaults to
	// its name. A bundle written now scores the fleet model with the
	// measured features too: a Platform without them (0, not measured)
	// looks to that model like the unmeasured devices of its training
	// data, if it had any. Bundles written before the measured features
	// take the queried ones only. Its limits (MaxWorkGroupSize,
	// MaxWorkItemSizes, LocalMemBytes) keep picks runnable on the device;
	// one without them (MaxWorkGroupSize 0, a name alone) leaves that to
	// the limits of the model's own device. The Chooser keeps a copy.
	Platform *features.Platform
	// Starts is how many of the bundle's grid shapes nearest the asked
	// shape lend their best configurations as starting points, and how
	// many training shapes nearest it lend their measured bests to
	// Candidates; 0 means 4.
	Starts int
	// Steps bounds the sweeps of the local search that follows: each sweep
	// tries every one-parameter change of the best configuration so far
	// and stops when none helps; 0 means 1.
	Steps int
	// CacheSize bounds the shapes remembered; when full, a new shape's
	// pick replaces a remembered one at random. 0 means 4096.
	CacheSize int
	// IgnoreClassifier makes the Chooser search every parameter even when
	// the bundle has a classifier (Bundle.Classifiers), to compare.
	IgnoreClassifier bool
	// StrictKnown keeps picks among the configurations that ran in the
	// training data (the model's Known) even when the model was trained
	// with features.OptionSmallerGroups, which lets a pick also differ
	// from one of them in smaller values of the kernel's work-group
	// parameters (datasets.Kernel.GroupParams). false follows the model.
	StrictKnown bool
	// KernelVersion, when not empty, is the version of the kernel the
	// caller will build (datasets.Kernel.Version of its spec and source,
	// as datasets.ReadSpec reads them): New refuses a bundle trained on
	// another version with ErrKernelVersion, as it does for augur's own
	// kernels, whose version it knows. "" trusts the bundle's own copy of
	// a spec kernel.
	KernelVersion string
	// Unseen overrides the bundle's policy (Bundle.Unseen) for a device
	// that has no model of its own and is served through the fleet model
	// with Platform's features: features.UnseenFleet searches the fleet
	// model, features.UnseenCopy copies another device's best measured
	// configuration, each for every shape. "" follows the bundle, which
	// may record one policy for the shapes another device measured and
	// another for new shapes; a bundle that records no policy copies when
	// it has other devices' measured bests, since the fleet model's
	// search has nothing to show it does better.
	Unseen string
	// TrustedKeys, when not empty, makes New refuse, with ErrUntrusted,
	// a bundle that Signature does not show one of these keys signed,
	// byte for byte (features.VerifyBundle; `augur sign` writes the
	// signature). nil loads any bundle, signed or not, as before.
	TrustedKeys []ed25519.PublicKey
	// Signature is the bundle's detached signature file (BUNDLE.sig, which
	// a library go:embeds beside the bundle); read only with TrustedKeys.
	Signature []byte
	// Wisdom, when set, holds measurements of this kernel version on the
	// device: Choose answers a shape the store has measured with its
	// fastest recorded configuration (Pick.Source "wisdom") before any
	// model, and forgets its cached pick of a shape when a record of it
	// arrives. The store must be of the bundle's kernel version; its
	// device is the caller's to match. nil: no wisdom.
	Wisdom *Wisdom
}

// Sources of a pick (Pick.Source) other than "model:<slug>".
const (
	// SourceFleet is a fleet model scored with the device's features.
	SourceFleet = "fleet"
	// SourceReference is the kernel's reference configuration, picked
	// because no model of the bundle fits the device.
	SourceReference = "reference"
	// SourceTable is the fastest configuration measured on this very
	// shape and device (Bundle.Measured): no model is needed.
	SourceTable = "table"
	// SourceFixed is the Source of a pick that is the model's fixed
	// configuration (features.Model.Fixed): one configuration that picked
	// better than the model on the shapes training held out.
	SourceFixed = "fixed"
	// SourceCopy is the Chooser's source (Chooser.Source) when it copies
	// other devices' best configurations for a device it has no model
	// of; each pick says whose: "copy:<slug>".
	SourceCopy = "copy"
)

// Pick is a configuration Choose returned, with what stands behind it.
type Pick struct {
	Config features.Config
	// LogSpeedup is the model's predicted ln(t_ref / t) for Config at the
	// shape: its prediction for Config less its prediction for the
	// reference there (each clamped to the training range), so that 0 is
	// the reference itself. At a shape it never saw, a model's error that
	// is the shape's own shifts both alike (a model of two small shapes,
	// asked far outside them, predicted the reference at 0.470x and its
	// pick at 0.483x: 1.03x over the reference, not 0.483x). Rank
	// candidates by it; the times themselves are measured.
	LogSpeedup float64
	// MeasuredNs is Config's fastest time recorded in the wisdom, for a
	// pick from it (SourceWisdom), and RefMeasuredNs the reference's at
	// the same shape when the wisdom holds one (augur tune --top records
	// it beside the candidates); 0 otherwise.
	MeasuredNs, RefMeasuredNs float64
	// Model is the bundle model that chose; "" when none did.
	Model string
	// Source says why that model: "model:<slug>" for a device's own model
	// (or the bundle's only one), "fleet" for the fleet model, "copy:<slug>"
	// for the fastest configuration measured on device <slug> at the shape
	// nearest the asked one (a device with no model of its own, whose
	// policy is to copy; of several devices', the fleet model chose that
	// copy), "table" for the device's own measured best, "reference" when
	// no model fits the device and Config is the reference; "near" for a
	// candidate (Candidates) measured fastest at a nearby training shape,
	// and for the pick of a model trained on one shape at another shape
	// (that shape's best); "fixed" for the model's fixed configuration
	// (features.Model.Fixed) at a shape it did not measure; "wisdom" for
	// the fastest configuration Options.Wisdom recorded for this shape.
	Source string
	// Plan is how to build and launch Config on the shape.
	Plan Plan
	// OutsideOctaves is how far the shape lies outside the range of the
	// training shapes, in octaves (log2 units) of the task feature that is
	// farthest out; 0 inside the range. Beyond about 1, the model
	// extrapolates and the expected figures below mean little.
	OutsideOctaves float64
	// Fixed is "<param>=<value>" when the bundle's classifier fixed that
	// parameter before the search (Garvey and Abdelrahman 2018: the
	// data-loading technique), "" when no classifier did: the bundle has
	// none, the device is unknown, or no configuration known to run has
	// the predicted value.
	Fixed string
	// ExpectedPct and WorstPct are the % of the optimum that the model's
	// picks reached on shapes held out of its training (geometric mean and
	// worst shape, from model selection; the nearest-shape rule's when
	// the model carries one); 0 when the bundle does not record them, and
	// for a device the bundle has no model of whose type (GPU, CPU) none
	// of its devices has, or than its only model's: their held-out figures
	// are other types'.
	ExpectedPct, WorstPct float64
	// Clamped says that the model's prediction for Config lay outside
	// the range of log-speedups in its training data, and was clamped to
	// that range before LogSpeedup was taken: the model extrapolates (or
	// is damaged), and the predicted speedup is not to be trusted. Always
	// false for a model that records no range.
	Clamped bool

	names  []string         // the parameters' names, in Config order; shared, read-only
	kernel *datasets.Kernel // what the values stand for (Report); nil for an imported kernel
}

// Param returns the value of the named parameter in p.Config, and whether
// the kernel has such a parameter.
func (p Pick) Param(name string) (int, bool) {
	for i, n := range p.names {
		if n == name {
			return p.Config[i], true
		}
	}
	return 0, false
}

// Plan is how to build and launch a configuration on a shape, computed
// from the kernel family's definitions without OpenCL. It is empty (Dims
// 0, BuildOptions "") for a kernel augur does not know (an imported one).
type Plan struct {
	// BuildOptions are the compiler options ("-D NAME=value ...") to
	// pass to clBuildProgram.
	BuildOptions string
	// Launch holds the NDRange: Dims, Global and Local sizes, and the
	// local memory the configuration allocates statically, in bytes.
	datasets.Launch
	// Values are the kernel arguments whose value depends on the
	// configuration, by name, as a kernel spec declares them (a scalar's
	// FillValue or a local buffer's Size over the tuning parameters): the
	// scalar's value, the local buffer's size in bytes. nil when there
	// are none, as for augur's own kernels.
	Values map[string]float64
}

// Chooser picks configurations for shapes from one model of a bundle.
// Make one with New or FromBundle (the zero value is not usable); its
// methods are safe to call from several goroutines at once.
type Chooser struct {
	bundle *features.Bundle
	space  *features.Space
	kernel *datasets.Kernel // nil for a kernel augur does not know
	model  *predict.Model   // nil when no model fits the device
	source string
	names  []string
	opt    Options

	candidates []features.Config
	// nNeighbours is the most one-parameter changes a configuration has
	// (the sum over parameters of their values but one).
	nNeighbours int
	starts      *features.Starts
	// consensus re-ranks the model's first picks (features.Consensus);
	// nil when the model carries no rule.
	consensus *consensus
	// table holds the fastest measured configuration of each shape
	// measured on the chooser's device (Bundle.Measured).
	table map[features.TaskKey]features.Config
	// siblings holds, by shape, other devices' bests of shapes the device
	// did not measure, which it copies (siblingTable); nil when its model's
	// SiblingChoice says search, as bundleSiblings records.
	siblings       map[features.TaskKey][]sibling
	bundleSiblings features.SiblingChoice
	// known are the configurations that ran in the training data; the
	// local search stays among them. nil allows every valid one.
	known map[int]bool // keyed by Space.Index
	// knownList holds the configurations of known once each, in the
	// bundle's order: what Candidates ranks.
	knownList []features.Config
	// copies are the devices whose measured bests a device with no model
	// of its own copies (Options.Unseen); nil when neither of its
	// policies copies. copyMeasured and copyNew say which do: for a shape
	// a source measured, and for a new one.
	copies                []copySource
	copyMeasured, copyNew bool
	// oneShape is the fastest configuration measured at the only shape a
	// device's own model was trained on (features.Model.Shapes 1); nil
	// for a model of several shapes, of an unknown count, or the fleet's.
	// Such a model never saw a shape change: at another shape it answers
	// with this configuration (where it runs) rather than searching its
	// predictions there.
	oneShape features.Config
	// fixed is the model's fixed configuration (features.Model.Fixed),
	// served at every new shape where it runs; nil when it carries none.
	fixed features.Config
	// device is the device picks are for, when known: a pick must fit
	// its limits (datasets.Kernel.Runs).
	device    *features.Platform
	startLogs [][]float64 // ln of every grid shape's task values
	lo, hi    []float64   // ln of the training shapes' least and largest values
	expected  [2]float64
	// expectedNew is expected for a new shape on a device with no model
	// of its own (features.UnseenPolicy.NewShapes).
	expectedNew [2]float64
	// classifier, when not nil, predicts the value of parameter
	// classParam for a shape on the platform classPlatform; the search
	// keeps that value. classValues holds "<param>=<value>" of each
	// class, for Pick.Fixed; classKnown the values that some known
	// configuration has (nil: any).
	classifier    *predict.Classifier
	classParam    int
	classPlatform []float64
	classValues   map[int]string
	classKnown    map[int]bool

	signer string // KeyID of the trusted key that signed the bundle; "" unchecked
	other  string // OtherDevice

	mu    sync.RWMutex
	cache map[features.TaskKey]*Pick // a pointer keeps the cached look-up to one word
	// wisdomGen is the generation of opt.Wisdom (Wisdom.gen) that the
	// cache reflects, under mu.
	wisdomGen uint64
}

// New loads a bundle (the bytes of a .augur file) and returns a Chooser.
func New(bundle []byte, opt Options) (*Chooser, error) {
	signer, err := checkTrust(bundle, opt)
	if err != nil {
		return nil, err
	}
	b, err := features.ReadBundle(bundle)
	if err != nil {
		return nil, err // it names its package
	}
	opt.TrustedKeys = nil // checked on the bytes, which FromBundle lacks
	ch, err := FromBundle(b, opt)
	if err == nil {
		ch.signer = signer
	}
	return ch, err
}

// FromBundle is New for a bundle already read. The Chooser keeps b; the
// caller must not change it.
func FromBundle(b *features.Bundle, opt Options) (*Chooser, error) {
	if len(opt.TrustedKeys) > 0 {
		return nil, fmt.Errorf("%w: FromBundle cannot check a signature; load the bundle's bytes with New", ErrUntrusted)
	}
	opt, err := opt.withDefaults()
	if err != nil {
		return nil, err
	}
	space, err := b.Space()
	if err != nil {
		return nil, err // it names its package
	}
	if w := opt.Wisdom; w != nil && w.KernelVersion() != b.KernelVersion {
		return nil, fmt.Errorf("runtime: wisdom is of %s version %s, the bundle of %s: %w", b.Kernel, w.KernelVersion(), b.KernelVersion, ErrWisdomVersion)
	}
	ch := &Chooser{bundle: b, space: space, opt: opt, cache: map[features.TaskKey]*Pick{}}
	if opt.Wisdom != nil {
		ch.wisdomGen = opt.Wisdom.gen.Load()
	}
	for _, p := range space.Params {
		ch.names = append(ch.names, p.Name)
		ch.nNeighbours += max(len(p.Values)-1, 0)
	}
	// The bundle's space is the family's when the versions agree, so the
	// family shares it rather than building its own.
	switch k, err := bundleKernel(b, space); {
	case errors.Is(err, datasets.ErrUnknownKernel):
		// An imported kernel: no task constraints, no launch plan.
	case err != nil:
		return nil, err // it names its package
	case k.Version() != b.KernelVersion:
		return nil, &KernelVersionError{Kernel: b.Kernel, Bundle: b.KernelVersion, Have: k.Version()}
	case opt.KernelVersion != "" && opt.KernelVersion != b.KernelVersion:
		return nil, &KernelVersionError{Kernel: b.Kernel, Bundle: b.KernelVersion, Have: opt.KernelVersion}
	default:
		ch.kernel = k
	}
	ch.lo, ch.hi = shapeRange(b.TrainShapes)
	if opt.Device != "" && opt.Platform == nil && !bundleHas(b, opt.Device) {
		// A device the bundle has no model of but the shipped device table
		// knows: its features let a fleet model serve it, as
		// ResolveDevice would have set them.
		if p := tableDevice(datasets.Devices(), opt.Device); p != nil {
			opt.Device, opt.Platform = "", p
			ch.opt = opt
		}
	}
	entry, plat, source, pool, err := selectModel(b, opt)
	if err != nil {
		return nil, err
	}
	ch.source = source
	if entry != nil && entry.Name != SourceFleet && opt.Model == "" && (opt.Device != "" || opt.Platform != nil) {
		device, slug := opt.Device, ""
		if opt.Platform != nil {
			device, slug = cmp.Or(device, opt.Platform.Name), opt.Platform.Slug()
		}
		if !modelOf(entry, device, slug) {
			ch.other = entry.Name
		}
	}
	ch.table = measuredTable(b, entry, plat, opt, space)
	if entry == nil {
		return ch, nil
	}
	// The kernel family's Go definitions of its derived features; a
	// bundle of an imported kernel carries them as expressions instead.
	var derive features.Deriver
	if ch.kernel != nil && b.Derived != "" && len(b.DerivedExprs) == 0 {
		derive = ch.kernel.Derived
	}
	m, err := predict.Load(b, entry.Name, derive)
	if err != nil {
		return nil, err // it names its package
	}
	if plat != nil {
		m = m.WithPlatform(*plat)
	}
	ch.model = m
	if ch.siblings = siblingTable(b, entry, ch.table, space); ch.siblings != nil {
		ch.bundleSiblings = *entry.Siblings
	}
	ch.useEntry(entry, opt)
	ch.expected = [2]float64{entry.Stats["holdout_pct_geomean"], entry.Stats["holdout_pct_worst"]}
	if entry.Consensus != nil && entry.Stats["holdout_consensus_pct_geomean"] > 0 {
		// The rule picks: what it reached on the same held-out shapes.
		ch.expected = [2]float64{entry.Stats["holdout_consensus_pct_geomean"], entry.Stats["holdout_consensus_pct_worst"]}
	}
	if f := entry.Fixed; f != nil && pool == nil && space.Valid(f.Config) {
		// One configuration picked better than the model on held-out
		// shapes: what to expect is its figures.
		ch.fixed = f.Config
		ch.expected = [2]float64{f.PctGeomean, f.PctWorst}
	}
	if asked := opt.Platform; asked != nil && entry.Platform != nil && asked.Type != "" && entry.Platform.Type != "" && asked.Type != entry.Platform.Type {
		// A bundle's only model serving a device of another type (a
		// CPU's model for a GPU): its held-out figures are its own
		// device's.
		ch.expected = [2]float64{}
	}
	if pool == nil && entry.Name != SourceFleet && entry.Shapes == 1 && len(ch.table) == 1 {
		// One training shape (bench/RESULTS.md, session 26: models of
		// one shape picked 46.2-92.5% of the optimum at the other shapes
		// of gemm, median, fbcorr, transpose and rowsum on two GPUs,
		// 71.0 at the mean; copying its best 59.5-93.9%, 74.6; better on
		// three of five, within 1.8 points on the other two).
		for _, cfg := range ch.table {
			ch.oneShape = cfg
		}
	}
	if pool != nil {
		// A device that training found the fleet model serves better:
		// the fleet model's held-out picks on its shapes are what to
		// expect, and the unseen-device policy is not for it.
		ch.expected = [2]float64{pool.FleetPct, pool.FleetWorst}
		ch.keepToOwnLimits(b, pool)
	} else {
		ch.unseenPolicy(b, entry, opt, plat)
	}
	if err := ch.loadClassifier(b, entry, plat, opt); err != nil {
		return nil, err
	}
	if ch.starts != nil {
		for _, t := range ch.starts.Shapes {
			ch.startLogs = append(ch.startLogs, features.TaskLogs(nil, t))
		}
	}
	return ch, nil
}

// keepToOwnLimits makes the fleet model, serving a device whose own model
// sent it there (pool), keep to the limits of that device's rows: the
// fleet's are every device's, and a CPU's 1,024-item work-groups beside a
// GPU whose driver runs 256 would give the GPU picks it refuses
// (bench/RESULTS.md, session 29, found the fault for a device with no
// model). A device whose model records no limits keeps to its type's.
func (c *Chooser) keepToOwnLimits(b *features.Bundle, pool *features.PoolChoice) {
	for i := range b.Models {
		e := &b.Models[i]
		if e.Pool != pool {
			continue
		}
		l := e.Limits
		if len(l) == 0 && e.Platform != nil && e.Platform.Type != "" {
			for _, f := range b.Models {
				if f.Name == SourceFleet {
					l = f.TypeLimits[e.Platform.Type]
				}
			}
		}
		if len(l) > 0 {
			if m, err := c.model.WithLimits(l); err == nil {
				c.model = m
			}
		}
		return
	}
}

// maxStarts bounds Options.Starts: far more grid shapes than a bundle
// holds, and a bound on what Candidates allocates for them.
const maxStarts = 1 << 12

// withDefaults checks opt and fills in its zero values.
func (opt Options) withDefaults() (Options, error) {
	if opt.Starts < 0 || opt.Steps < 0 || opt.CacheSize < 0 {
		return opt, fmt.Errorf("runtime: Starts, Steps and CacheSize must be >= 0, got %d, %d, %d", opt.Starts, opt.Steps, opt.CacheSize)
	}
	if opt.Starts > maxStarts {
		return opt, fmt.Errorf("runtime: Starts must be at most %d (a bundle's grid holds fewer shapes), got %d", maxStarts, opt.Starts)
	}
	if opt.Platform != nil {
		// The Chooser keeps its own copy: the caller may reuse theirs.
		p := *opt.Platform
		opt.Platform = &p
	}
	switch opt.Unseen {
	case "", features.UnseenFleet, features.UnseenCopy:
	default:
		return opt, fmt.Errorf("runtime: Options.Unseen must be %q, %q or empty, got %q", features.UnseenFleet, features.UnseenCopy, opt.Unseen)
	}
	if opt.Starts == 0 {
		opt.Starts = 4
	}
	if opt.Steps == 0 {
		opt.Steps = 1
	}
	if opt.CacheSize == 0 {
		opt.CacheSize = 4096
	}
	return opt, nil
}

// shapeRange returns the least and greatest logarithm of each task feature
// over shapes (nil for none).
func shapeRange(shapes []features.Task) (lo, hi []float64) {
	for i, t := range shapes {
		l := features.TaskLogs(nil, t)
		if i == 0 {
			lo, hi = l, append([]float64(nil), l...)
			continue
		}
		for f := range l {
			lo[f], hi[f] = min(lo[f], l[f]), max(hi[f], l[f])
		}
	}
	return lo, hi
}

// useEntry takes from the model entry what the search needs: the device
// whose limits keep picks runnable, the candidates, starts and the
// configurations known to run.
func (ch *Chooser) useEntry(entry *features.Model, opt Options) {
	// The device's limits keep picks runnable where the training data
	// cannot vouch for them: a device the model never measured.
	// A Platform without limits (a name alone, built by hand) cannot
	// say what runs: the model's own device's limits serve, if any.
	switch {
	case opt.Platform != nil && opt.Platform.MaxWorkGroupSize > 0:
		ch.device = opt.Platform
	case entry.Platform != nil:
		ch.device = entry.Platform
	}
	for _, cand := range entry.Candidates {
		if ch.space.Valid(cand) {
			ch.candidates = append(ch.candidates, cand)
		}
	}
	ch.starts = entry.Starts
	ch.consensus = newConsensus(entry.Consensus, ch.space)
	if len(entry.Known) > 0 {
		known := entry.Known
		if ch.kernel != nil && !opt.StrictKnown && entry.Options[features.OptionSmallerGroups] == 1 {
			known = ch.space.WithSmaller(known, ch.kernel.GroupParams)
		}
		ch.known = make(map[int]bool, len(known))
		for _, k := range known {
			if i := ch.space.Index(k); i >= 0 && !ch.known[i] {
				ch.known[i] = true
				ch.knownList = append(ch.knownList, k)
			}
		}
	}
}

// bundleKernel returns the kernel of a bundle: the one its spec describes
// (a user's kernel, carried whole), or augur's own family of that name
// sharing space.
func bundleKernel(b *features.Bundle, space *features.Space) (*datasets.Kernel, error) {
	if len(b.KernelSpec) > 0 {
		k, err := datasets.ParseSpec("the bundle's kernel spec", b.KernelSpec, b.KernelSource, b.SpecFiles)
		if err != nil {
			return nil, fmt.Errorf("runtime: %w", err)
		}
		return k, nil
	}
	return datasets.LookupWithSpace(b.Kernel, space)
}

// loadClassifier loads the bundle's classifier, when it has one and the
// device's platform features are known: plat for the fleet model, else the
// model's own device, else Options.Platform.
func (c *Chooser) loadClassifier(b *features.Bundle, entry *features.Model, plat *features.Platform, opt Options) error {
	if len(b.Classifiers) == 0 || opt.IgnoreClassifier {
		return nil
	}
	switch {
	case plat != nil:
	case entry.Platform != nil:
		plat = entry.Platform
	case opt.Platform != nil:
		plat = opt.Platform
	default:
		return nil // a fleet model for a device it knows nothing of
	}
	// One classifier is used: the first, which is the only one train
	// writes.
	e := &b.Classifiers[0]
	var derive features.Deriver
	if c.kernel != nil && b.Derived != "" && len(b.DerivedExprs) == 0 {
		derive = c.kernel.Derived
	}
	cl, err := predict.LoadClassifier(b, e.Param, derive)
	if err != nil {
		return fmt.Errorf("runtime: %w", err)
	}
	c.classifier, c.classParam, c.classPlatform = cl, c.space.Param(e.Param), cl.PlatformVector(*plat)
	c.classValues = map[int]string{}
	for _, v := range cl.Classes() {
		c.classValues[v] = fmt.Sprintf("%s=%d", e.Param, v)
	}
	if len(entry.Known) > 0 {
		c.classKnown = map[int]bool{}
		for _, k := range entry.Known {
			c.classKnown[k[c.classParam]] = true
		}
	}
	return nil
}

// selectModel picks the bundle's model for opt (see Options.Device): the
// entry, the platform to score it with (nil: the entry's own), and the
// pick source, and the device model's PoolChoice when it sends its device
// to the fleet model. A nil entry means no model fits: picks are the
// reference.
func selectModel(b *features.Bundle, opt Options) (*features.Model, *features.Platform, string, *features.PoolChoice, error) {
	source := func(e *features.Model) string {
		if e.Name == SourceFleet {
			return SourceFleet
		}
		return "model:" + e.Name
	}
	fleet := func(e *features.Model) *features.Platform {
		if e.Platform == nil {
			return opt.Platform
		}
		return nil
	}
	var names []string
	var fleetEntry *features.Model
	for i := range b.Models {
		e := &b.Models[i]
		names = append(names, e.Name)
		if e.Name == SourceFleet {
			fleetEntry = e
		}
		if opt.Model != "" && e.Name == opt.Model {
			return e, fleet(e), source(e), nil, nil
		}
	}
	if opt.Model != "" {
		return nil, nil, "", nil, fmt.Errorf("runtime: %w: %q (bundle has %s)", predict.ErrNoModel, opt.Model, strings.Join(names, ", "))
	}
	device, slug := opt.Device, ""
	if opt.Platform != nil {
		slug = opt.Platform.Slug()
		if device == "" {
			device = opt.Platform.Name
		}
	}
	if device == "" {
		switch {
		case len(b.Models) == 1:
			return &b.Models[0], nil, source(&b.Models[0]), nil, nil
		case fleetEntry != nil:
			return fleetEntry, nil, SourceFleet, nil, nil
		}
		return nil, nil, "", nil, fmt.Errorf("runtime: %w: bundle has several models and no fleet model; set Options.Device or Model to one of %s",
			predict.ErrNoModel, strings.Join(names, ", "))
	}
	for i := range b.Models {
		e := &b.Models[i]
		if e == fleetEntry {
			continue
		}
		if modelOf(e, device, slug) {
			if e.Pool != nil && e.Pool.Fleet && fleetEntry != nil && e.Platform != nil {
				// Training found the fleet model, scored with the
				// device's features, picks better on its shapes.
				plat := e.Platform
				if opt.Platform != nil {
					plat = opt.Platform
				}
				return fleetEntry, plat, SourceFleet, e.Pool, nil
			}
			return e, nil, source(e), nil, nil
		}
	}
	switch {
	case fleetEntry != nil && opt.Platform != nil:
		return fleetEntry, opt.Platform, SourceFleet, nil, nil
	case len(b.Models) == 1:
		return &b.Models[0], nil, source(&b.Models[0]), nil, nil
	}
	return nil, nil, SourceReference, nil, nil
}

// bundleHas reports whether device names one of b's models (its name, or
// its device's name or slug).
func bundleHas(b *features.Bundle, device string) bool {
	return slices.ContainsFunc(b.Models, func(m features.Model) bool { return modelOf(&m, device, device) })
}

// modelOf reports whether e is the own model of the device named device
// (a model name or a device name, either case) or of platform slug slug
// ("" for none).
func modelOf(e *features.Model, device, slug string) bool {
	return strings.EqualFold(e.Name, device) || (slug != "" && e.Name == slug) ||
		(e.Platform != nil && (strings.EqualFold(e.Platform.Name, device) || (slug != "" && e.Platform.Slug() == slug)))
}

// OtherDevice returns the name of the device whose own model answers when
// Options named another device (Device or Platform) and the bundle's only
// model serves it: its picks were learnt on other hardware. "" when the
// device named has its own model, when none was named, and when the fleet
// model or Options.Model answers.
func (c *Chooser) OtherDevice() string { return c.other }

// Space returns the tuning space of the bundle's kernel.
func (c *Chooser) Space() *features.Space { return c.space }

// PlanValueNames returns the names of the kernel arguments a plan's
// Values holds (those the configuration sets), in argument order; nil when
// there are none.
func (c *Chooser) PlanValueNames() []string {
	if c.kernel == nil {
		return nil
	}
	return c.kernel.ConfigArgNames()
}

// ParamLabels returns what each value of tuning parameter i (in
// ParamNames order) stands for, value j's text at j, and whether the
// texts are numbers: a kernel spec's string or float parameter, whose
// values a Config numbers 0, 1, ... (datasets.Kernel.ParamLabels). nil
// for a parameter whose values are the numbers themselves, and for every
// parameter of a bundle with no kernel spec.
func (c *Chooser) ParamLabels(i int) (labels []string, numeric bool) {
	if c.kernel == nil {
		return nil, false
	}
	return c.kernel.ParamLabels(i)
}

// Format writes a configuration as "name=value,...", a spec's string
// parameters by their text.
func (c *Chooser) Format(cfg features.Config) string {
	if c.kernel != nil {
		return c.kernel.FormatConfig(cfg)
	}
	return c.space.Format(cfg)
}

// Model returns the model that chooses; nil when none fits the device
// (Source is "reference").
func (c *Chooser) Model() *predict.Model { return c.model }

// Source says which model chooses, as Pick.Source does, except that a
// Chooser that copies other devices' bests says "copy" (SourceCopy) where
// each pick names the device it copied.
func (c *Chooser) Source() string { return c.source }

// Reference returns the kernel's reference configuration.
func (c *Chooser) Reference() features.Config { return c.bundle.Reference.Clone() }

// TaskNames returns the names of the shape's values, in order.
func (c *Chooser) TaskNames() []string { return append([]string(nil), c.bundle.TaskNames...) }

// ParamNames returns the names of the configuration's values, in order.
func (c *Chooser) ParamNames() []string { return append([]string(nil), c.names...) }

// Value returns the value of the named parameter in cfg, and whether the
// kernel has such a parameter and cfg a value for it.
func (c *Chooser) Value(cfg features.Config, name string) (int, bool) {
	i := c.space.Param(name)
	if i < 0 || i >= len(cfg) {
		return 0, false
	}
	return cfg[i], true
}

// Plan returns the launch plan of cfg on shape t: empty for a kernel augur
// does not know; an error wrapping ErrShape for a bad shape, or one naming
// a configuration outside the space.
func (c *Chooser) Plan(t features.Task, cfg features.Config) (Plan, error) {
	if err := c.checkShape(t); err != nil {
		return Plan{}, err
	}
	if c.kernel == nil {
		return Plan{}, nil
	}
	l, err := c.kernel.Geometry(t, cfg)
	if err != nil {
		return Plan{}, err // it names its package
	}
	return Plan{BuildOptions: c.kernel.Options(t, cfg), Launch: l, Values: c.kernel.ConfigValues(t, cfg)}, nil
}

// Choose returns the configuration the model predicts fastest for shape t.
// The result is the caller's own; ChooseInto avoids its allocation. A bad
// shape gives an error wrapping ErrShape.
func (c *Chooser) Choose(t features.Task) (features.Config, error) {
	p, err := c.pick(t)
	if err != nil {
		return nil, err
	}
	return p.Config.Clone(), nil
}

// ChooseInto is Choose writing the configuration into dst, which must have
// one value per parameter; for a shape seen before it allocates nothing.
func (c *Chooser) ChooseInto(dst features.Config, t features.Task) error {
	if len(dst) != len(c.space.Params) {
		return fmt.Errorf("runtime: ChooseInto: dst has %d values, want %d", len(dst), len(c.space.Params))
	}
	p, err := c.pick(t)
	if err != nil {
		return err
	}
	copy(dst, p.Config)
	return nil
}

// ChoosePick is Choose with what stands behind the choice and its launch
// plan.
func (c *Chooser) ChoosePick(t features.Task) (Pick, error) {
	p, err := c.pick(t)
	if err != nil {
		return Pick{}, err
	}
	return p.clone(), nil
}

// clone returns a copy of p that shares nothing with it (the cache's
// pick): its configuration and its plan's values are the caller's own.
func (p *Pick) clone() Pick {
	out := *p
	out.Config = p.Config.Clone()
	out.Plan.Values = maps.Clone(p.Plan.Values)
	return out
}

// pick returns the cached pick of t, computing it when new. It is the
// cache's own: callers copy what they hand out.
func (c *Chooser) pick(t features.Task) (*Pick, error) {
	key := t.Key()
	c.mu.RLock()
	cached, ok := c.cache[key]
	gen := c.wisdomGen
	c.mu.RUnlock()
	if w := c.opt.Wisdom; w != nil {
		if now := w.gen.Load(); now != gen {
			c.forgetWisdom(gen, now)
			ok = false
		}
	}
	if ok && len(t) == len(c.bundle.TaskNames) {
		return cached, nil
	}
	if err := c.checkShape(t); err != nil {
		return nil, err
	}
	var p Pick
	measured, hit := c.table[key]
	var wise features.Config
	if c.opt.Wisdom != nil {
		// The generation first: a record that arrives after it makes
		// the pick below one not to cache.
		gen = c.opt.Wisdom.gen.Load()
		if cfg, ok := c.opt.Wisdom.bestValid(t, c.space.Valid); ok {
			wise = cfg
		}
	}
	switch {
	case wise != nil:
		p = Pick{Config: wise, Model: c.source, OutsideOctaves: c.outside(t)}
		if c.model != nil {
			p.LogSpeedup, p.Clamped = c.model.PredictClamped(t, wise)
		}
		p.MeasuredNs, _ = c.opt.Wisdom.fastest(t, wise)
		p.RefMeasuredNs, _ = c.opt.Wisdom.fastest(t, c.bundle.Reference)
	case hit:
		p = Pick{Config: measured.Clone(), Model: c.source, OutsideOctaves: c.outside(t)}
		if c.model != nil {
			p.LogSpeedup, p.Clamped = c.model.PredictClamped(t, measured)
		}
	case c.siblings[key] != nil && c.pickSibling(t, key, &p):
	case c.model == nil:
		p = Pick{Config: c.bundle.Reference, OutsideOctaves: c.outside(t)}
	case c.copies != nil:
		p = c.copy(t)
		p.LogSpeedup, p.Clamped = c.model.Clamp(p.LogSpeedup)
	case c.fixed != nil && c.runs(t, c.fixed):
		p = Pick{Config: c.fixed.Clone(), Model: c.source, Source: SourceFixed, OutsideOctaves: c.outside(t),
			ExpectedPct: c.expected[0], WorstPct: c.expected[1]}
		p.LogSpeedup, p.Clamped = c.model.PredictClamped(t, c.fixed)
	case c.oneShape != nil && c.runs(t, c.oneShape):
		// No held-out shape tells what to expect here: no ExpectedPct.
		p = Pick{Config: c.oneShape.Clone(), Model: c.source, Source: SourceNear, OutsideOctaves: c.outside(t)}
		p.LogSpeedup, p.Clamped = c.model.PredictClamped(t, c.oneShape)
	default:
		// The search ranks on raw predictions; the one reported is
		// clamped to the model's training range.
		p = c.search(t)
		p.LogSpeedup, p.Clamped = c.model.Clamp(p.LogSpeedup)
	}
	if p.Source == "" {
		p.Source = c.source
	}
	p.LogSpeedup -= c.referenceLog(t)
	p.names, p.kernel = c.names, c.kernel
	switch {
	case wise != nil:
		p.Source = SourceWisdom
	case hit:
		p.Source = SourceTable
	}
	if c.kernel != nil {
		// Checked above, and the pick is in the space: no error.
		p.Plan.Launch, _ = c.kernel.Geometry(t, p.Config)
		p.Plan.BuildOptions = c.kernel.Options(t, p.Config)
		p.Plan.Values = c.kernel.ConfigValues(t, p.Config)
	}
	c.mu.Lock()
	if len(c.cache) >= c.opt.CacheSize {
		// One shape out, at random (a map's iteration starts anywhere):
		// a caller cycling through a few more shapes than the cache holds
		// still finds most of them, where emptying it found none.
		for k := range c.cache {
			delete(c.cache, k)
			break
		}
	}
	if c.opt.Wisdom == nil || gen == c.wisdomGen {
		c.cache[key] = &p
	}
	c.mu.Unlock()
	return &p, nil
}

// referenceLog returns the model's prediction, clamped, for the
// reference configuration at t: what Pick.LogSpeedup is measured from. 0
// without a model.
func (c *Chooser) referenceLog(t features.Task) float64 {
	if c.model == nil || !c.space.Valid(c.bundle.Reference) {
		return 0
	}
	v, _ := c.model.PredictClamped(t, c.bundle.Reference)
	return v
}

// forgetWisdom drops the cached picks of the shapes recorded in the wisdom
// from generation from on, unless another call did already.
func (c *Chooser) forgetWisdom(from, to uint64) {
	keys := c.opt.Wisdom.shapesSince(from)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.wisdomGen != from {
		return
	}
	for _, k := range keys {
		delete(c.cache, k)
	}
	c.wisdomGen = max(to, from+uint64(len(keys)))
}

func (c *Chooser) checkShape(t features.Task) error {
	if len(t) != len(c.bundle.TaskNames) {
		return fmt.Errorf("%w: shape has %d values, want %d (%s)", ErrShape, len(t), len(c.bundle.TaskNames), strings.Join(c.bundle.TaskNames, ", "))
	}
	if c.kernel != nil {
		if err := c.kernel.CheckTask(t); err != nil {
			return shapeError{err}
		}
	}
	return nil
}

// Predict returns the model's predicted log-speedup of cfg on shape t,
// clamped to the range of its training targets when the model records one
// (predict.Model.Clamp): the model's own figure, which a Pick's
// LogSpeedup gives less the reference's at the same shape.
func (c *Chooser) Predict(t features.Task, cfg features.Config) (float64, error) {
	if c.model == nil {
		return 0, fmt.Errorf("runtime: Predict: no model fits the device (source %q)", c.source)
	}
	if err := c.checkShape(t); err != nil {
		return 0, err
	}
	if err := c.model.Check(t, cfg); err != nil {
		return 0, err // it names its package
	}
	return c.model.Predict(t, cfg), nil
}

// runs reports whether cfg can run t on the chooser's device, as far as
// the kernel's definitions tell; true when either is unknown.
func (c *Chooser) runs(t features.Task, cfg features.Config) bool {
	return c.device == nil || c.kernel == nil || c.kernel.Runs(t, cfg, *c.device)
}

// search scores the starting points (the reference, the configurations
// that ran fastest on the training shapes, and the best ones of the
// nearest grid shapes) in one batch, then improves the best by
// one-parameter changes, a batch a sweep. Configurations beyond the
// model's resource limits are never chosen.
func (c *Chooser) search(t features.Task) Pick {
	if c.consensus != nil {
		return c.consensusSearch(t)
	}
	return c.climb(t, nil)
}

// climb is search, calling keep, when not nil, with every configuration
// scored that the device can run and its predicted log-speedup (a
// configuration shared with the bundle: keep copies what it keeps).
func (c *Chooser) climb(t features.Task, keep func(features.Config, float64)) Pick {
	return c.climbTop(t, keep, nil)
}

// climbTop is climb offering top, when not nil, every configuration it
// scores that the device can run.
func (c *Chooser) climbTop(t features.Task, keep func(features.Config, float64), top *topScored) Pick {
	sc := c.model.Scorer(t)
	batch := make([]features.Config, 0, 64)
	seen := make(map[int]bool, 64) // keyed by Space.Index
	fixed, fv := c.fixedParam(t)
	add := func(cfg features.Config) {
		if fixed >= 0 && cfg[fixed] != fv {
			return
		}
		if k := c.space.Index(cfg); !seen[k] {
			seen[k] = true
			batch = append(batch, cfg)
		}
	}
	starts := func() {
		add(c.bundle.Reference)
		if c.starts == nil {
			// Without a table (an older bundle, a fleet model), the
			// configurations that ran fastest on the training shapes start.
			for _, cand := range c.candidates {
				add(cand)
			}
		} else {
			for _, gi := range c.nearest(t) {
				for _, pi := range c.starts.Configs[gi] {
					add(c.starts.Pool[pi])
				}
			}
		}
	}
	starts()
	if len(batch) == 0 && fixed >= 0 {
		// No starting point has the predicted value: search everything.
		fixed = -1
		starts()
	}
	vals := make([]float64, 0, 64)
	oks := make([]bool, 0, 64)
	score := func() (features.Config, float64) {
		vals, oks = vals[:len(batch)], oks[:len(batch)]
		if cap(vals) < len(batch) {
			vals, oks = make([]float64, len(batch)), make([]bool, len(batch))
		}
		sc.ScoreBatch(batch, vals, oks)
		var best features.Config
		bestV := math.Inf(-1)
		for i, v := range vals {
			switch {
			case !oks[i]:
			case keep == nil:
				// Choose's path: the device check only for a better one,
				// or one to keep among the top.
				if v > bestV && c.runs(t, batch[i]) {
					best, bestV = batch[i], v
					if top != nil {
						top.add(batch[i], v)
					}
				} else if top != nil && top.wants(v) && c.runs(t, batch[i]) {
					top.add(batch[i], v)
				}
			case c.runs(t, batch[i]):
				keep(batch[i], v)
				if v > bestV {
					best, bestV = batch[i], v
				}
			}
		}
		return best, bestV
	}
	best, bestV := score()
	if best == nil {
		best = c.bundle.Reference
	}
	best = best.Clone()
	// One backing array holds a sweep's neighbours: a configuration
	// allocated only when it is one to score.
	width := len(c.space.Params)
	var neighbours []int
	for sweep := 0; sweep < c.opt.Steps; sweep++ {
		batch = batch[:0]
		neighbours = neighbours[:0]
		if need := c.nNeighbours * width; cap(neighbours) < need {
			neighbours = make([]int, 0, need)
		}
		for k, p := range c.space.Params {
			if k == fixed {
				continue
			}
			for _, v := range p.Values {
				if v == best[k] {
					continue
				}
				neighbours = append(neighbours, best...)
				n := features.Config(neighbours[len(neighbours)-width:])
				n[k] = v
				// A configuration scored already is not scored again:
				// it scored at most bestV, so it can be neither the
				// sweep's winner nor, with keep, new to the caller.
				i := c.space.Index(n)
				if i < 0 || seen[i] || !c.space.Valid(n) || (c.known != nil && !c.known[i]) {
					neighbours = neighbours[:len(neighbours)-width]
					continue
				}
				seen[i] = true
				batch = append(batch, n)
			}
		}
		next, v := score()
		if next == nil || v <= bestV {
			break
		}
		best, bestV = next.Clone(), v
	}
	p := Pick{Config: best, LogSpeedup: bestV, Model: c.model.Name,
		OutsideOctaves: c.outside(t), ExpectedPct: c.expected[0], WorstPct: c.expected[1]}
	if fixed >= 0 {
		p.Fixed = c.classValues[fv]
	}
	return p
}

// fixedParam returns the parameter the classifier fixes for t and its
// value, or -1 when there is no classifier or its class never ran.
func (c *Chooser) fixedParam(t features.Task) (int, int) {
	if c.classifier == nil {
		return -1, 0
	}
	v, _ := c.classifier.Class(t, c.classPlatform)
	if c.classKnown != nil && !c.classKnown[v] {
		return -1, 0
	}
	return c.classParam, v
}

// nearest returns the indices of the opt.Starts grid shapes closest to t
// on a log scale.
func (c *Chooser) nearest(t features.Task) []int {
	var idx [16]int
	// The shape's logarithms once, not once a grid shape: the grid has
	// hundreds of shapes.
	var lbuf [8]float64
	lt := features.TaskLogs(lbuf[:0], t)
	n := features.LogShapes(c.startLogs).Nearest(lt, idx[:min(c.opt.Starts, len(idx))])
	return idx[:n]
}

// outside returns how many octaves t lies beyond the training range, in
// the task feature farthest out.
func (c *Chooser) outside(t features.Task) float64 {
	if c.lo == nil {
		return 0
	}
	out := 0.0
	for f, v := range t {
		l := math.Log(float64(max(v, 1)))
		out = max(out, c.lo[f]-l, l-c.hi[f])
	}
	return out / math.Ln2
}

// measuredTable returns Bundle.Measured's entries for the device the
// chooser serves: the device in Options (its platform's slug or name), the
// device the fleet model is scored for (plat), or the device of the model
// chosen. The fleet model with no device named has none.
func measuredTable(b *features.Bundle, entry *features.Model, plat *features.Platform, opt Options, space *features.Space) map[features.TaskKey]features.Config {
	var slugs []string
	if opt.Platform != nil {
		slugs = append(slugs, opt.Platform.Slug())
	}
	if plat != nil {
		slugs = append(slugs, plat.Slug())
	}
	if opt.Device != "" {
		slugs = append(slugs, strings.ToLower(opt.Device))
	}
	if entry != nil && entry.Name != SourceFleet {
		slugs = append(slugs, entry.Name)
	}
	table := map[features.TaskKey]features.Config{}
	for _, m := range b.Measured {
		if len(m.Task) != len(b.TaskNames) || !space.Valid(m.Config) {
			continue
		}
		for _, s := range slugs {
			if strings.EqualFold(m.Device, s) {
				table[m.Task.Key()] = m.Config
			}
		}
	}
	if len(table) == 0 {
		return nil
	}
	return table
}
