package search

import (
	"errors"
	"fmt"
	"math"

	"github.com/augur-tuning/augur/features"
)

// ErrNotRecorded is returned by a Replay objective for a configuration the
// recording has no time for: it failed on the device, was pruned, or was
// never measured. Strategies treat it as any failed evaluation.
var ErrNotRecorded = errors.New("search: configuration not recorded")

// Replay returns an Objective that looks configurations up in recorded
// measurements instead of running them, so that strategies can be compared
// on a dataset with no device (Kernel Tuner's simulation mode).
//
// times maps s.Format(c) to the time of each configuration that ran, in any
// unit, each positive and finite; configurations that failed are simply
// absent. When refTime is positive (the reference configuration's time, in
// the same unit) the score is the log-speedup ln(refTime/time), the scale a
// surrogate model predicts; when refTime is 0 the score is -time. Keys are
// parsed once here, so a lookup neither allocates nor evaluates
// constraints, and the objective is safe for concurrent use.
func Replay(s *features.Space, times map[string]float64, refTime float64) (Objective, error) {
	if !(refTime >= 0) || math.IsInf(refTime, 1) {
		return nil, fmt.Errorf("search: replay reference time must be finite and >= 0, got %g", refTime)
	}
	scores := make(map[int]float64, len(times))
	for key, t := range times {
		c, err := s.Parse(key)
		if err != nil {
			return nil, fmt.Errorf("search: replay: recorded configuration %q: %w", key, err)
		}
		if !(t > 0) || math.IsInf(t, 1) {
			return nil, fmt.Errorf("search: replay: %s has time %g, want a positive finite time", key, t)
		}
		v := -t
		if refTime > 0 {
			v = math.Log(refTime / t)
		}
		scores[s.Index(c)] = v
	}
	return func(c features.Config) (float64, error) {
		v, ok := scores[s.Index(c)]
		if !ok {
			return 0, fmt.Errorf("%w: %s", ErrNotRecorded, s.Format(c))
		}
		return v, nil
	}, nil
}
