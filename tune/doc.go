// Package tune holds augur's workflows on a live device, above collect:
// Tune (the two-stage tuner, or the fleet-prior tuner from a bundle,
// measuring as it goes), TuneTop (a bundle's top candidates measured once,
// the winner kept as wisdom), Quickstart (collect, train, choose and
// measure end to end) and MeasureObjective (a search objective that
// measures on the device). They pull in cgo through collect's OpenCL
// package; eval, which replays recorded data, builds without it.
package tune
