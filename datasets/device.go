package datasets

import (
	"strings"

	"github.com/augur-tuning/augur/features"
)

// deviceChecker is the behaviour of a family whose space depends on the
// device: a configuration that reads image memory, or one that passes a
// vendor's build option, runs only where the device has that feature.
// Families without such parameters do not implement it.
type deviceChecker interface {
	checkDevice(c features.Config, p features.Platform) error
}

// CheckDevice returns an error wrapping ErrDevice when configuration c
// needs a feature the device p lacks, and nil otherwise (also for a family
// with no device-dependent parameters). It is the platform-dependent part
// of the space's constraints: collect prunes such configurations before
// compiling and records the reason on their rows. c must be in the space.
func (k *Kernel) CheckDevice(c features.Config, p features.Platform) error {
	dc, ok := k.impl.(deviceChecker)
	if !ok {
		return nil
	}
	return dc.checkDevice(c, p)
}

// isNVIDIA reports whether p is NVIDIA's own OpenCL platform, whose
// compiler takes -cl-nv-* options. PoCL's CUDA device reports NVIDIA as
// its vendor but compiles through PoCL, so the platform name decides.
func isNVIDIA(p features.Platform) bool {
	return strings.Contains(strings.ToUpper(p.PlatformName), "NVIDIA")
}
