// Package eval measures how good augur's choices are on real devices and on
// recorded data. Quickstart is the end-to-end demonstration: it collects a
// sample of a kernel's space on a few shapes, trains a surrogate, chooses
// configurations for shapes the model never saw, and measures the choice
// against the reference configuration and the best of a large sample.
package eval
