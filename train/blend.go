package train

import (
	"fmt"
	"io"
	"slices"
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
	if _, ok := l.b.(ForestOptions); ok {
		// The forest is fitted on the targets: the boosted model's
		// residuals and predictions (16 bytes a row) can go while it fits.
		s.buf.dropBoosting()
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

// WriteLightGBM writes one summed model (see lightGBMModel).
func (m blend) WriteLightGBM(w io.Writer, featureNames []string) error {
	out, err := m.lightGBMModel(featureNames)
	if err != nil {
		return err
	}
	return writeModel(w, out, featureNames)
}

// lightGBMModel returns the blend as one summed model: every leaf of a
// model halved (and divided by its tree count when it averages, as a
// forest does), the trees of both in one list, so that leaves and LightGBM
// predict the mean. featureNames are needed only for a Regressor of
// another package. The two models are left as they are.
func (m blend) lightGBMModel(featureNames []string) (*lightgbm.Model, error) {
	var out *lightgbm.Model
	for _, r := range []Regressor{m.a, m.b} {
		part, err := modelOf(r, featureNames)
		if err != nil {
			return nil, err
		}
		scale := 0.5
		if part.Average {
			scale /= float64(len(part.Trees))
		}
		trees := make([]lightgbm.Tree, len(part.Trees))
		for i, t := range part.Trees {
			t.LeafValue = scaled(t.LeafValue, scale)
			t.InternalValue = scaled(t.InternalValue, scale)
			trees[i] = t
		}
		if out == nil {
			c := *part
			out = &c
			out.Trees = trees
			out.Average = false
			out.Params = append(slices.Clone(out.Params), lightgbm.Param{Key: "blend", Value: "mean of two models"})
			continue
		}
		out.Trees = append(out.Trees, trees...)
		out.FeatureInfos = mergeInfos(out.FeatureInfos, part.FeatureInfos)
		// The mean of two models lies within the union of their target
		// ranges (both come from the same rows, so they agree).
		if lo, hi, ok := part.TargetRange(); ok {
			if olo, ohi, ok := out.TargetRange(); ok {
				lo, hi = min(lo, olo), max(hi, ohi)
			}
			if err := out.SetTargetRange(lo, hi); err != nil {
				return nil, fmt.Errorf("train: blend: %w", err)
			}
		}
	}
	return out, nil
}

// modelOf returns r's model: the model an Ensemble or a Forest holds (the
// caller must not change it), a blend's, or what the WriteLightGBM of
// another Regressor writes, read back.
func modelOf(r Regressor, featureNames []string) (*lightgbm.Model, error) {
	switch r := r.(type) {
	case *Ensemble:
		return &r.model, nil
	case *Forest:
		return &r.model, nil
	case blend:
		return r.lightGBMModel(featureNames)
	}
	var text strings.Builder
	if err := r.WriteLightGBM(&text, featureNames); err != nil {
		return nil, err
	}
	m, err := lightgbm.Parse(text.String())
	if err != nil {
		return nil, fmt.Errorf("train: blend: %w", err)
	}
	return m, nil
}

// scaled returns a copy of v, every value times scale; nil for nil.
func scaled(v []float64, scale float64) []float64 {
	if v == nil {
		return nil
	}
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = x * scale
	}
	return out
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
