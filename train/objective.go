package train

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
)

// objective is a loss that FitGBRT boosts instead of squared error. The
// tree grower fits every tree to the negative gradient with unit
// hessians (a leaf predicts the mean of its rows' values), so an
// objective scales its gradient to the units of the target, unless it is
// a newtonObjective.
type objective interface {
	// check returns an error unless the objective was made for n rows.
	check(n int) error
	// init is the initial score, folded into the first tree.
	init(y []float64) float64
	// negGradient writes the negative gradient of the loss at the scores
	// pred[i]+base into g.
	negGradient(g, y, pred []float64, base float64)
}

// newtonObjective is an objective that also gives each row's hessian: the
// grower then takes Newton steps, a leaf predicting sum(g)/(sum(h)+L2)
// and a split's gain the same shrunk sums, as LightGBM and XGBoost do.
type newtonObjective interface {
	objective
	// gradHess writes the negative gradient into g, as negGradient
	// does, and the second derivative of the loss into h.
	gradHess(g, h, y, pred []float64, base float64)
}

// GroupColumns returns the columns of d's feature vectors that name a
// shape on a device: the task and platform features. Rows that agree on
// them are the configurations of one (shape, device) group, among which a
// pick is made; RankOptions and TopOptions need them.
func GroupColumns(d *Data) []int {
	var cols []int
	for i, name := range d.Features {
		if strings.HasPrefix(name, "task.") || strings.HasPrefix(name, "platform.") {
			cols = append(cols, i)
		}
	}
	return cols
}

// groupRows groups the n rows of x (nf values a row) by their values in
// cols, in order of first appearance. No cols: one group of all rows.
func groupRowsBy(x []float64, nf int, cols []int) [][]int32 {
	return groupByKey(len(x)/nf, func(i int, key []byte) []byte {
		for _, c := range cols {
			b := math.Float64bits(x[i*nf+c])
			for s := 0; s < 64; s += 8 {
				key = append(key, byte(b>>s))
			}
		}
		return key
	})
}

// groupByKey groups rows 0..n-1 by the key that key appends for each to
// an empty buffer, in order of first appearance.
func groupByKey(n int, key func(i int, buf []byte) []byte) [][]int32 {
	index := map[string]int{}
	var groups [][]int32
	var buf []byte
	for i := range n {
		buf = key(i, buf[:0])
		g, ok := index[string(buf)]
		if !ok {
			g = len(groups)
			index[string(buf)] = g
			groups = append(groups, nil)
		}
		groups[g] = append(groups[g], int32(i))
	}
	return groups
}

// groupBest returns, for every row, the highest target of its group: the
// log-speedup of the group's fastest configuration.
func groupBest(y []float64, groups [][]int32) []float64 {
	best := make([]float64, len(y))
	for _, g := range groups {
		m := math.Inf(-1)
		for _, i := range g {
			m = max(m, y[i])
		}
		for _, i := range g {
			best[i] = m
		}
	}
	return best
}

// lambdaRank is LambdaMART's objective (Burges 2010) as LightGBM's
// lambdarank computes it: for every pair of a group's rows with one of
// them among the top of the current scores, the gradient and hessian of
// the pair's logistic loss, sigma(s_hi-s_lo), weighted by how much
// swapping the two would change the group's NDCG, divided by 0.01 plus
// the pair's score gap, and each group's lambdas and hessians scaled by
// log2(1+S)/S, S the group's total push (LightGBM's lambdarank_norm). The
// gain of a row is the metric a pick is judged by, its speed as a
// fraction of the group's best (t_best/t), so NDCG@1 is the pick's
// quality itself. With mix, squared error on the target is added: the
// loss is mix*(y-s)^2/2 + (1-mix)*ranking loss, gradients and hessians
// alike.
type lambdaRank struct {
	n      int
	groups [][]int32
	// gain[i] is t_best/t of row i in its group: exp(y - max y).
	gain []float64
	// top is the truncation: only pairs with a row among the top rows
	// by score are pushed, and the ideal DCG is taken over top rows.
	top int
	// mix is the weight of squared error on the target beside the
	// ranking loss, in [0, 1).
	mix float64
	// order, disc, lam and hes are scratch: a group's rows by score, the
	// discount of each position, and the gradient and hessian of the row
	// at each.
	order          []int32
	disc, lam, hes []float64
	// ideal[k] is group k's ideal DCG over its top rows.
	ideal []float64
}

func newLambdaRank(x []float64, nf int, y []float64, cols []int, top int, mix float64) *lambdaRank {
	groups := groupRowsBy(x, nf, cols)
	best := groupBest(y, groups)
	gain := make([]float64, len(y))
	for i := range y {
		gain[i] = math.Exp(y[i] - best[i])
	}
	o := &lambdaRank{n: len(y), groups: groups, gain: gain, top: top, mix: mix}
	var gains []float64
	for _, rows := range groups {
		gains = gains[:0]
		for _, i := range rows {
			gains = append(gains, gain[i])
		}
		slices.SortFunc(gains, func(a, b float64) int { return cmp.Compare(b, a) })
		ideal := 0.0
		for r := range min(top, len(rows)) {
			ideal += gains[r] * (1 / math.Log2(float64(r)+2))
		}
		o.ideal = append(o.ideal, ideal)
	}
	return o
}

func (o *lambdaRank) check(n int) error {
	if n != o.n {
		return fmt.Errorf("train: ranking objective made for %d rows, fitting %d", o.n, n)
	}
	return nil
}

func (o *lambdaRank) init(y []float64) float64 { return mean(y) }

func (o *lambdaRank) negGradient(g, y, pred []float64, base float64) {
	o.gradHess(g, make([]float64, len(g)), y, pred, base)
}

func (o *lambdaRank) gradHess(g, h, y, pred []float64, base float64) {
	for i := range g {
		g[i] = o.mix * (y[i] - pred[i] - base)
		h[i] = o.mix
	}
	for k, rows := range o.groups {
		o.group(g, h, rows, o.ideal[k], pred)
	}
}

// group adds the ranking gradient and hessian of one group's rows to g
// and h.
func (o *lambdaRank) group(g, h []float64, rows []int32, ideal float64, pred []float64) {
	if len(rows) < 2 || ideal <= 0 {
		return
	}
	// By score, ties in row order (rows are increasing): a stable sort,
	// made by an unstable one on (score, row).
	o.order = append(o.order[:0], rows...)
	slices.SortFunc(o.order, func(a, b int32) int {
		if c := cmp.Compare(pred[b], pred[a]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	for len(o.disc) < len(rows) {
		o.disc = append(o.disc, 1/math.Log2(float64(len(o.disc))+2))
	}
	top := min(o.top, len(rows))
	spread := pred[o.order[0]] != pred[o.order[len(rows)-1]]
	var sum float64
	o.lam = slices.Grow(o.lam[:0], len(rows))[:len(rows)]
	o.hes = slices.Grow(o.hes[:0], len(rows))[:len(rows)]
	clear(o.lam)
	clear(o.hes)
	for a := range min(top, len(rows)-1) {
		for b := a + 1; b < len(o.order); b++ {
			gi, gj := o.gain[o.order[a]], o.gain[o.order[b]]
			if gi == gj {
				continue
			}
			hi, lo := a, b
			if gj > gi {
				hi, lo = b, a
			}
			ds := pred[o.order[hi]] - pred[o.order[lo]]
			delta := math.Abs(gi-gj) * (o.disc[a] - o.disc[b]) / ideal
			if spread {
				delta /= 0.01 + math.Abs(ds)
			}
			rho := 1 / (1 + math.Exp(ds))
			l := delta * rho
			hs := delta * rho * (1 - rho)
			o.lam[hi] += l
			o.lam[lo] -= l
			o.hes[hi] += hs
			o.hes[lo] += hs
			sum += 2 * l
		}
	}
	if sum == 0 {
		return
	}
	// LightGBM's normalisation: a group's total push grows with the log
	// of its raw total, so that large groups do not drown small ones; the
	// hessians are scaled alike, so the Newton step within a group keeps
	// its size.
	scale := (1 - o.mix) * math.Log2(1+sum) / sum
	for a, l := range o.lam {
		g[o.order[a]] += scale * l
		h[o.order[a]] += scale * o.hes[a]
	}
}

var _ newtonObjective = (*lambdaRank)(nil)
