package train

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"sync"
)

// CV holds the cross-validated errors of a model: every figure is computed
// from predictions on rows the model was not fitted to, over measured rows
// only.
type CV struct {
	Folds int
	// Rows is the number of measured rows predicted.
	Rows int
	// MRETime is the mean relative error of the predicted time
	// t_ref/exp(prediction) against the measured time.
	MRETime float64
	// RMSELogSpeedup is the root mean squared error of the predicted
	// log-speedup.
	RMSELogSpeedup float64
	// Spearman is the mean, over shapes (a task on a platform) with at
	// least 3 rows, of the Spearman rank correlation between predicted and
	// measured speedups: 1 when the model orders configurations exactly as
	// the measurements do.
	Spearman float64
	// Shapes is the number of shapes in the Spearman mean.
	Shapes int
}

// Stats returns the figures under the names features.Model.Stats uses.
func (c CV) Stats() map[string]float64 {
	return map[string]float64{
		"cv_mre_time":         c.MRETime,
		"cv_rmse_log_speedup": c.RMSELogSpeedup,
		"cv_spearman":         c.Spearman,
	}
}

// CrossValidate estimates the error of models fitted by learner (such as
// GBRTOptions or ForestOptions) on configurations they have not seen: the
// rows are split into folds (0 means 5) at random from seed, so that all
// rows of one (task, config), on every platform, fall in the same fold,
// and each fold is predicted by a model fitted to the others. Two folds
// are fitted at a time; the figures do not depend on the order.
func CrossValidate(d *Data, folds int, learner Learner, seed uint64) (CV, error) {
	return crossValidate(d, folds, learner, seed, nil)
}

// crossValidate is CrossValidate with its fits stopped when done closes.
func crossValidate(d *Data, folds int, learner Learner, seed uint64, done <-chan struct{}) (CV, error) {
	if folds == 0 {
		folds = 5
	}
	if folds < 2 {
		return CV{}, fmt.Errorf("train: folds must be >= 2, got %d", folds)
	}
	fold, err := assignFolds(d, folds, seed)
	if err != nil {
		return CV{}, err
	}
	pred := make([]float64, d.Len())
	// Two folds are fitted at a time, as the selection fits its folds;
	// each worker reuses its buffers and row list from fold to fold.
	const workers = 2
	errs := make([]error, folds)
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(workers, folds) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := &fitBuffers{done: done}
			var x []float64
			for k := range next {
				train := reuse(&buf.rows, d.Len())[:0]
				for i, f := range fold {
					if f != k {
						train = append(train, i)
					}
				}
				e, err := fitRowsWith(learner, d, train, buf)
				if err != nil {
					errs[k] = fmt.Errorf("train: fold %d: %w", k, err)
					continue
				}
				for i, f := range fold {
					if f == k {
						x = d.AppendRow(x[:0], i)
						pred[i] = e.Predict(x)
					}
				}
			}
		}()
	}
	for k := range folds {
		next <- k
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return CV{}, err
		}
	}
	cv := scores(d, pred)
	cv.Folds = folds
	return cv, nil
}

// crossValidateAtMost is CrossValidate on at most maxRows of d's rows
// (atMostRows: an even share of every shape's rows when d has more).
func crossValidateAtMost(d *Data, maxRows, folds int, learner Learner, seed uint64, done <-chan struct{}) (CV, error) {
	return crossValidate(atMostRows(d, maxRows), folds, learner, seed, done)
}

// errFewPairs is assignFolds' error for data of fewer distinct (task,
// config) pairs than folds.
var errFewPairs = errors.New("train: too few configurations for the folds")

// assignFolds gives every row a fold such that rows of the same (task,
// config) share one, with the groups spread evenly over the folds.
func assignFolds(d *Data, folds int, seed uint64) ([]int, error) {
	group := make([]int, d.Len())
	ids := map[string]int{}
	var key []byte
	for i, s := range d.Samples() {
		key = key[:0]
		for _, v := range s.Task {
			key = strconv.AppendInt(key, int64(v), 36)
			key = append(key, ',')
		}
		key = append(key, '|')
		for _, v := range s.Config {
			key = strconv.AppendInt(key, int64(v), 36)
			key = append(key, ',')
		}
		id, ok := ids[string(key)]
		if !ok {
			id = len(ids)
			ids[string(key)] = id
		}
		group[i] = id
	}
	if len(ids) < folds {
		return nil, fmt.Errorf("%w: %d folds but only %d distinct (task, config) pairs", errFewPairs, folds, len(ids))
	}
	perm := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15)).Perm(len(ids))
	fold := make([]int, d.Len())
	for i, g := range group {
		fold[i] = perm[g] % folds
	}
	return fold, nil
}

// scores computes the CV figures of predictions pred for d's rows.
func scores(d *Data, pred []float64) CV {
	var cv CV
	var sumRel, sumSq float64
	for i, s := range d.Samples() {
		if !s.Measured() {
			continue
		}
		cv.Rows++
		tPred := s.RefTimeNs / math.Exp(pred[i])
		sumRel += math.Abs(tPred-s.TimeNs) / s.TimeNs
		diff := pred[i] - d.Y[i]
		sumSq += diff * diff
	}
	if cv.Rows == 0 {
		return cv
	}
	cv.MRETime = sumRel / float64(cv.Rows)
	cv.RMSELogSpeedup = math.Sqrt(sumSq / float64(cv.Rows))
	var sumRho float64
	var p, m []float64
	for _, rows := range d.measuredByShape() {
		if len(rows) < 3 {
			continue
		}
		p, m = p[:0], m[:0]
		for _, i := range rows {
			p = append(p, pred[i])
			m = append(m, d.Y[i])
		}
		rho, ok := spearman(p, m)
		if !ok {
			continue
		}
		sumRho += rho
		cv.Shapes++
	}
	if cv.Shapes > 0 {
		cv.Spearman = sumRho / float64(cv.Shapes)
	}
	return cv
}

// spearman returns the Spearman rank correlation of a and b, ties taking
// their mean rank. It is false when b is constant, where ranking means
// nothing; a constant a (a model that cannot tell the configurations
// apart) scores 0.
func spearman(a, b []float64) (float64, bool) {
	ra, rb := ranks(a), ranks(b)
	n := float64(len(a))
	mean := (n + 1) / 2
	var sab, saa, sbb float64
	for i := range ra {
		x, y := ra[i]-mean, rb[i]-mean
		sab += x * y
		saa += x * x
		sbb += y * y
	}
	if sbb == 0 {
		return 0, false
	}
	if saa == 0 {
		return 0, true
	}
	return sab / math.Sqrt(saa*sbb), true
}

// ranks returns the 1-based ranks of v, ties sharing their mean rank.
func ranks(v []float64) []float64 {
	idx := make([]int, len(v))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(i, j int) int {
		switch {
		case v[i] < v[j]:
			return -1
		case v[i] > v[j]:
			return 1
		}
		return 0
	})
	r := make([]float64, len(v))
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && v[idx[j+1]] == v[idx[i]] {
			j++
		}
		mid := float64(i+j)/2 + 1
		for k := i; k <= j; k++ {
			r[idx[k]] = mid
		}
		i = j + 1
	}
	return r
}
