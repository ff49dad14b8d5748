// Package search holds the strategies that look for the best configuration
// of a tuning space: exhaustive, random, and hill climbing as Bergstra et al.
// use it on their surrogate (section 2.4: start at the reference, resample
// each parameter with probability 0.25, keep the candidate when it scores
// higher).
//
// A strategy maximizes an Objective, which may be a surrogate model's
// predicted log-speedup, a real measurement, or a replay of recorded data;
// strategies never evaluate a configuration outside the space's
// constraints.
package search
