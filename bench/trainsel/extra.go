package main

import (
	"math"

	"github.com/augur-tuning/augur/features"
)

// extraDeriver adds CPU-minded features to conv2d's derived ones (session
// 13's experiment; conv2d's version 2 now derives the input bytes of a
// work-group and the flops of a work-item itself): the
// log2 bytes of a work-group's tile with halo, vector loads per work-item,
// the vector padding waste of a row, flops per work-item, log2 flops per
// work-group and the halo's share of the tile.
type extraDeriver struct{ base features.Deriver }

func (e extraDeriver) ID() string { return e.base.ID() + "+cpu" }
func (e extraDeriver) Names() []string {
	return append(e.base.Names(), "tile_bytes", "row_vec_loads", "vw_waste", "flops_item", "group_flops", "halo_share")
}
func (e extraDeriver) Derive(dst []float64, t features.Task, c features.Config, pv []float64) {
	n := len(e.base.Names())
	e.base.Derive(dst[:n], t, c, pv)
	fw, fh := float64(t[2]), float64(t[3])
	xwg, ywg, xwpt, ywpt, vw := float64(c[0]), float64(c[1]), float64(c[2]), float64(c[3]), float64(c[5])
	tx, ty := xwg*xwpt, ywg*ywpt
	hx, hy := math.Floor(fw/2), math.Floor(fh/2)
	tile := 4 * (tx + 2*hx) * (ty + 2*hy)
	row := xwpt + 2*hx
	vecLoads := math.Ceil(row / vw)
	outputs := xwpt * ywpt
	dst[n] = math.Log2(tile)
	dst[n+1] = vecLoads * (ywpt + 2*hy)
	dst[n+2] = vecLoads * vw / row
	dst[n+3] = outputs * fw * fh
	dst[n+4] = math.Log2(outputs * fw * fh * xwg * ywg)
	dst[n+5] = (tx + 2*hx) * (ty + 2*hy) / (tx * ty)
}
