package datasets

import (
	"fmt"
	"math"
	"strings"

	"github.com/augur-tuning/augur/features"
)

// specGeometryNames are the launch-geometry features every spec kernel
// has, in the order specDeriver writes them, before the spec's own.
// Change specDerivedID with any change here or in Derive.
var specGeometryNames = []string{
	"work_items", "wg_size", "work_groups", "waves", "last_wave_fill",
	"items_per_cu", "pad_waste", "local_mem", "local_mem_frac",
}

const specDerivedID = "spec/1"

// specDeriver computes a spec kernel's derived features: the launch
// geometry from the spec's size expressions, then the spec's own
// "name = expression" features (Augur.Derived). Both are compiled
// (features.Calc): Derive allocates nothing.
type specDeriver struct {
	sk    *specKernel
	names []string
	user  []*features.Calc
	id    string
}

func newSpecDeriver(sk *specKernel, defs []string, space *features.Space) (*specDeriver, error) {
	d := &specDeriver{sk: sk, names: append([]string(nil), specGeometryNames...), id: specDerivedID}
	seen := map[string]bool{}
	for _, n := range specGeometryNames {
		seen[n] = true
	}
	var exprs []string
	for _, def := range defs {
		name, body, ok := strings.Cut(def, "=")
		name = strings.TrimSpace(name)
		if !ok || strings.HasPrefix(body, "=") || !isIdent(name) {
			return nil, fmt.Errorf("%q: want \"name = expression\"", def)
		}
		if seen[name] {
			return nil, fmt.Errorf("%q: %s is defined twice (or is a launch-geometry feature every spec kernel has)", def, name)
		}
		seen[name] = true
		e, err := features.TranslatePythonNames(problemSizeRef.ReplaceAllStringFunc(body, func(m string) string {
			var i int
			fmt.Sscan(problemSizeRef.FindStringSubmatch(m)[1], &i)
			if i < len(sk.taskNames) {
				return sk.taskNames[i]
			}
			return m
		}), features.PythonNames{Numbers: sk.numbers})
		if err != nil {
			return nil, fmt.Errorf("%q: %w", def, err)
		}
		c, err := features.CompileCalc(e, sk.keys)
		if err != nil {
			msg, _, _ := strings.Cut(err.Error(), "\n")
			return nil, fmt.Errorf("%q: %s", def, msg)
		}
		d.user = append(d.user, c)
		d.names = append(d.names, name)
		exprs = append(exprs, name+" = "+e)
	}
	if len(exprs) > 0 {
		d.id += ";expr/" + strings.Join(exprs, "; ")
	}
	return d, nil
}

func (d *specDeriver) ID() string { return d.id }

func (d *specDeriver) Names() []string { return append([]string(nil), d.names...) }

// Derive writes the geometry features, all 0 for a configuration the spec
// cannot launch on t, then the spec's own (0 where not finite). A platform
// vector of zeros (no device known) counts one compute unit and no local
// memory limit.
func (d *specDeriver) Derive(dst []float64, t features.Task, c features.Config, pv []float64) {
	p := d.sk.vars.Get().(*[]float64)
	defer d.sk.vars.Put(p)
	vars := *p
	d.sk.fill(vars, t, c)
	n := len(specGeometryNames)
	for i, u := range d.user {
		v := u.Eval(vars)
		if math.IsNaN(v) || math.IsInf(v, 0) {
			v = 0
		}
		dst[n+i] = v
	}
	x, err := d.sk.extentsOf(vars)
	if err != nil {
		clear(dst[:n])
		return
	}
	cu, localBytes := 1.0, 0.0
	if len(pv) > max(platCU, platLocalKiB) {
		cu = max(pv[platCU], 1)
		localBytes = pv[platLocalKiB] * 1024
	}
	items, wg, groups, covered, asked := 1.0, 1.0, 1.0, 1.0, 1.0
	for i := 0; i < x.l.Dims; i++ {
		items *= float64(x.l.Global[i])
		wg *= float64(x.l.Local[i])
		groups *= float64(x.l.Global[i] / x.l.Local[i])
		covered *= x.covered[i]
		asked *= max(x.asked[i], 1)
	}
	waves := groups / cu
	lmem, lmemFrac := float64(x.l.LocalMemBytes), 0.0
	if localBytes > 0 {
		lmemFrac = lmem / localBytes
	}
	v := [...]float64{
		items, wg, groups, waves, waves / math.Ceil(waves),
		items / cu, covered/asked - 1, lmem, lmemFrac,
	}
	copy(dst, v[:])
}
