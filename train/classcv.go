package train

import (
	"fmt"
	"math"
)

// ClassCV is a classifier's score on held-out folds (Garvey and
// Abdelrahman 2018, section 8.2).
type ClassCV struct {
	// Folds is the number of folds, one a distinct value of the fold key.
	Folds int
	// Groups is the number of (task, platform) groups scored.
	Groups int
	// Accuracy is the absolute accuracy: the fraction of groups whose
	// class is predicted right.
	Accuracy float64
	// PenaltyWeighted is the penalty-weighted accuracy: the mean over
	// groups of t_best / t_class, where t_best is the group's fastest
	// measured time and t_class the fastest of the predicted class (0
	// when no configuration of that class ran). A wrong class that costs
	// little time costs little here.
	PenaltyWeighted float64
	// Pred is each group's predicted class, held out.
	Pred []int
	// ByPlatform are the same figures for each device's groups, in the
	// order of ClassData.Platforms (the paper reports them per GPU).
	ByPlatform []PlatformScore
}

// PlatformScore is a classifier's held-out score on one device's groups.
type PlatformScore struct {
	// Platform is the device's slug.
	Platform                  string
	Groups                    int
	Accuracy, PenaltyWeighted float64
}

// Stats returns the figures by name, for a bundle.
func (c ClassCV) Stats() map[string]float64 {
	return map[string]float64{"cv_folds": float64(c.Folds), "cv_groups": float64(c.Groups),
		"cv_accuracy": c.Accuracy, "cv_penalty_weighted": c.PenaltyWeighted}
}

// CrossValidateClasses fits learner on every fold but one and predicts the
// groups of that one, for every fold of leave-one-out by the task features
// named in by (see ClassData.FoldKeys), and scores the predictions.
func CrossValidateClasses(cd *ClassData, learner ClassLearner, by []string) (ClassCV, error) {
	folds, nf, err := cd.FoldKeys(by)
	if err != nil {
		return ClassCV{}, err
	}
	if nf < 2 {
		return ClassCV{}, fmt.Errorf("train: %d fold of %v; leave-one-out needs 2 or more", nf, by)
	}
	pred := make([]int, cd.Len())
	nFeat := len(cd.Features)
	prob := make([]float64, len(cd.Classes))
	for k := range nf {
		var x []float64
		var y []int
		for i := range cd.Y {
			if folds[i] != k {
				x = append(x, cd.Row(i)...)
				y = append(y, cd.Y[i])
			}
		}
		f, err := learner.FitClasses(x, nFeat, y, len(cd.Classes))
		if err != nil {
			return ClassCV{}, fmt.Errorf("train: fold %d: %w", k, err)
		}
		for i := range cd.Y {
			if folds[i] == k {
				f.Probabilities(prob, cd.Row(i))
				pred[i] = argmax(prob)
			}
		}
	}
	cv := ScoreClasses(cd, pred)
	cv.Folds = nf
	return cv, nil
}

// ScoreClasses scores predicted classes of cd's groups: absolute and
// penalty-weighted accuracy (see ClassCV).
func ScoreClasses(cd *ClassData, pred []int) ClassCV {
	cv := ClassCV{Groups: cd.Len(), Pred: pred, ByPlatform: make([]PlatformScore, len(cd.Platforms))}
	for i, p := range cd.Platforms {
		cv.ByPlatform[i].Platform = p.Slug()
	}
	for i, p := range pred {
		g := cd.Groups[i]
		ps := &cv.ByPlatform[g.Platform]
		ps.Groups++
		if p == cd.Y[i] {
			cv.Accuracy++
			ps.Accuracy++
		}
		if t := g.BestNs[p]; !math.IsInf(t, 1) {
			cv.PenaltyWeighted += g.BestNs[cd.Y[i]] / t
			ps.PenaltyWeighted += g.BestNs[cd.Y[i]] / t
		}
	}
	n := float64(max(cd.Len(), 1))
	cv.Accuracy /= n
	cv.PenaltyWeighted /= n
	for i := range cv.ByPlatform {
		ps := &cv.ByPlatform[i]
		if ps.Groups > 0 {
			ps.Accuracy /= float64(ps.Groups)
			ps.PenaltyWeighted /= float64(ps.Groups)
		}
	}
	return cv
}
