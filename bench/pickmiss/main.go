package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/runtime"
	"github.com/augur-tuning/augur/train"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "pickmiss:", err)
		os.Exit(1)
	}
}

func run(args []string, w io.Writer) error {
	fs := flag.NewFlagSet("pickmiss", flag.ContinueOnError)
	dir := fs.String("data", "", "data directory (<dir>/<kernel>/<device>/*.arrow)")
	kernel := fs.String("kernel", "", "kernel family")
	seed := fs.Uint64("seed", 1, "seed of the selection's folds")
	learner := fs.String("learner", "auto", "auto, gbrt or rf")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *dir == "" || *kernel == "" {
		return fmt.Errorf("--data and --kernel are required")
	}
	d, err := train.LoadWith(*dir, *kernel, train.LoadOptions{Derived: datasets.Deriver(*kernel)})
	if err != nil {
		return err
	}
	if len(d.Platforms) != 1 {
		return fmt.Errorf("want one device's rows, have %d devices", len(d.Platforms))
	}
	plat := d.Platforms[0]
	opt := train.Options{Kernel: *kernel, Model: *learner, Seed: *seed}
	var logs []float64
	var rho float64
	for _, shape := range d.Shapes() {
		m, err := miss(d, shape, plat, opt)
		if err != nil {
			return fmt.Errorf("shape %v: %w", shape, err)
		}
		m.print(w, d)
		logs = append(logs, math.Log(m.pickPct))
		rho += m.spearman / float64(len(d.Shapes()))
	}
	var s float64
	for _, l := range logs {
		s += l
	}
	fmt.Fprintf(w, "geometric mean of the picks: %.1f%% of best over %d shapes; mean spearman %.3f\n", math.Exp(s/float64(len(logs))), len(logs), rho)
	return nil
}

// shapeMiss is one held-out shape's pick beside its best.
type shapeMiss struct {
	shape            features.Task
	learner          string
	pick, best       features.Config
	pickPct          float64 // measured t_best / t_pick, in percent
	pickPred         float64 // predicted log-speedups
	bestPred         float64
	pickRank         int // 1-based, by predicted speed among the recorded configurations
	bestRank         int
	pickMeasuredRank int // 1-based, by measured speed
	recorded         int
	spearman         float64
	plat             []float64
}

func miss(d *train.Data, shape features.Task, plat features.Platform, opt train.Options) (shapeMiss, error) {
	m := shapeMiss{shape: shape}
	var rest, own []int
	for i, s := range d.Samples() {
		switch {
		case !slices.Equal(s.Task, shape):
			rest = append(rest, i)
		case s.Measured():
			own = append(own, i)
		}
	}
	sub := d.Subset(rest)
	b, mr, err := train.FitBundle(sub, opt, plat.Slug(), &plat)
	if err != nil {
		return m, err
	}
	b.Measured = train.MeasuredBests(sub)
	if mr.Selection != nil {
		m.learner = mr.Selection.Chosen
	}
	ch, err := runtime.FromBundle(b, runtime.Options{})
	if err != nil {
		return m, err
	}
	if m.pick, err = ch.Choose(shape); err != nil {
		return m, err
	}
	pred := make([]float64, len(own))
	meas := make([]float64, len(own))
	for j, i := range own {
		s := d.Sample(i)
		if pred[j], err = ch.Predict(shape, s.Config); err != nil {
			return m, err
		}
		meas[j] = -math.Log(s.TimeNs)
	}
	bestJ, pickJ := 0, -1
	for j, i := range own {
		if meas[j] > meas[bestJ] {
			bestJ = j
		}
		if d.Sample(i).Config.Equal(m.pick) {
			pickJ = j
		}
	}
	if pickJ < 0 {
		return m, fmt.Errorf("the pick %v was not recorded on the shape", m.pick)
	}
	m.best = d.Sample(own[bestJ]).Config
	m.pickPct = 100 * math.Exp(meas[pickJ]-meas[bestJ])
	m.pickPred, m.bestPred = pred[pickJ], pred[bestJ]
	pr, mrk := ranks(pred), ranks(meas)
	m.pickRank, m.bestRank, m.pickMeasuredRank = pr[pickJ], pr[bestJ], mrk[pickJ]
	m.recorded = len(own)
	m.spearman = pearson(pr, mrk)
	m.plat = d.Encoder().PlatformVector(plat)
	return m, nil
}

// ranks returns each value's 1-based rank, largest first (ties by index).
func ranks(v []float64) []int {
	idx := make([]int, len(v))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return v[idx[a]] > v[idx[b]] })
	r := make([]int, len(v))
	for k, i := range idx {
		r[i] = k + 1
	}
	return r
}

func pearson(a, b []int) float64 {
	n := float64(len(a))
	var ma, mb float64
	for i := range a {
		ma += float64(a[i]) / n
		mb += float64(b[i]) / n
	}
	var sab, saa, sbb float64
	for i := range a {
		x, y := float64(a[i])-ma, float64(b[i])-mb
		sab += x * y
		saa += x * x
		sbb += y * y
	}
	return sab / math.Sqrt(saa*sbb)
}

func (m shapeMiss) print(w io.Writer, d *train.Data) {
	enc := d.Encoder()
	names := enc.Names()
	vp := make([]float64, enc.Len())
	vb := make([]float64, enc.Len())
	enc.Encode(vp, m.shape, m.pick, m.plat)
	enc.Encode(vb, m.shape, m.best, m.plat)
	fmt.Fprintf(w, "%s  (%s)\n", formatTask(d.TaskNames, m.shape), m.learner)
	fmt.Fprintf(w, "  pick %5.1f%%  predicted %+.3f, rank %d of %d predicted, %d measured  %s\n",
		m.pickPct, m.pickPred, m.pickRank, m.recorded, m.pickMeasuredRank, formatConfig(d, m.pick))
	fmt.Fprintf(w, "  best 100.0%%  predicted %+.3f, rank %d predicted                 %s\n",
		m.bestPred, m.bestRank, formatConfig(d, m.best))
	fmt.Fprintf(w, "  spearman(predicted, measured) over the recorded: %.3f\n", m.spearman)
	var diff []string
	for f, n := range names {
		if strings.HasPrefix(n, "derived.") && vp[f] != vb[f] {
			diff = append(diff, fmt.Sprintf("%s %.4g/%.4g", strings.TrimPrefix(n, "derived."), vp[f], vb[f]))
		}
	}
	fmt.Fprintf(w, "  derived, pick/best: %s\n", strings.Join(diff, ", "))
}

func formatTask(names []string, t features.Task) string {
	parts := make([]string, len(t))
	for i, v := range t {
		parts[i] = fmt.Sprintf("%s=%d", names[i], v)
	}
	return strings.Join(parts, ",")
}

func formatConfig(d *train.Data, c features.Config) string {
	parts := make([]string, len(c))
	for i, v := range c {
		parts[i] = fmt.Sprintf("%s=%d", d.Params[i].Name, v)
	}
	return strings.Join(parts, ",")
}
