package train

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/augur-tuning/augur/features"
)

// ClassData is the training set of a classifier of one categorical
// parameter (Garvey and Abdelrahman 2018, section 5: the data-loading
// technique of a stencil): one row per (task, platform) group of measured
// rows, whose label is the parameter's value in the group's fastest
// measured configuration.
//
// The features are the task features, the derived features that depend on
// the task alone (a features.TaskDeriver's: for stencils, the static
// features of section 6.1, such as the stencil's size and density), and the
// platform features: what is known before anything is measured. The other
// derived features are left out, since they are functions of a
// configuration too, and the label is what fixes the configuration.
type ClassData struct {
	// Target is the parameter classified.
	Target string
	// Classes are the parameter's values; class k is Classes[k].
	Classes []int
	// Features name the columns of X: "task.<name>", "static.<name>",
	// then "platform.<name>" (features.ClassFeatures).
	Features []string
	// TaskNames are the kernel's task features, in Task order.
	TaskNames []string
	// X holds one feature vector a group, row-major.
	X []float64
	// Y is each group's class, an index into Classes.
	Y []int
	// Groups describe the rows of X.
	Groups []ClassGroup
	// Platforms are the devices, as in Data.
	Platforms []features.Platform

	// static computes the static features; nil when there are none.
	static features.TaskDeriver
}

// AppendFeatures appends the feature vector of shape t on platform p, in
// the order of Features, to dst: what a classifier trained on cd takes.
func (cd *ClassData) AppendFeatures(dst []float64, t features.Task, p features.Platform) []float64 {
	for _, v := range t {
		dst = append(dst, float64(v))
	}
	if cd.static != nil {
		n := len(dst)
		dst = append(dst, make([]float64, len(cd.static.TaskNames()))...)
		cd.static.DeriveTask(dst[n:], t)
	}
	return append(dst, p.Vector()...)
}

// ClassGroup is one (task, platform) group of a ClassData.
type ClassGroup struct {
	Task features.Task
	// Platform indexes ClassData.Platforms.
	Platform int
	// BestNs[k] is the fastest measured time of a configuration of class
	// k, in nanoseconds; +Inf when no configuration of class k ran.
	BestNs []float64
	// Ran[k] is the number of configurations of class k that ran: how
	// much the label rests on. A label drawn from a few sampled
	// configurations a class says which ones the sample drew as much as
	// which class is best.
	Ran []int
}

// Classes builds the classifier's training set of parameter target from
// the measured rows of d. Groups where fewer than two classes ran carry no
// choice and are left out; so are groups whose every row failed.
func Classes(d *Data, target string) (*ClassData, error) {
	pi := slices.IndexFunc(d.Params, func(p features.Param) bool { return p.Name == target })
	if pi < 0 {
		var names []string
		for _, p := range d.Params {
			names = append(names, p.Name)
		}
		return nil, fmt.Errorf("train: no parameter %q to classify (kernel %s has %s)", target, d.Kernel, strings.Join(names, ", "))
	}
	values := d.Params[pi].Values
	if len(values) < 2 {
		return nil, fmt.Errorf("train: parameter %q has %d values; a classifier needs 2 or more", target, len(values))
	}
	var static []string
	td, _ := d.derive.(features.TaskDeriver)
	if td != nil {
		static = td.TaskNames()
	}
	cd := &ClassData{Target: target, Classes: slices.Clone(values), Features: features.ClassFeatures(d.TaskNames, static),
		TaskNames: d.TaskNames, Platforms: d.Platforms, static: td}
	type key struct {
		p int
		t features.TaskKey
	}
	at := map[key]int{}
	for _, s := range d.Samples() {
		if !s.Measured() {
			continue
		}
		k := key{s.Platform, s.Task.Key()}
		g, ok := at[k]
		if !ok {
			g = len(cd.Groups)
			at[k] = g
			best := make([]float64, len(values))
			for i := range best {
				best[i] = math.Inf(1)
			}
			cd.Groups = append(cd.Groups, ClassGroup{Task: slices.Clone(s.Task), Platform: s.Platform, BestNs: best, Ran: make([]int, len(values))})
		}
		c := slices.Index(values, s.Config[pi])
		if c < 0 {
			return nil, fmt.Errorf("train: row of %v has %s=%d, not one of its values %v", s.Task, target, s.Config[pi], values)
		}
		cd.Groups[g].BestNs[c] = min(cd.Groups[g].BestNs[c], s.TimeNs)
		cd.Groups[g].Ran[c]++
	}
	kept := cd.Groups[:0]
	for _, g := range cd.Groups {
		ran := 0
		for _, t := range g.BestNs {
			if !math.IsInf(t, 1) {
				ran++
			}
		}
		if ran < 2 {
			continue
		}
		kept = append(kept, g)
		cd.X = cd.AppendFeatures(cd.X, g.Task, d.Platforms[g.Platform])
		cd.Y = append(cd.Y, bestClass(g.BestNs))
	}
	cd.Groups = kept
	if len(cd.Groups) == 0 {
		return nil, fmt.Errorf("train: no (shape, device) of kernel %s measured two or more values of %s", d.Kernel, target)
	}
	return cd, nil
}

// bestClass returns the class of the least time, the first on a tie.
func bestClass(ns []float64) int {
	b := 0
	for k, t := range ns {
		if t < ns[b] {
			b = k
		}
	}
	return b
}

// MedianRan returns the median, over the groups and the classes that ran
// in them, of the configurations that ran (ClassGroup.Ran): what a typical
// label rests on.
func (cd *ClassData) MedianRan() int {
	var n []int
	for _, g := range cd.Groups {
		for _, r := range g.Ran {
			if r > 0 {
				n = append(n, r)
			}
		}
	}
	if len(n) == 0 {
		return 0
	}
	slices.Sort(n)
	return n[len(n)/2]
}

// Len is the number of groups.
func (cd *ClassData) Len() int { return len(cd.Y) }

// Row returns group i's feature vector, which shares cd's memory.
func (cd *ClassData) Row(i int) []float64 {
	nf := len(cd.Features)
	return cd.X[i*nf : (i+1)*nf : (i+1)*nf]
}

// FoldKeys returns each group's fold under leave-one-out by the task
// features named in by: groups that agree on them share a fold. by empty
// means every task feature (leave one shape out, on every platform at
// once); for a stencil, naming the features that describe the stencil and
// not the array's size holds out one stencil kernel at a time. The folds
// are numbered in order of first appearance.
func (cd *ClassData) FoldKeys(by []string) ([]int, int, error) {
	idx := make([]int, 0, len(by))
	for _, n := range by {
		i := slices.Index(cd.TaskNames, n)
		if i < 0 {
			return nil, 0, fmt.Errorf("train: fold key %q is not a task feature (%s)", n, strings.Join(cd.TaskNames, ", "))
		}
		idx = append(idx, i)
	}
	if len(idx) == 0 {
		for i := range cd.TaskNames {
			idx = append(idx, i)
		}
	}
	folds := make([]int, cd.Len())
	seen := map[features.TaskKey]int{}
	for gi, g := range cd.Groups {
		var k features.TaskKey
		for j, i := range idx {
			k[j] = g.Task[i]
		}
		f, ok := seen[k]
		if !ok {
			f = len(seen)
			seen[k] = f
		}
		folds[gi] = f
	}
	return folds, len(seen), nil
}

// WriteCSV writes cd as CSV: the features, the fold of each group under
// leave-one-out by the task features named in by (see FoldKeys), the
// platform's slug, the label (a class index) and the best time of every
// class in nanoseconds (empty when none ran), so that other tools can
// fit and score on the very same folds.
func (cd *ClassData) WriteCSV(w io.Writer, by []string) error {
	folds, _, err := cd.FoldKeys(by)
	if err != nil {
		return err
	}
	head := append(slices.Clone(cd.Features), "fold", "platform", "label")
	for _, v := range cd.Classes {
		head = append(head, fmt.Sprintf("best_ns.%s=%d", cd.Target, v))
	}
	var b strings.Builder
	b.WriteString(strings.Join(head, ",") + "\n")
	for i := range cd.Y {
		for _, v := range cd.Row(i) {
			b.WriteString(ftoa(v) + ",")
		}
		g := cd.Groups[i]
		fmt.Fprintf(&b, "%d,%s,%d", folds[i], cd.Platforms[g.Platform].Slug(), cd.Y[i])
		for _, t := range g.BestNs {
			b.WriteByte(',')
			if !math.IsInf(t, 1) {
				b.WriteString(strconv.FormatFloat(t, 'g', -1, 64))
			}
		}
		b.WriteByte('\n')
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("train: %w", err)
	}
	return nil
}
