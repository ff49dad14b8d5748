package train

import (
	"fmt"
	"io"
	"strings"

	"github.com/augur-tuning/augur/predict/lightgbm"
)

// BagOptions configure a bag of boosted-tree models, each fitted to its
// own random subsample of the rows with its own seed, whose mean is the
// prediction: one model's argmax over a shape's configurations is a noisy
// draw, the mean of several is less so. The bag is written as one summed
// model, as a blend is. The zero value bags 4 models of GBRT's defaults
// on 80% of the rows each.
type BagOptions struct {
	// GBRT are each member's settings; its Seed is the first member's,
	// and member i uses Seed+i. Subsample 0 means 0.8 here.
	GBRT GBRTOptions
	// Members is the number of models; 0 means 4, at least 2.
	Members int
}

func (o BagOptions) withDefaults() (BagOptions, error) {
	if o.Members == 0 {
		o.Members = 4
	}
	if o.GBRT.Subsample == 0 {
		o.GBRT.Subsample = 0.8
	}
	if o.Members < 2 {
		return o, fmt.Errorf("train: BagOptions.Members must be >= 2, got %d", o.Members)
	}
	if _, err := o.GBRT.withDefaults(); err != nil {
		return o, err
	}
	return o, nil
}

// Fit fits the bag's members to the rows of x and targets y.
func (o BagOptions) Fit(x []float64, nFeatures int, y []float64) (Regressor, error) {
	o, err := o.withDefaults()
	if err != nil {
		return nil, err
	}
	var b bag
	for i := range o.Members {
		g := o.GBRT
		g.Seed += uint64(i)
		e, err := FitGBRT(x, nFeatures, y, g)
		if err != nil {
			return nil, err
		}
		b = append(b, e)
	}
	return b, nil
}

// BagCandidate names a bag as a Candidate; it costs its members' sum.
func BagCandidate(o BagOptions) Candidate {
	r, _ := o.withDefaults()
	g, _ := r.GBRT.withDefaults()
	opts := g.options()
	opts["bag_members"] = float64(r.Members)
	return Candidate{Name: fmt.Sprintf("bag%d-d%d-t%d-lr%g-sub%g", r.Members, g.MaxDepth, g.Trees, g.LearningRate, g.Subsample),
		Kind: "gbrt", Learner: o, Cost: r.Members * g.Trees * g.MaxDepth, options: opts}
}

// bag predicts the mean of its members.
type bag []Regressor

func (b bag) Predict(x []float64) float64 {
	var s float64
	for _, m := range b {
		s += m.Predict(x)
	}
	return s / float64(len(b))
}

func (b bag) NumTrees() int {
	n := 0
	for _, m := range b {
		n += m.NumTrees()
	}
	return n
}

// WriteLightGBM writes one summed model: every member's leaves divided
// by the number of members (and by its tree count when it averages), so
// that leaves and LightGBM predict the mean.
func (b bag) WriteLightGBM(w io.Writer, featureNames []string) error {
	var out *lightgbm.Model
	for _, r := range b {
		var text strings.Builder
		if err := r.WriteLightGBM(&text, featureNames); err != nil {
			return err
		}
		part, err := lightgbm.Parse(text.String())
		if err != nil {
			return fmt.Errorf("train: bag: %w", err)
		}
		scale := 1 / float64(len(b))
		if part.Average {
			scale /= float64(len(part.Trees))
		}
		for i := range part.Trees {
			t := &part.Trees[i]
			for j := range t.LeafValue {
				t.LeafValue[j] *= scale
			}
			for j := range t.InternalValue {
				t.InternalValue[j] *= scale
			}
		}
		if out == nil {
			out = part
			out.Average = false
			out.Params = append(out.Params, lightgbm.Param{Key: "bag", Value: fmt.Sprintf("mean of %d models", len(b))})
			continue
		}
		out.Trees = append(out.Trees, part.Trees...)
		out.FeatureInfos = mergeInfos(out.FeatureInfos, part.FeatureInfos)
	}
	return out.Write(w)
}

var (
	_ Learner   = BagOptions{}
	_ Regressor = bag(nil)
)
