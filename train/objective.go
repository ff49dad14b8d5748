package train

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// objective is a loss that FitGBRT boosts instead of squared error. The
// tree grower fits every tree to the negative gradient with unit
// hessians (a leaf predicts the mean of its rows' values), so an
// objective scales its gradient to the units of the target.
type objective interface {
	// check returns an error unless the objective was made for n rows.
	check(n int) error
	// init is the initial score, folded into the first tree.
	init(y []float64) float64
	// negGradient writes the negative gradient of the loss at the scores
	// pred[i]+base into g.
	negGradient(g, y, pred []float64, base float64)
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
	n := len(x) / nf
	index := map[string]int{}
	var groups [][]int32
	key := make([]byte, 0, 8*len(cols))
	for i := range n {
		key = key[:0]
		for _, c := range cols {
			b := math.Float64bits(x[i*nf+c])
			for s := 0; s < 64; s += 8 {
				key = append(key, byte(b>>s))
			}
		}
		g, ok := index[string(key)]
		if !ok {
			g = len(groups)
			index[string(key)] = g
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

// lambdaRank is LambdaMART's gradient (Burges 2010, as LightGBM's
// lambdarank): for every pair of a group's rows with one of them among
// the top of the current scores, a push of the faster row up and the
// slower down, weighted by how much swapping the two would change the
// group's NDCG. The gain of a row is the metric a pick is judged by, its
// speed as a fraction of the group's best (t_best/t), so NDCG@1 is the
// pick's quality itself.
type lambdaRank struct {
	n      int
	groups [][]int32
	// gain[i] is t_best/t of row i in its group: exp(y - max y).
	gain []float64
	// top is the truncation: only pairs with a row among the top rows
	// by score are pushed, and the ideal DCG is taken over top rows.
	top int
	// mix is the weight of squared error on the target beside the
	// ranking gradient, in [0, 1).
	mix float64
	// order, disc and lam are scratch: a group's rows by score, the
	// discount of each position and the push of the row at each.
	order     []int32
	disc, lam []float64
}

func newLambdaRank(x []float64, nf int, y []float64, cols []int, top int, mix float64) *lambdaRank {
	groups := groupRowsBy(x, nf, cols)
	best := groupBest(y, groups)
	gain := make([]float64, len(y))
	for i := range y {
		gain[i] = math.Exp(y[i] - best[i])
	}
	return &lambdaRank{n: len(y), groups: groups, gain: gain, top: top, mix: mix}
}

func (o *lambdaRank) check(n int) error {
	if n != o.n {
		return fmt.Errorf("train: ranking objective made for %d rows, fitting %d", o.n, n)
	}
	return nil
}

func (o *lambdaRank) init(y []float64) float64 { return mean(y) }

func (o *lambdaRank) negGradient(g, y, pred []float64, base float64) {
	for i := range g {
		g[i] = o.mix * (y[i] - pred[i] - base)
	}
	for _, rows := range o.groups {
		o.group(g, rows, pred)
	}
}

// group adds the ranking gradient of one group's rows to g.
func (o *lambdaRank) group(g []float64, rows []int32, pred []float64) {
	if len(rows) < 2 {
		return
	}
	o.order = append(o.order[:0], rows...)
	slices.SortStableFunc(o.order, func(a, b int32) int {
		switch {
		case pred[a] > pred[b]:
			return -1
		case pred[a] < pred[b]:
			return 1
		}
		return 0
	})
	o.disc = o.disc[:0]
	for r := range o.order {
		o.disc = append(o.disc, 1/math.Log2(float64(r)+2))
	}
	top := min(o.top, len(rows))
	gains := make([]float64, 0, len(rows))
	for _, i := range rows {
		gains = append(gains, o.gain[i])
	}
	slices.SortFunc(gains, func(a, b float64) int {
		switch {
		case a > b:
			return -1
		case a < b:
			return 1
		}
		return 0
	})
	ideal := 0.0
	for r := range top {
		ideal += gains[r] * o.disc[r]
	}
	if ideal <= 0 {
		return
	}
	var sum float64
	o.lam = slices.Grow(o.lam[:0], len(rows))[:len(rows)]
	clear(o.lam)
	for a := range top {
		i := o.order[a]
		for b := a + 1; b < len(o.order); b++ {
			j := o.order[b]
			gi, gj := o.gain[i], o.gain[j]
			if gi == gj {
				continue
			}
			hi, lo := a, b
			if gj > gi {
				hi, lo = b, a
			}
			delta := math.Abs(gi-gj) * (o.disc[a] - o.disc[b]) / ideal
			rho := 1 / (1 + math.Exp(pred[o.order[hi]]-pred[o.order[lo]]))
			l := delta * rho
			o.lam[hi] += l
			o.lam[lo] -= l
			sum += 2 * l
		}
	}
	if sum == 0 {
		return
	}
	// LightGBM's normalisation: a group's total push grows with the log
	// of its raw total, so that large groups do not drown small ones. A
	// Newton step would also divide by the hessian; the grower takes it as
	// 1 a row. Dividing each group's pushes by its mean hessian instead
	// was tried and made far too large steps once the model separates a
	// group's rows (bench/RESULTS.md, issue 25).
	scale := (1 - o.mix) * math.Log2(1+sum) / sum
	for a, l := range o.lam {
		g[o.order[a]] += scale * l
	}
}
