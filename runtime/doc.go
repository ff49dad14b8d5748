// Package runtime is what an image or tensor library imports to pick a
// kernel configuration at every call, with no measurement: it loads a model
// bundle (from a file or go:embed bytes), hill-climbs the surrogate for a
// shape it has not seen, and caches the answer per shape.
//
// A complete use:
//
//	//go:embed conv2d.augur
//	var conv2dModel []byte
//
//	chooser, err := runtime.New(conv2dModel, runtime.Options{})
//	if err != nil { ... }
//	cfg, err := chooser.Choose(features.Task{width, height, 5, 5})
//	if err != nil { ... } // a shape of the wrong length
//	// cfg holds Xwg, Ywg, ... in the order of chooser.Space().Params;
//	// build and launch the kernel with it.
//
// Choose is synchronous, starts no goroutines, and is safe for concurrent
// use. A shape seen before costs one map look-up and allocates nothing; a
// new one costs a 75-step hill climb on the surrogate, tens of
// microseconds. When the model predicts nothing faster than the kernel's
// reference configuration, Choose returns the reference.
package runtime
