// Package eval measures how good augur's choices are on recorded data,
// without a device (it builds without cgo; the live workflows are package
// tune's). Evaluate replays models, search strategies and the two-stage tuner over
// recorded data; Table3 replays Garvey and Abdelrahman's grouped
// heuristics, their oracles and random sampling over it, as their Table 3.
// Both return their reports as structs with JSON tags; 'augur eval' lays
// them out as tables, JSON or plots.
// ChooseUnseen chooses a fleet bundle's policies for a device it has no
// model of (Bundle.Unseen), for shapes another device measured and for new
// ones, by leaving each device of the training data out and scoring the
// runtime's picks for it; 'augur train' calls it, and
// Evaluate's held-out device uses it as a user's bundle would.
// PickCurve and NextShapesFor say what to measure next: whether more
// shapes or more configurations a shape would raise the picks most, and
// which shapes of a list.
// FitFirstStage and FailureForest are the two-stage tuner's models of one
// shape (the speed of what runs, and what fails), shared by Evaluate's
// replays of the tuner and 'augur tune' on a device.
package eval
