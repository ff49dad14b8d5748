// Package main is libaugur: augur's runtime (package runtime) behind a C
// ABI, built as a shared library (go build -buildmode=c-shared, `make lib`
// writes bin/libaugur.so) or a static one (c-archive, bin/libaugur.a), for
// image and tensor libraries written in C, C++ or Python (python/, over
// ctypes). include/augur.h documents the API; include/augur.hpp wraps it
// for C++ and examples/c and examples/cpp use both.
//
// # Shape of the API
//
// A chooser is opened from a bundle's path or bytes, for a device named or
// described by its features as JSON (augur_open_options), with an optional
// wisdom file; the caller gets an integer handle, never a Go pointer: a
// table behind a mutex maps handles to runtime.Choosers. augur_choose
// writes a pick into caller-owned structs (augur_config with a fixed array
// of AUGUR_MAX_PARAMS values, augur_plan with the build options in a
// char[AUGUR_BUILD_OPTIONS_MAX]); augur_candidates writes the model's k best
// (runtime.Chooser.Candidates); augur_record appends a measurement to the
// wisdom file (runtime.Wisdom), which augur_choose consults first from
// then on; augur_plan_value gives what a configuration sets a spec
// kernel's configuration-dependent argument to (runtime.Plan.Values).
//
// Every entry point returns a code (AUGUR_OK or AUGUR_ERR_*) and, on an
// error, leaves its message in a thread-local buffer that
// augur_last_error returns, as errno does: the buffer lives in C
// (errors.c) because a C thread, unlike a goroutine, is the same from one
// call to the next. A panic inside an entry point becomes
// AUGUR_ERR_INTERNAL instead of killing the caller's process.
//
// A device named with no model of its own takes its features from the
// device table augur ships (runtime.ResolveDevice), or from platform_json;
// one that neither describes, or one that a bundle without a fleet model
// would answer with the kernel's reference configuration, is refused at
// open (AUGUR_ERR_DEVICE).
//
// libaugur imports runtime and features (and predict for a sentinel
// error) only: no OpenCL and no Arrow; TestNoHeavyDependencies checks.
// The package's tests build the library, compile the C and C++ examples
// and a C test of the ABI with the system compiler (cc, c++, or $CC and
// $CXX), and run the Python package's tests and docs/python.md, each
// skipped with a message when its tool is missing.
package main
