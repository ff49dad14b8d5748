package eval

import "errors"

// ErrNoHoldout is returned, wrapped with the reason, when a holdout has
// nothing to choose for: no shape to leave out, no such device, or no
// shape recorded at the required coverage.
var ErrNoHoldout = errors.New("eval: nothing to hold out")

// ErrNoRoles is returned by KernelRoles for a kernel family whose
// parameters have no roles in the grouped heuristics.
var ErrNoRoles = errors.New("eval: kernel names no roles for the grouped heuristics")

// ErrNoPrior is returned, wrapped with the reason, when the fleet-prior
// tuner has no model to rank the device's space with.
var ErrNoPrior = errors.New("eval: no prior")

// ErrNoRepeats is returned by SplitHalf for a configuration timed fewer
// than twice: its runs cannot be split in two.
var ErrNoRepeats = errors.New("eval: a configuration has fewer than 2 timed runs")
