// Package train turns dataset files into a model bundle.
//
// Load reads the Arrow files of one kernel (see package collect/record) and
// lays every measured (task, config, platform) out as a feature vector with
// features.Encoder, with the target y = ln(t_ref/t), the log-speedup over
// the kernel's reference configuration (Bergstra et al., eq. 1).
//
// FitGBRT fits gradient-boosted regression trees to such data with squared
// loss, and Ensemble.WriteLightGBM writes the result in LightGBM's text
// format (v3), which the runtime loads with github.com/dmitryikh/leaves.
// CrossValidate estimates a model's error on configurations it has not
// seen. Train does all of it: one model per platform, a "fleet" model over
// all platforms when there are several, and their cross-validated errors,
// in one features.Bundle.
package train
