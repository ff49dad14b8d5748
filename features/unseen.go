package features

import "fmt"

// Policies of UnseenPolicy: how the runtime picks for a device the bundle
// has no model of.
const (
	// UnseenFleet searches the fleet model, scored with the device's
	// platform features.
	UnseenFleet = "fleet"
	// UnseenCopy copies another device's fastest measured configuration
	// (Bundle.Measured) of the shape nearest the asked one; of several
	// devices, the one whose copies the fleet model predicts fastest on the
	// new device on average over the measured shapes.
	UnseenCopy = "copy"
)

// UnseenPolicy is the policy the runtime follows for a device the bundle
// has no model of, chosen at training time by leaving each measured device
// out in turn: the other devices' fleet model and measured bests pick for
// its shapes, and the policy whose picks ran faster on it is recorded. It
// holds two choices: Policy for a shape another device measured, whose
// best can be copied as it is, and NewShapes for a shape none measured,
// where a copy comes from a nearby shape.
type UnseenPolicy struct {
	// Policy is UnseenFleet or UnseenCopy: the policy for a shape that a
	// device the runtime may copy from measured.
	Policy string `json:"policy"`
	// PctGeomean holds each policy's picks on the held-out devices'
	// shapes: the geometric mean over devices of each device's geometric
	// mean over its shapes, in % of the shape's best measured
	// configuration. A pick the device did not measure is scored with the
	// device's own model.
	PctGeomean map[string]float64 `json:"pct_geomean,omitempty"`
	// PctWorstDevice is each policy's worst device's geometric mean.
	PctWorstDevice map[string]float64 `json:"pct_worst_device,omitempty"`
	// Devices is the number of devices held out in turn; Shapes the
	// number of (device, shape) pairs scored.
	Devices int `json:"devices"`
	Shapes  int `json:"shapes"`

	// NewShapes is the policy for a shape that no device the runtime may
	// copy from measured, chosen on every held-out shape with that shape
	// also removed from the other devices' measured bests. Empty in
	// bundles written before it, where Policy serves every shape.
	NewShapes string `json:"new_shapes,omitempty"`
	// NewPctGeomean and NewPctWorstDevice are PctGeomean and
	// PctWorstDevice of that scoring.
	NewPctGeomean     map[string]float64 `json:"new_pct_geomean,omitempty"`
	NewPctWorstDevice map[string]float64 `json:"new_pct_worst_device,omitempty"`
}

// For is the policy for a shape that a device the runtime may copy from
// measured (measured true) or that none did.
func (u *UnseenPolicy) For(measured bool) string {
	if measured || u.NewShapes == "" {
		return u.Policy
	}
	return u.NewShapes
}

// check reports a policy this package does not know.
func (u *UnseenPolicy) check() error {
	switch u.Policy {
	case UnseenFleet, UnseenCopy:
	default:
		return fmt.Errorf("%w: bundle unseen-device policy %q, want %q or %q", ErrSyntax, u.Policy, UnseenFleet, UnseenCopy)
	}
	switch u.NewShapes {
	case "", UnseenFleet, UnseenCopy:
		return nil
	}
	return fmt.Errorf("%w: bundle unseen-device policy for new shapes %q, want %q or %q", ErrSyntax, u.NewShapes, UnseenFleet, UnseenCopy)
}
