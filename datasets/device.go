package datasets

import (
	"fmt"
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

// The device limits a launch can break (LimitError.Limit), in the order
// Launch.CheckLimits tests them. collect records them on pruned rows.
const (
	LimitDims        = "dimensions"      // fewer than 1 or more than 3
	LimitWorkGroup   = "work_group_size" // CL_DEVICE_MAX_WORK_GROUP_SIZE
	LimitWorkItems   = "work_item_sizes" // CL_DEVICE_MAX_WORK_ITEM_SIZES
	LimitGlobal      = "global_size"     // not a multiple of the work-group size
	LimitLocalMem    = "local_memory"    // CL_DEVICE_LOCAL_MEM_SIZE
	LimitConstantMem = "constant_memory" // CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE
)

// LimitError is a launch that breaks a limit of a device.
type LimitError struct {
	Limit string // one of the Limit constants
	Msg   string
}

func (e *LimitError) Error() string { return e.Msg }

func limitError(limit, format string, args ...any) *LimitError {
	return &LimitError{Limit: limit, Msg: fmt.Sprintf(format, args...)}
}

// CheckLimits checks a launch against the limits that hold for every
// kernel on the device p (Erdem et al., "Automatic pruning of autotuning
// parameter space for OpenCL applications", 2016): the work-group size,
// the work-items per dimension, a global size that is a multiple of the
// work-group size, the local memory and the constant memory. It returns
// nil or a *LimitError, without allocating when the launch fits.
func (l Launch) CheckLimits(p features.Platform) error {
	if l.Dims < 1 || l.Dims > 3 {
		return limitError(LimitDims, "launch has %d dimensions, want 1 to 3", l.Dims)
	}
	if wg := l.WorkGroupSize(); wg > p.MaxWorkGroupSize {
		return limitError(LimitWorkGroup, "work-group size %d exceeds the device's %d", wg, p.MaxWorkGroupSize)
	}
	for d := 0; d < l.Dims; d++ {
		if l.Local[d] > p.MaxWorkItemSizes[d] {
			return limitError(LimitWorkItems, "work-group size %d in dimension %d exceeds the device's %d", l.Local[d], d, p.MaxWorkItemSizes[d])
		}
		if l.Local[d] > 0 && l.Global[d]%l.Local[d] != 0 {
			return limitError(LimitGlobal, "global size %d in dimension %d is not a multiple of the work-group size %d", l.Global[d], d, l.Local[d])
		}
	}
	if int64(l.LocalMemBytes) > p.LocalMemBytes {
		return limitError(LimitLocalMem, "local memory %d bytes exceeds the device's %d", l.LocalMemBytes, p.LocalMemBytes)
	}
	// A platform recorded before constant memory was queried has 0: no
	// limit known.
	if p.ConstantMemBytes > 0 && int64(l.ConstantMemBytes) > p.ConstantMemBytes {
		return limitError(LimitConstantMem, "constant memory %d bytes exceeds the device's %d", l.ConstantMemBytes, p.ConstantMemBytes)
	}
	return nil
}

// Runs reports whether configuration c of the space can run shape t on
// the device p, as far as can be known without compiling: the family can
// launch it (Geometry), the launch fits the device's limits
// (Launch.CheckLimits) and the device has what c needs (CheckDevice).
func (k *Kernel) Runs(t features.Task, c features.Config, p features.Platform) bool {
	l, err := k.Geometry(t, c)
	return err == nil && l.CheckLimits(p) == nil && k.CheckDevice(c, p) == nil
}
