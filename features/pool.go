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
