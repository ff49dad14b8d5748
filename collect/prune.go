package collect

import (
	"fmt"

	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/features"
)

// Reason names why collect does not compile a configuration on a shape and
// a device.
type Reason string

// The reasons, in the order pruneReason tests them.
const (
	// ReasonGeometry: the family cannot launch the configuration on the
	// shape (Kernel.Geometry fails).
	ReasonGeometry Reason = "geometry"
	// ReasonDims: the launch has fewer than 1 or more than 3 dimensions.
	ReasonDims Reason = datasets.LimitDims
	// ReasonWorkGroup: more work-items a work-group than the device's
	// CL_DEVICE_MAX_WORK_GROUP_SIZE.
	ReasonWorkGroup Reason = datasets.LimitWorkGroup
	// ReasonWorkItems: more work-items in one dimension than the device's
	// CL_DEVICE_MAX_WORK_ITEM_SIZES.
	ReasonWorkItems Reason = datasets.LimitWorkItems
	// ReasonGlobal: a global size that is not a multiple of the
	// work-group size.
	ReasonGlobal Reason = datasets.LimitGlobal
	// ReasonLocalMem: more local memory than CL_DEVICE_LOCAL_MEM_SIZE.
	ReasonLocalMem Reason = datasets.LimitLocalMem
	// ReasonConstantMem: more constant memory than
	// CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE.
	ReasonConstantMem Reason = datasets.LimitConstantMem
	// ReasonDevice: the configuration needs a feature the device lacks,
	// such as image support (Kernel.CheckDevice).
	ReasonDevice Reason = "device_feature"
)

// PruneError is why a configuration is pruned; its text goes on the row.
type PruneError struct {
	Reason Reason
	Msg    string
}

func (e *PruneError) Error() string { return e.Msg }

func pruned(r Reason, format string, args ...any) *PruneError {
	return &PruneError{Reason: r, Msg: fmt.Sprintf(format, args...)}
}

// pruneReason checks a launch against the device's limits
// (datasets.Launch.CheckLimits). It returns nil or a *PruneError.
func pruneReason(l datasets.Launch, p features.Platform) error {
	if err := l.CheckLimits(p); err != nil {
		le := err.(*datasets.LimitError)
		return &PruneError{Reason: Reason(le.Limit), Msg: le.Msg}
	}
	return nil
}

// Pruning counts a kernel's configurations on one shape and device.
type Pruning struct {
	// Raw is the number of configurations before the family's
	// constraints, Valid the number in its space.
	Raw, Valid int
	// Runnable is the number of valid configurations that collect would
	// compile on the device.
	Runnable int
	// Pruned counts the others by the first limit each breaks.
	Pruned map[Reason]int
}

// Prune counts what collect would prune of k's space on shape t and the
// device p, by the same checks and without compiling anything. An error
// is for a shape that k does not accept.
func Prune(k *datasets.Kernel, t features.Task, p features.Platform) (Pruning, error) {
	if err := k.CheckTask(t); err != nil {
		return Pruning{}, fmt.Errorf("collect: %w", err)
	}
	out := Pruning{Raw: k.Space.RawSize(), Pruned: map[Reason]int{}}
	k.Space.Each(func(c features.Config) bool {
		out.Valid++
		l, err := k.Geometry(t, c)
		if err != nil {
			err = pruned(ReasonGeometry, "%v", err)
		} else {
			err = pruneReason(l, p)
		}
		if err == nil {
			err = checkDevice(k, c, p)
		}
		if pe, ok := err.(*PruneError); ok {
			out.Pruned[pe.Reason]++
		} else {
			out.Runnable++
		}
		return true
	})
	return out, nil
}

// checkDevice is Kernel.CheckDevice as a *PruneError.
func checkDevice(k *datasets.Kernel, c features.Config, p features.Platform) error {
	if err := k.CheckDevice(c, p); err != nil {
		return &PruneError{Reason: ReasonDevice, Msg: err.Error()}
	}
	return nil
}
