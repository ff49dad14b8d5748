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
// "name = expression" features (Augur.Derived).
type specDeriver struct {
	sk    *specKernel
	names []string
	user  *features.ExprDeriver // nil when the spec declares none
	id    string
}

func newSpecDeriver(sk *specKernel, defs []string, space *features.Space) (*specDeriver, error) {
	d := &specDeriver{sk: sk, names: append([]string(nil), specGeometryNames...), id: specDerivedID}
	if len(defs) == 0 {
		return d, nil
	}
	translated := make([]string, len(defs))
	for i, def := range defs {
		name, body, ok := strings.Cut(def, "=")
		if !ok || strings.HasPrefix(body, "=") {
			return nil, fmt.Errorf("%q: want \"name = expression\"", def)
		}
		e, err := features.TranslatePython(problemSizeRef.ReplaceAllStringFunc(body, func(m string) string {
			var i int
			fmt.Sscan(problemSizeRef.FindStringSubmatch(m)[1], &i)
			if i < len(sk.taskNames) {
				return sk.taskNames[i]
			}
			return m
		}))
		if err != nil {
			return nil, fmt.Errorf("%q: %w", def, err)
		}
		name = strings.TrimSpace(name)
		for _, g := range specGeometryNames {
			if name == g {
				return nil, fmt.Errorf("%q: %s is a launch-geometry feature every spec kernel has", def, name)
			}
		}
		translated[i] = name + " = " + e
	}
	u, err := features.NewExprDeriver(translated, sk.taskNames, space)
	if err != nil {
		return nil, err
	}
	d.user = u
	d.names = append(d.names, u.Names()...)
	d.id = specDerivedID + ";" + u.ID()
	return d, nil
}

func (d *specDeriver) ID() string { return d.id }

func (d *specDeriver) Names() []string { return append([]string(nil), d.names...) }

// Derive writes the geometry features, all 0 for a configuration the spec
// cannot launch on t, then the spec's own. A platform vector of zeros (no
// device known) counts one compute unit and no local memory limit.
func (d *specDeriver) Derive(dst []float64, t features.Task, c features.Config, pv []float64) {
	n := len(specGeometryNames)
	if d.user != nil {
		d.user.Derive(dst[n:], t, c, pv)
	}
	x, err := d.sk.extents(t, c)
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
