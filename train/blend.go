package train

import (
	"fmt"
	"io"
	"strings"

	"github.com/augur-tuning/augur/predict/lightgbm"
)

// BlendCandidate is the mean of two candidates' models: averaging a boosted
// model and a forest often picks better on unseen shapes than either, and
// Select scores every pair for free (see Select).
func BlendCandidate(a, b Candidate) Candidate {
	opts := map[string]float64{}
	for k, v := range a.options {
		opts["1."+k] = v
	}
	for k, v := range b.options {
		opts["2."+k] = v
	}
	return Candidate{Name: a.Name + "+" + b.Name, Kind: a.Kind + "+" + b.Kind,
		Learner: blendLearner{a.Learner, b.Learner}, Cost: a.Cost + b.Cost, options: opts}
}

// blendLearner fits both learners on the same rows.
type blendLearner struct{ a, b Learner }

func (l blendLearner) Fit(x []float64, nFeatures int, y []float64) (Regressor, error) {
	a, err := l.a.Fit(x, nFeatures, y)
	if err != nil {
		return nil, err
	}
	b, err := l.b.Fit(x, nFeatures, y)
	if err != nil {
		return nil, err
	}
	return blend{a, b}, nil
}

// fitSet fits both learners on the rows of s.
func (l blendLearner) fitSet(s fitSet) (Regressor, error) {
	a, err := fitOn(l.a, s)
	if err != nil {
		return nil, err
	}
	b, err := fitOn(l.b, s)
	if err != nil {
		return nil, err
	}
	return blend{a, b}, nil
}

// blend predicts the mean of two models.
type blend struct{ a, b Regressor }

func (m blend) Predict(x []float64) float64 { return (m.a.Predict(x) + m.b.Predict(x)) / 2 }

func (m blend) NumTrees() int { return m.a.NumTrees() + m.b.NumTrees() }

// WriteLightGBM writes one summed model: every leaf of a model halved (and
// divided by its tree count when it averages, as a forest does), the trees
// of both in one list, so that leaves and LightGBM predict the mean.
func (m blend) WriteLightGBM(w io.Writer, featureNames []string) error {
	var out *lightgbm.Model
	for _, r := range []Regressor{m.a, m.b} {
		var text strings.Builder
		if err := r.WriteLightGBM(&text, featureNames); err != nil {
			return err
		}
		part, err := lightgbm.Parse(text.String())
		if err != nil {
			return fmt.Errorf("train: blend: %w", err)
		}
		scale := 0.5
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
			out.Params = append(out.Params, lightgbm.Param{Key: "blend", Value: "mean of two models"})
			continue
		}
		out.Trees = append(out.Trees, part.Trees...)
		out.FeatureInfos = mergeInfos(out.FeatureInfos, part.FeatureInfos)
	}
	return out.Write(w)
}

// mergeInfos keeps, per feature, a range that is not "none".
func mergeInfos(a, b []string) []string {
	res := make([]string, len(a))
	for i := range a {
		res[i] = a[i]
		if a[i] == "none" && i < len(b) {
			res[i] = b[i]
		}
	}
	return res
}
