package eval

import (
	"encoding/binary"

	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/search"
	"github.com/augur-tuning/augur/train"
)

var _ search.FailureModel = (*FailureForest)(nil)

// FailureForest is the two-stage tuner's model of which configurations fail
// on the device (search.FailureModel): a random-forest classifier
// (train.ClassForestOptions) of every configuration measured on the shape,
// ran or failed, on the feature vector the tuner's regression model reads
// (the kernel's derived features included, such as a spec kernel's
// wg_size). The regression model learns from the configurations that ran
// alone, so it has no word for a region that fails and often ranks it at
// the top: on examples/rowsum, where every work-group of 512 items or more
// fails on the H200, its favourite failed on 7 of 12 shapes
// (bench/RESULTS.md, session 15). eval's replays of the tuner and 'augur
// tune' both use it (NewFailureForest). It is not safe for concurrent use.
type FailureForest struct {
	encode func(dst []float64, c features.Config)
	nf     int
	opt    train.ClassForestOptions
	x      []float64
	y      []int
	failed int // rows of class 1
	// The forest; nil before a failure. fitFailed is the number of
	// failures it was fitted with.
	forest    *train.ClassForest
	fitFailed int
	cache     map[string]float64
	vec, prob []float64
}

// failureTrees is the forest's size: the classes part along a few
// parameters (work-group size, local memory), which a few trees find as
// well as the classifier's default 100 (one fit a failure on conv2d's
// 6,400 configurations would otherwise cost more than the replay).
const failureTrees = 25

// NewFailureForest returns a FailureForest over configurations that
// encode lays out as nf features, its forests seeded with seed.
func NewFailureForest(nf int, encode func(dst []float64, c features.Config), seed uint64) *FailureForest {
	return &FailureForest{encode: encode, nf: nf, opt: train.ClassForestOptions{Trees: failureTrees, MinLeaf: 1, Seed: seed},
		cache: map[string]float64{}, vec: make([]float64, nf), prob: make([]float64, 2)}
}

// Observe implements search.FailureModel: it adds c's outcome to the rows
// the next fit reads. The forest is refitted, at the next PFail, when the
// failures grew by an eighth since the last fit (at least one: every
// failure on a first stage of ten rows with a few failures; on conv2d's
// first stages of 128 rows, ~91 of them failures on the H200, hardly
// ever), so that the number of fits grows with the log of the failures;
// changed reports a refit to come. Refitting at every failure, or when
// the rows grew by a sixteenth, cost 6-7 times main's wall time on
// conv2d's replays (bench/RESULTS.md, session 16).
func (f *FailureForest) Observe(c features.Config, failed bool) (changed bool) {
	f.x = append(f.x, make([]float64, f.nf)...)
	f.encode(f.x[len(f.x)-f.nf:], c)
	label := 0
	if failed {
		label = 1
		f.failed++
	}
	f.y = append(f.y, label)
	return f.stale()
}

// stale says whether the next PFail refits.
func (f *FailureForest) stale() bool {
	return f.failed-f.fitFailed >= max(1, f.fitFailed/8)
}

// PFail implements search.FailureModel: the forest's probability that c
// fails; 0 while no measured configuration has failed, 1 while none has
// run.
func (f *FailureForest) PFail(c features.Config) float64 {
	switch {
	case f.failed == 0:
		return 0
	case f.failed == len(f.y):
		return 1
	}
	if f.forest == nil || f.stale() {
		x, y := f.rows()
		forest, err := f.opt.FitClasses(x, f.nf, y, 2)
		if err != nil {
			// The rows are checked when they are added; a fit that fails
			// leaves the model with no word, as before any failure.
			return 0
		}
		f.forest, f.fitFailed = forest, f.failed
		clear(f.cache)
	}
	k := configKey(c)
	if q, ok := f.cache[k]; ok {
		return q
	}
	f.encode(f.vec, c)
	f.forest.Probabilities(f.prob, f.vec)
	q := min(max(f.prob[1], 0), 1) // a sum of shares may round past 1
	f.cache[k] = q
	return q
}

// okPerFailure bounds the rows a fit reads: every failure and at most this
// many rows that ran for each, every k-th of them in the order measured.
// Where failures are few among thousands of measurements (the Xeon's
// conv2d replays) fits on every row took twice main's CPU time and
// more; where they are a family (conv2d on the GPUs, rowsum, transpose)
// the rows that ran are mostly fewer than the bound (bench/RESULTS.md,
// session 16).
const okPerFailure = 16

// rows returns the rows the next fit reads (see okPerFailure).
func (f *FailureForest) rows() ([]float64, []int) {
	ok := len(f.y) - f.failed
	limit := okPerFailure * f.failed
	if ok <= limit {
		return f.x, f.y
	}
	step := (ok + limit - 1) / limit
	var x []float64
	var y []int
	seen := 0
	for i, label := range f.y {
		if label == 0 {
			seen++
			if (seen-1)%step != 0 {
				continue
			}
		}
		x = append(x, f.x[i*f.nf:(i+1)*f.nf]...)
		y = append(y, label)
	}
	return x, y
}

// configKey is c's parameter values as a map key.
func configKey(c features.Config) string {
	b := make([]byte, 0, 2*len(c))
	for _, v := range c {
		b = binary.AppendVarint(b, int64(v))
	}
	return string(b)
}
