// Package search holds the strategies that look for the best configuration
// of a tuning space: exhaustive, random, Bergstra's hill climb (section 2.4:
// start at the reference, resample each parameter with probability 0.25,
// keep the candidate when it scores higher), CLTune's simulated annealing
// and discrete particle swarm, and Garvey and Abdelrahman's grouped search
// with their three heuristics (ByDimension, ByOptimization, Hybrid). Fixed
// holds one parameter (the technique a classifier predicts) while a
// strategy searches the rest, and Oracle tries each of its values in turn.
// Replay turns a recorded dataset into an objective.
//
// Run is the driver of every strategy (gonum's optimize.Minimize is the
// model): it counts the objective calls, keeps the best result and stops
// any strategy at Settings.Budget, so that a harness gives every strategy
// the same number of evaluations and no strategy re-implements the
// budget. A strategy evaluates configurations through the driver's
// Evaluator and reads the budget only where its schedule depends on it.
// Configurations known to fail before compiling (Settings.Pruned: over the
// device's limits) are neither evaluated nor counted, so that every
// strategy, the two-stage tuner included, spends its budget within the
// limits.
//
// Falch and Elster's two-stage tuner has a stage a type: FirstStage draws
// a stratified random sample and passes over what a failure model
// (FailureModel) predicts to fail; SecondStage measures a model's ranking
// in order, interleaved with random draws, passing over those the failure
// model predicts to fail, while a Gaussian error model says the next
// configuration may still beat the best measured. PriorSearch tunes a
// device with no measurements from a fleet model's prior, measuring in
// batches and refitting a correction of the prior after each.
//
// A strategy maximizes an Objective, which may be a surrogate model's
// predicted log-speedup, a real measurement, or a replay of recorded data;
// strategies never evaluate a configuration outside the space's
// constraints.
package search
