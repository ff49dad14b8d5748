// Package runtime is what an image or tensor library imports to pick a
// kernel configuration at every call, with no measurement: it loads a model
// bundle (from a file or go:embed bytes), chooses the bundle's model for the
// device, hill-climbs the surrogate for a shape it has not seen, and caches
// the answer, with its launch plan, per shape.
//
// # A complete use
//
// Load the bundle once, naming the device (see Options.Device for the
// order in which a model is chosen for it):
//
//	//go:embed conv2d.augur
//	var conv2dModel []byte
//
//	plat := dev.Platform() // features.Platform, e.g. from collect/opencl
//	chooser, err := runtime.New(conv2dModel, runtime.Options{Platform: &plat})
//	if errors.Is(err, runtime.ErrKernelVersion) {
//		// The bundle was trained on another version of the kernel's
//		// source or space: train it again.
//	}
//
// At every call, ask for the shape's pick:
//
//	p, err := chooser.ChoosePick(features.Task{width, height, 5, 5})
//	if errors.Is(err, runtime.ErrShape) {
//		// Wrong length, or a value the kernel does not take (an even
//		// filter, an image too small): the caller's mistake.
//	}
//
// p.Config holds the parameters in the order of chooser.ParamNames();
// p.Param("Xwg") reads one by name. p.Plan is the launch, computed from the
// kernel family's definitions without OpenCL: build the kernel with
// p.Plan.BuildOptions (programs with equal options are the same program:
// keep them in a map) and enqueue it with p.Plan.Global and p.Plan.Local
// over p.Plan.Dims dimensions; p.Plan.LocalMemBytes is the local memory it
// allocates. The plan is empty for a kernel augur does not know (an
// imported one): the caller derives its launch from the parameters.
// chooser.Plan gives the plan of any configuration, such as
// chooser.Reference(), the configuration every device runs, to fall back on
// when the device refuses a pick.
//
// The search keeps to configurations that ran on the device in the
// training data: a model knows least, and flatters most, where it saw
// nothing, and a configuration never run may not run at all. A model
// trained with 'augur train --smaller-groups' may also pick one that
// differs from such a configuration only in smaller work groups (the
// kernel's datasets.Kernel.GroupParams), which needs no more of the
// device; Options.StrictKnown refuses them.
//
// A model may carry a nearest-shape rule (features.Consensus), which its
// training kept only where it picked better on held-out shapes than the
// model alone: of the climb's pick, one of the fastest configurations
// measured at the nearby training shapes and the climb's next best, the
// one that ran fastest at the training shapes nearest the asked one wins.
// The ranking is the model's; which of its first few to trust is decided
// by timings. A model may instead carry one fixed configuration
// (features.Model.Fixed), kept only where it picked better on held-out
// shapes than the model (with its rule): Choose returns it at every shape
// the bundle did not measure, where it runs, with Source "fixed" (a
// transpose's tile, which hardly depends on the shape).
//
// When the bundle has a classifier ('augur train --target PARAM'), the
// Chooser first predicts PARAM's value for the shape on the device (a
// stencil's data-loading technique, say) and searches the other parameters
// with that value fixed; p.Fixed says so ("technique=2"), and is empty when
// no classifier fixed anything (Options.IgnoreClassifier, a fleet model
// for a device whose features are unknown, or a value no configuration
// known to run has).
//
// p.Source says what chose: "model:<slug>" (a device's own model),
// "table" (the device measured this very shape), "fleet" (the fleet model,
// scored with the device's features), "copy:<slug>" (device <slug>'s best
// measured configuration of the nearest shape, for a device with no model
// of its own: see below; or, for a device with its own model, of this very
// shape, which <slug>, a device of its type, measured and it did not, where
// training found such copies at least as good as the model's picks:
// features.SiblingChoice) or "reference" (no model fits the device; the
// pick is the reference).
//
// For a device the bundle has no model of, the bundle records which policy
// held up when 'augur train' left each of its devices out in turn
// (Bundle.Unseen): the fleet model's search, or copying the other devices'
// measured bests (from devices of the device's type, a GPU's from GPUs,
// when the bundle measured any), all from the one device whose copies the
// fleet model predicts fastest on the device over every measured shape. It
// records two choices: one for a shape another device measured, whose best
// is copied as it is, and one for a new shape, whose copy would come from
// a nearby shape (features.UnseenPolicy.NewShapes). Copying is the default
// where the bundle records nothing; Options.Unseen forces either for every
// shape.
// p.OutsideOctaves says how far the shape lies beyond the training shapes
// (0 inside; beyond about 1 the model extrapolates), and p.ExpectedPct and
// p.WorstPct what the model's picks reached on held-out shapes, in % of the
// optimum. Chooser.WritePick writes a pick for a person to read, and
// Pick.Report gives it a JSON form (what `augur choose` prints).
//
// A library that only needs the configuration and calls often uses
// ChooseInto, which writes into a slice the caller keeps and, for a shape
// seen before, allocates nothing:
//
//	cfg := make(features.Config, len(chooser.ParamNames()))
//	err := chooser.ChooseInto(cfg, shape)
//
// Choose is synchronous, starts no goroutines, and is safe for concurrent
// use. A shape seen before costs one map look-up; a new one costs a climb
// on the surrogate from the starting points the bundle records, tens of
// microseconds to a few milliseconds depending on the model's size. When
// the model predicts nothing faster than the kernel's reference
// configuration, Choose returns the reference.
//
// # Signed bundles
//
// A fleet that distributes bundles can refuse any that its own key did not
// sign. `augur keygen --out KEY` writes an Ed25519 key pair (KEY, KEY.pub);
// `augur sign --key KEY --model conv2d.augur` writes the detached signature
// conv2d.augur.sig, over every byte of the bundle, which stays as it was
// (features.SignBundle documents the format). Embed both and name the keys:
//
//	//go:embed conv2d.augur
//	var conv2dModel []byte
//	//go:embed conv2d.augur.sig
//	var conv2dSig []byte
//
//	pub, err := features.ParsePublicKey(keyPEM) // KEY.pub
//	chooser, err := runtime.New(conv2dModel, runtime.Options{
//		TrustedKeys: []ed25519.PublicKey{pub}, Signature: conv2dSig})
//	if errors.Is(err, runtime.ErrUntrusted) {
//		// Unsigned, signed by another key, or changed after signing.
//	}
//
// The signature is checked before the bundle is parsed. Without
// TrustedKeys, New loads signed and unsigned bundles alike, as before.
//
// examples/imagefilter is a complete library built this way.
package runtime
