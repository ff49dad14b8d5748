// Package predict loads the surrogate models of a bundle and scores
// configurations with them.
//
// A model predicts the log-speedup of a configuration over the kernel's
// reference configuration, ln(t_ref/t), for one (task, config, platform);
// higher is faster. A complete use:
//
//	data, _ := os.ReadFile("conv2d.augur")
//	b, err := features.ReadBundle(data)
//	if err != nil { ... }
//	// the only model, or the fleet model, with the kernel's derived features
//	m, err := predict.Load(b, "", datasets.Deriver(b.Kernel))
//	if err != nil { ... }
//	space, _ := b.Space()
//	task := features.Task{1024, 768, 5, 5}
//	speedup := math.Exp(m.Predict(task, b.Reference)) // 1.0 for a perfect model
//	ranked := m.Rank(task, space.All())               // fastest first
//
// A bundle may also hold a classifier of one categorical parameter
// (LoadClassifier): a multiclass tree ensemble over the task and platform
// features whose raw scores are the probabilities of the parameter's
// values. Loading refuses a model of another kind or class count:
//
//	c, err := predict.LoadClassifier(b, "technique", datasets.Stencil().Derived)
//	value, p := c.Class(task, c.PlatformVector(platform)) // the most probable value
//
// Models are loaded with github.com/dmitryikh/leaves from the LightGBM text
// the bundle carries; the feature count is checked once, at load time, so
// that scoring never meets a vector of the wrong length.
package predict
