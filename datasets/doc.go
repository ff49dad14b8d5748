// Package datasets holds augur's kernel families: for each, the OpenCL C
// source (embedded), the tuning space and its constraints, the task
// (input shape) features, launch geometry, a reference configuration, a
// plain-Go reference implementation that collect verifies every measured
// configuration against, and flop and byte counts.
//
// Families are built explicitly: Kernels returns a fresh list and Lookup
// finds one by name; there is no registration at init time.
package datasets
