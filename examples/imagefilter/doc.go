// Package imagefilter is an example of embedding augur in a library: a
// small image filter that convolves a float image with a filter through
// OpenCL, and asks augur's runtime for the kernel configuration at every
// call. It is the use the runtime exists for, in about two hundred lines.
//
// # Embedding a model
//
// 1. Train a bundle for the kernel on the devices you ship to ('augur
// collect', then 'augur train'), and copy the .augur file next to your
// code. This package carries conv2d-pocl.augur, trained on PoCL.
//
// 2. Embed it, so that the library needs no file at run time:
//
//	//go:embed conv2d-pocl.augur
//	var conv2dModel []byte
//
// 3. Load it once, naming the device, so that the runtime picks that
// device's model from a bundle with several (or the fleet model, scored
// with the device's features):
//
//	plat := dev.Platform()
//	chooser, err := runtime.New(conv2dModel, runtime.Options{Platform: &plat})
//
// New fails with runtime.ErrKernelVersion when the bundle was trained on
// another version of the kernel than the one this augur holds: train again.
//
// 4. At every call, ask for the shape's pick. It carries the launch plan:
// the build options, the global and local sizes and the local memory, all
// computed without OpenCL, so the library only compiles (once per distinct
// build options; keep the programs in a map) and launches:
//
//	p, err := chooser.ChoosePick(features.Task{width, height, fw, fh})
//	prog := programs[p.Plan.BuildOptions] // build on a miss
//	run(prog, p.Plan.Launch)
//
// A shape seen before costs a map look-up. A shape the kernel does not
// accept gives an error wrapping runtime.ErrShape, which a library reports
// like any bad argument. p.OutsideOctaves says how far the shape lies
// beyond what the model was trained on; p.Source says which model chose.
//
// 5. The device may still refuse a pick the model thought good (a driver
// limit below the device's reported one): fall back to the kernel's
// reference configuration (chooser.Reference and chooser.Plan), which
// every device runs. Filter.Apply does.
//
// # Timing a few candidates once
//
// 6. The model's pick is a prediction; the fastest of its first few
// candidates, measured once, is closer to the optimum (bench/RESULTS.md,
// "Top-k candidates"). Open with Options.Tune = 3 and the first call
// for a shape times chooser.Candidates(shape, 3) on the caller's own
// data, keeps the fastest and uses it for that shape from then on. With
// Options.WisdomPath the timings go to a wisdom file
// (runtime.OpenWisdom, one per device and kernel version) that the
// Chooser reads first (runtime.Options.Wisdom): the next process, or
// another on the same machine, starts with the winners and times nothing.
// Candidates mixes the model's ranking with the fastest configurations
// measured at the training shapes nearest the asked one, which a bundle
// that 'augur train' writes records (Bundle.Measured); the bundle carried
// here predates them, so its candidates are the model's ranking alone.
//
// The OpenCL calls here go through augur's collect/opencl sessions, which
// hold the cgo; the runtime itself is pure Go.
package imagefilter
