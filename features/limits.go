package features

import (
	"fmt"
	"math"
)

// The limits on what a bundle, a kernel spec or an imported file may
// declare, in one place. They are checked before any work that grows with
// the declared sizes (building a space, compiling constraints, loading
// models), so that a hostile or broken file is refused at once with an
// error matching ErrLimit instead of hanging the loader. The trees' own
// limits, enforced by predict/lightgbm (a standard-library-only package)
// while it reads a model, are: lightgbm.MaxTrees 10,000 trees a model,
// MaxLeaves 65,536 leaves a tree, MaxDepth 256 splits from root to leaf,
// MaxNodes 1,048,576 nodes a model, MaxFeatures 4,096 features (measured
// largest: 350 trees, 605 leaves, depth 10, 44,268 nodes, 47 features).
// A dataset row's repeats are bounded by collect/record.MaxRepeats. Each
// limit sits
// far above the largest legitimate value measured (2026-11-26: the
// shipped and test bundles have 8 parameters of at most 4 values, 2
// constraints of at most 19 bytes, 47 features, 3 models, 350 trees of at
// most 605 leaves).
const (
	// MaxParams is the most tuning parameters a space may have.
	MaxParams = 64
	// MaxParamValues is the most values one parameter may have.
	MaxParamValues = 4096
	// MaxSpaceSize is the most configurations (the product of the
	// parameters' value counts) a space may have.
	MaxSpaceSize = 1 << 40
	// MaxConstraints is the most constraints a space may have.
	MaxConstraints = 256
	// MaxConstraintLen is the longest constraint expression, in bytes.
	MaxConstraintLen = 4096
	// MaxBundleFeatures is the most encoder features a bundle may list.
	MaxBundleFeatures = 4096
	// MaxBundleModels is the most models a bundle may hold.
	MaxBundleModels = 1024
)

// CheckSpaceLimits refuses, with an error matching ErrLimit, parameters and
// constraints beyond the limits above, before NewSpace does any work.
func CheckSpaceLimits(params []Param, constraints []string) error {
	if len(params) > MaxParams {
		return fmt.Errorf("%w: %d parameters, at most %d allowed", ErrLimit, len(params), MaxParams)
	}
	size := 1.0
	for _, p := range params {
		if len(p.Values) > MaxParamValues {
			return fmt.Errorf("%w: parameter %q has %d values, at most %d allowed", ErrLimit, p.Name, len(p.Values), MaxParamValues)
		}
		size *= float64(max(len(p.Values), 1))
	}
	if size > MaxSpaceSize || math.IsInf(size, 0) {
		return fmt.Errorf("%w: space of %.3g configurations, at most %d allowed", ErrLimit, size, int64(MaxSpaceSize))
	}
	if len(constraints) > MaxConstraints {
		return fmt.Errorf("%w: %d constraints, at most %d allowed", ErrLimit, len(constraints), MaxConstraints)
	}
	for i, c := range constraints {
		if len(c) > MaxConstraintLen {
			return fmt.Errorf("%w: constraint %d is %d bytes long, at most %d allowed", ErrLimit, i, len(c), MaxConstraintLen)
		}
	}
	return nil
}

// checkBundleLimits refuses a bundle that declares more than the limits
// allow, before its space is built or a model loaded.
func checkBundleLimits(b *Bundle) error {
	if err := CheckSpaceLimits(b.Params, b.Constraints); err != nil {
		return err
	}
	switch {
	case len(b.Features) > MaxBundleFeatures:
		return fmt.Errorf("%w: bundle lists %d features, at most %d allowed", ErrLimit, len(b.Features), MaxBundleFeatures)
	case len(b.Models) > MaxBundleModels:
		return fmt.Errorf("%w: bundle holds %d models, at most %d allowed", ErrLimit, len(b.Models), MaxBundleModels)
	case len(b.DerivedExprs) > MaxConstraints:
		return fmt.Errorf("%w: bundle has %d derived expressions, at most %d allowed", ErrLimit, len(b.DerivedExprs), MaxConstraints)
	}
	for i, e := range b.DerivedExprs {
		if len(e) > MaxConstraintLen {
			return fmt.Errorf("%w: bundle derived expression %d is %d bytes long, at most %d allowed", ErrLimit, i, len(e), MaxConstraintLen)
		}
	}
	return nil
}
