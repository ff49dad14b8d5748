// Package features is augur's shared vocabulary: the tuning parameters of a
// kernel and the space they span (Param, Space, Config), the input shape a
// kernel runs on (Task), the device it runs on (Platform), the Encoder that
// lays one (task, config, platform) triple out as a feature vector by name,
// and the Bundle file that carries trained models to the runtime
// (ReadBundle and WriteBundle; ReadBundleFile, and WriteBundleFile, which
// replaces a file only once the new one is complete).
//
// It imports neither OpenCL nor Arrow, so that a library which only chooses
// configurations pays for neither.
package features
