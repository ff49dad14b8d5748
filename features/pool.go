package features

// PoolChoice is what training measured when it chose, for one device of
// a fleet, between the device's own model and the fleet model (trained on
// every device's rows, the platform features among its inputs): each
// model's picks on the device's shapes, each shape held out of the
// training rows of every device. It is kept on the device's Model.
type PoolChoice struct {
	// Fleet says the runtime serves the device with the fleet model,
	// scored with the device's platform features, instead of its own.
	Fleet bool `json:"fleet"`
	// OwnPct and FleetPct are the geometric means over the device's
	// shapes of each model's top-1 pick among the shape's measured
	// configurations, in % of the shape's best; OwnWorst and FleetWorst
	// the worst shape's. All four are 0 where training did not score the
	// device: one of more shapes than the fleet model may serve, which
	// keeps its own model (train.PoolOptions.Figures scores it too).
	OwnPct     float64 `json:"own_pct"`
	FleetPct   float64 `json:"fleet_pct"`
	OwnWorst   float64 `json:"own_worst_pct"`
	FleetWorst float64 `json:"fleet_worst_pct"`
	// Shapes is the number of the device's shapes scored.
	Shapes int `json:"shapes"`
	// FleetWins and OwnWins count the shapes where one model's pick is
	// faster than the other's (ties count for neither).
	FleetWins int `json:"fleet_wins,omitempty"`
	OwnWins   int `json:"own_wins,omitempty"`
}

// SiblingChoice is what training measured when it chose, for one device
// with a model of its own, how to pick at a shape the device did not
// measure but another device of its type did: that device's best
// configuration of the very shape (Bundle.Measured), or the device's own
// model's search. It is kept on the device's Model.
type SiblingChoice struct {
	// Copy says the runtime copies the other device's best at such a
	// shape (of several such devices, the copy the device's model
	// predicts fastest) instead of searching.
	Copy bool `json:"copy"`
	// CopyPct is the geometric mean, over the device's shapes that
	// another device of its type measured, of that copy's speed in % of
	// the device's best measured configuration; OwnPct the device's own
	// model's picks on held-out shapes (its learner selection). Shapes is
	// the number of shapes CopyPct covers.
	CopyPct float64 `json:"copy_pct"`
	OwnPct  float64 `json:"own_pct"`
	Shapes  int     `json:"shapes"`
}
