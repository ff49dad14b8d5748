package datasets

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/augur-tuning/augur/features"
)

func TestStencilSpace(t *testing.T) {
	k := Stencil()
	tests := []struct {
		name      string
		got, want int
	}{
		{"raw size", k.Space.RawSize(), 4 * 5 * 4 * 4 * 3 * 3 * 3 * 4},
		{"valid", k.Space.Len(), 3016},
		{"task features", len(k.TaskNames), 7},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: got %d, want %d", tt.name, tt.got, tt.want)
		}
	}
	if err := k.Space.Check(k.Reference); err != nil {
		t.Errorf("reference %v: %v", k.Reference, err)
	}
	for _, task := range k.Tasks {
		if err := k.CheckTask(task); err != nil {
			t.Errorf("default task %v: %v", task, err)
		}
		if _, err := k.Geometry(task, k.Reference); err != nil {
			t.Errorf("reference on default task %v: %v", task, err)
		}
	}
	// Every technique, and BX above 1 exactly with global_vec.
	byTech := map[int]int{}
	tech, bx := k.Space.Param("technique"), k.Space.Param("BX")
	k.Space.Each(func(c features.Config) bool {
		byTech[c[tech]]++
		if (c[tech] == stencilGlobalVec) != (c[bx] > 1) {
			t.Errorf("%s: BX and technique disagree", k.Space.Format(c))
		}
		return true
	})
	want := map[int]int{stencilGlobal: 590, stencilGlobalVec: 1246, stencilLocal: 590, stencilImage: 590}
	for tc, n := range want {
		if byTech[tc] != n {
			t.Errorf("technique=%d: got %d configurations, want %d", tc, byTech[tc], n)
		}
	}
}

// TestStencilSuite checks the 104 kernels against the paper's Table 2:
// the counts by pattern and dimensionality and by pattern and radius, and
// that no two kernels have the same stencil.
func TestStencilSuite(t *testing.T) {
	k := Stencil()
	suite := StencilSuite(256, 256, 256)
	if len(suite) != 104 {
		t.Fatalf("StencilSuite: got %d kernels, want 104", len(suite))
	}
	// Table 2, rows star, thumbtack, diamond, no-corners, dense.
	byDims := map[int][3]int{
		stencilStar:      {0, 15, 5},
		stencilThumbtack: {0, 0, 15},
		stencilDiamond:   {0, 12, 4},
		stencilNoCorners: {0, 12, 5},
		stencilDense:     {16, 15, 5},
	}
	byRadius := map[int][6]int{
		stencilStar:      {0, 4, 4, 4, 4, 4},
		stencilThumbtack: {0, 3, 3, 3, 3, 3},
		stencilDiamond:   {0, 0, 4, 4, 4, 4},
		stencilNoCorners: {0, 1, 4, 4, 4, 4},
		stencilDense:     {1, 7, 7, 7, 7, 7},
	}
	gotDims := map[int][3]int{}
	gotRadius := map[int][6]int{}
	seen := map[string]features.Task{}
	for _, task := range suite {
		if err := k.CheckTask(task); err != nil {
			t.Errorf("%v: %v", task, err)
			continue
		}
		p := task[stencilPattern]
		d := gotDims[p]
		d[task[stencilDims]-1]++
		gotDims[p] = d
		r := gotRadius[p]
		r[task[stencilRadius]]++
		gotRadius[p] = r
		// The terms name the stencil's offsets and weights.
		key := k.Options(task, k.Reference)
		if other, ok := seen[key]; ok {
			t.Errorf("%v and %v have the same stencil", task, other)
		}
		seen[key] = task
	}
	for p, name := range stencilPatternNames {
		if gotDims[p] != byDims[p] {
			t.Errorf("%s by dimensionality: got %v, want %v", name, gotDims[p], byDims[p])
		}
		if gotRadius[p] != byRadius[p] {
			t.Errorf("%s by radius: got %v, want %v", name, gotRadius[p], byRadius[p])
		}
	}
}

// TestStencilPatterns checks the patterns' points against their
// definitions on known cases, and the closed forms of stencilShapeOf
// (points, halo) against the enumeration on every stencil CheckTask
// accepts.
func TestStencilPatterns(t *testing.T) {
	tests := []struct {
		name   string
		task   features.Task
		points int
		box    [3]int // the bounding box's side on each axis
		unique int
	}{
		{"point", features.Task{stencilStar, 1, 0, 0, 8, 8, 8}, 1, [3]int{1, 1, 1}, 0},
		{"1D line along y", features.Task{stencilDense, 1, 2, 1, 8, 8, 8}, 5, [3]int{1, 5, 1}, 2},
		{"2D star in xz", features.Task{stencilStar, 2, 1, 1, 8, 8, 8}, 5, [3]int{3, 1, 3}, 2},
		{"2D dense in xy", features.Task{stencilDense, 2, 1, 2, 8, 8, 8}, 9, [3]int{3, 3, 1}, 3},
		{"2D diamond r2 in yz", features.Task{stencilDiamond, 2, 2, 0, 8, 8, 8}, 13, [3]int{1, 5, 5}, 1},
		{"2D no-corners r2", features.Task{stencilNoCorners, 2, 2, 2, 8, 8, 8}, 21, [3]int{5, 5, 1}, 3},
		{"3D star r1", features.Task{stencilStar, 3, 1, 0, 8, 8, 8}, 7, [3]int{3, 3, 3}, 0},
		{"3D no-corners r1 (D3Q19)", features.Task{stencilNoCorners, 3, 1, 0, 8, 8, 8}, 19, [3]int{3, 3, 3}, 0},
		{"3D diamond r2", features.Task{stencilDiamond, 3, 2, 0, 8, 8, 8}, 25, [3]int{5, 5, 5}, 0},
		{"3D dense r5", features.Task{stencilDense, 3, 5, 0, 16, 16, 16}, 1331, [3]int{11, 11, 11}, 0},
		{"thumbtack r2, pin along x", features.Task{stencilThumbtack, 3, 2, 0, 8, 8, 8}, 11, [3]int{3, 5, 5}, 1},
	}
	for _, tt := range tests {
		pts := stencilPoints(tt.task)
		var lo, hi [3]int
		for _, p := range pts {
			for a := range 3 {
				lo[a], hi[a] = min(lo[a], p.d[a]), max(hi[a], p.d[a])
			}
			if p.k < 1 || p.k > 255 {
				t.Errorf("%s: weight %d/256 outside [1, 255]/256", tt.name, p.k)
			}
		}
		box := [3]int{hi[0] - lo[0] + 1, hi[1] - lo[1] + 1, hi[2] - lo[2] + 1}
		s := stencilShapeOf(tt.task)
		switch {
		case len(pts) != tt.points:
			t.Errorf("%s: got %d points, want %d", tt.name, len(pts), tt.points)
		case box != tt.box:
			t.Errorf("%s: bounding box %v, want %v", tt.name, box, tt.box)
		case s.uniqueDim != tt.unique:
			t.Errorf("%s: unique dimension %d, want %d", tt.name, s.uniqueDim, tt.unique)
		}
	}
	// The thumbtack's pin rises on one side.
	for _, p := range stencilPoints(features.Task{stencilThumbtack, 3, 3, 2, 8, 8, 8}) {
		if p.d[2] < 0 || (p.d[2] > 0 && (p.d[0] != 0 || p.d[1] != 0)) {
			t.Errorf("thumbtack along z: point %v is neither head nor pin", p.d)
		}
	}

	k := Stencil()
	for pattern := range 5 {
		for dims := 1; dims <= 3; dims++ {
			for r := 0; r <= stencilMaxRadius; r++ {
				for o := range 3 {
					task := features.Task{pattern, dims, r, o, 12, 12, 12}
					if k.CheckTask(task) != nil {
						continue
					}
					pts := stencilPoints(task)
					var lo, hi [3]int
					for _, p := range pts {
						for a := range 3 {
							lo[a], hi[a] = min(lo[a], p.d[a]), max(hi[a], p.d[a])
						}
					}
					s := stencilShapeOf(task)
					if s.points != len(pts) {
						t.Errorf("%v: closed form gives %d points, enumeration %d", task, s.points, len(pts))
					}
					for a := range 3 {
						if s.haloM[a] != -lo[a] || s.haloP[a] != hi[a] {
							t.Errorf("%v: axis %d halo %d, %d, want %d, %d", task, a, s.haloM[a], s.haloP[a], -lo[a], hi[a])
						}
					}
				}
			}
		}
	}
}

func TestStencilCheckTask(t *testing.T) {
	k := Stencil()
	tests := []struct {
		task features.Task
		want string // a fragment of the error; "" for none
	}{
		{features.Task{stencilDense, 3, 5, 0, 256, 256, 256}, ""},
		{features.Task{stencilThumbtack, 3, 1, 2, 1, 1, 1}, ""},
		{features.Task{stencilStar, 2, 3, 1, 1024, 1024, 8}, ""},
		{features.Task{5, 3, 1, 0, 64, 64, 64}, "pattern must"},
		{features.Task{stencilStar, 0, 1, 0, 64, 64, 64}, "dims must"},
		{features.Task{stencilStar, 2, 6, 0, 64, 64, 64}, "radius must"},
		{features.Task{stencilStar, 2, 1, 3, 64, 64, 64}, "orient must"},
		{features.Task{stencilStar, 2, 1, 0, 0, 64, 64}, "nx must"},
		{features.Task{stencilStar, 2, 1, 0, 1024, 1024, 256}, "nx*ny*nz"},
		{features.Task{stencilThumbtack, 2, 1, 0, 64, 64, 64}, "thumbtack"},
		{features.Task{stencilStar, 3, 1, 1, 64, 64, 64}, "no orientation"},
		{features.Task{stencilDense, 1, 0, 2, 64, 64, 64}, "no orientation"},
		{features.Task{stencilStar, 2, 1, 0, 64, 64}, "has 6 features"},
	}
	for _, tt := range tests {
		err := k.CheckTask(tt.task)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("CheckTask(%v): got %v, want nil", tt.task, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want) || !errors.Is(err, ErrTask)):
			t.Errorf("CheckTask(%v): got %v, want ErrTask naming %q", tt.task, err, tt.want)
		}
	}
}

func TestStencilGeometryAndOptions(t *testing.T) {
	k := Stencil()
	tests := []struct {
		task          features.Task
		config        string
		global, local [3]int
		localMem      int
		options       string // a prefix of the options
	}{
		// 256 / 32 groups in x, 256 / 4, 256 / 2.
		{features.Task{stencilStar, 3, 1, 0, 256, 256, 256}, "WX=32,WY=4,WZ=2,BX=1,CX=1,CY=1,CZ=1,technique=0",
			[3]int{256, 256, 256}, [3]int{32, 4, 2}, 0,
			"-D WX=32 -D WY=4 -D WZ=2 -D BX=1 -D CX=1 -D CY=1 -D CZ=1 -D TECH=0 -D HXM=1 -D HXP=1 -D HYM=1 -D HYP=1 -D HZM=1 -D HZP=1 -D TERMS=T(0,0,-1,"},
		// A tile of 16*2 x 2*2 x 1 on 128 x 30 x 7: 4 x 8 x 7 groups; a
		// thumbtack along y stages (32+4) x (4+2) x (1+4) floats.
		{features.Task{stencilThumbtack, 3, 2, 1, 128, 30, 7}, "WX=16,WY=2,WZ=1,BX=1,CX=2,CY=2,CZ=1,technique=2",
			[3]int{64, 16, 7}, [3]int{16, 2, 1}, 4 * (32 + 4) * (4 + 2) * (1 + 4),
			"-D WX=16 -D WY=2 -D WZ=1 -D BX=1 -D CX=2 -D CY=2 -D CZ=1 -D TECH=2 -D HXM=2 -D HXP=2 -D HYM=0 -D HYP=2 -D HZM=2 -D HZP=2 -D TERMS="},
		{features.Task{stencilDense, 1, 3, 0, 64, 8, 8}, "WX=16,WY=1,WZ=1,BX=4,CX=1,CY=1,CZ=1,technique=1",
			[3]int{16, 8, 8}, [3]int{16, 1, 1}, 0,
			"-D WX=16 -D WY=1 -D WZ=1 -D BX=4 -D CX=1 -D CY=1 -D CZ=1 -D TECH=1 -D HXM=3 -D HXP=3 -D HYM=0 -D HYP=0 -D HZM=0 -D HZP=0 -D TERMS=T(-3,0,0,"},
	}
	for _, tt := range tests {
		c, err := k.Space.Parse(tt.config)
		if err != nil {
			t.Fatalf("parse %q: %v", tt.config, err)
		}
		l, err := k.Geometry(tt.task, c)
		if err != nil {
			t.Fatalf("Geometry(%v, %s): %v", tt.task, tt.config, err)
		}
		if l.Dims != 3 || l.Global != tt.global || l.Local != tt.local {
			t.Errorf("%v %s: launch %v / %v, want %v / %v", tt.task, tt.config, l.Global, l.Local, tt.global, tt.local)
		}
		if l.LocalMemBytes != tt.localMem {
			t.Errorf("%v %s: local memory %d, want %d", tt.task, tt.config, l.LocalMemBytes, tt.localMem)
		}
		o := k.Options(tt.task, c)
		if !strings.HasPrefix(o, tt.options) {
			t.Errorf("%v %s: Options\n got %q\nwant %q...", tt.task, tt.config, o, tt.options)
		}
		if strings.Count(o, "T(") != stencilShapeOf(tt.task).points {
			t.Errorf("%v: Options has %d terms, want %d", tt.task, strings.Count(o, "T("), stencilShapeOf(tt.task).points)
		}
	}
}

func TestStencilRejects(t *testing.T) {
	k := Stencil()
	tests := []struct {
		task   features.Task
		config string
		want   string
	}{
		// Section 4.7: 16 * 4 * 2 > 64 in x.
		{features.Task{stencilStar, 3, 1, 0, 64, 64, 64}, "WX=16,WY=1,WZ=1,BX=4,CX=1,CY=1,CZ=1,technique=1", ""},
		{features.Task{stencilStar, 3, 1, 0, 64, 64, 64}, "WX=16,WY=1,WZ=1,BX=4,CX=2,CY=1,CZ=1,technique=1", "in x"},
		{features.Task{stencilStar, 3, 1, 0, 64, 64, 8}, "WX=16,WY=1,WZ=8,BX=1,CX=1,CY=1,CZ=2,technique=0", "in z"},
		{features.Task{stencilStar, 3, 1, 0, 66, 64, 64}, "WX=16,WY=1,WZ=1,BX=4,CX=1,CY=1,CZ=1,technique=1", "divide"},
	}
	for _, tt := range tests {
		c, err := k.Space.Parse(tt.config)
		if err != nil {
			t.Fatal(err)
		}
		_, err = k.Geometry(tt.task, c)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("Geometry(%v, %s): got %v, want nil", tt.task, tt.config, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want) || !errors.Is(err, ErrConfig)):
			t.Errorf("Geometry(%v, %s): got %v, want ErrConfig naming %q", tt.task, tt.config, err, tt.want)
		}
	}
	if _, err := k.Geometry(features.Task{stencilStar, 3, 1, 0, 64, 64, 64}, features.Config{16, 1, 1, 2, 1, 1, 1, stencilGlobal}); !errors.Is(err, ErrConfig) {
		t.Errorf("Geometry with BX=2 and technique=global: got %v, want ErrConfig", err)
	}
}

func TestStencilCheckDevice(t *testing.T) {
	k := Stencil()
	image := features.Config{32, 4, 2, 1, 1, 1, 1, stencilImage}
	tests := []struct {
		name   string
		config features.Config
		plat   features.Platform
		ok     bool
	}{
		{"reference without images", k.Reference, features.Platform{}, true},
		{"image with images", image, features.Platform{ImageSupport: true}, true},
		{"image without images", image, features.Platform{Name: "nothing"}, false},
	}
	for _, tt := range tests {
		err := k.CheckDevice(tt.config, tt.plat)
		if tt.ok != (err == nil) || (err != nil && !errors.Is(err, ErrDevice)) {
			t.Errorf("%s: got %v, want ok=%v", tt.name, err, tt.ok)
		}
	}
}

// TestStencilWant compares the reference with the stencil written out
// point by point, and checks that the weights are the same on another
// array size and differ between stencils.
func TestStencilWant(t *testing.T) {
	k := Stencil()
	task := features.Task{stencilThumbtack, 3, 2, 1, 7, 5, 6}
	args := k.Args(task, rand.New(rand.NewPCG(1, 2)))
	got := k.Want(task, args)
	in := args[stencilArgIn].Data
	// A thumbtack along y: halo 2 in x and z, 0 below and 2 above in y.
	px, py, pz := 7+4, 5+2, 6+4
	if len(in) != px*py*pz || len(got) != 7*5*6 {
		t.Fatalf("input %d and output %d floats, want %d and %d", len(in), len(got), px*py*pz, 7*5*6)
	}
	pts := stencilPoints(task)
	for z := range 6 {
		for y := range 5 {
			for x := range 7 {
				var s float64
				for _, p := range pts {
					s += float64(p.k) / 256 * float64(in[((z+2+p.d[2])*py+y+p.d[1])*px+x+2+p.d[0]])
				}
				if g := got[(z*5+y)*7+x]; math.Abs(float64(g)-s) > 1e-6*s {
					t.Fatalf("out[%d][%d][%d] = %g, want %g", z, y, x, g, s)
				}
			}
		}
	}
	if got, want := k.Flops(task), float64(2*11*7*5*6); got != want {
		t.Errorf("Flops: got %g, want %g", got, want)
	}
	if got, want := k.Bytes(task), float64(4*(px*py*pz+7*5*6)); got != want {
		t.Errorf("Bytes: got %g, want %g", got, want)
	}
	other := features.Task{stencilThumbtack, 3, 2, 1, 64, 64, 64}
	if a, b := k.Options(task, k.Reference), k.Options(other, k.Reference); a != b {
		t.Errorf("the stencil changes with the array size:\n%s\n%s", a, b)
	}
	rotated := features.Task{stencilThumbtack, 3, 2, 2, 7, 5, 6}
	if k.Options(task, k.Reference) == k.Options(rotated, k.Reference) {
		t.Error("two orientations have the same stencil")
	}
}

func TestStencilDerived(t *testing.T) {
	d := Deriver("stencil")
	if d == nil || d.ID() != "stencil/1" {
		t.Fatalf(`Deriver("stencil") = %v, want stencil/1`, d)
	}
	k := Stencil()
	c, err := k.Space.Parse("WX=16,WY=2,WZ=1,BX=1,CX=2,CY=2,CZ=1,technique=2")
	if err != nil {
		t.Fatal(err)
	}
	task := features.Task{stencilThumbtack, 3, 2, 1, 128, 30, 7}
	l, _ := k.Geometry(task, c)
	names := d.Names()
	dst := make([]float64, len(names)+1)
	dst[len(names)] = 12345
	d.Derive(dst[:len(names)], task, c, features.Platform{ComputeUnits: 4, LocalMemBytes: 48 << 10}.Vector())
	if dst[len(names)] != 12345 {
		t.Errorf("Derive wrote past its %d values", len(names))
	}
	got := map[string]float64{}
	for i, n := range names {
		got[n] = dst[i]
	}
	tile := 32.0 * 4 * 1
	want := map[string]float64{
		// 11 points in a 5 x 3 x 5 box; the pin is along y.
		"points": 11, "density": 11.0 / 75, "unique_dim": 2, "muls": 11, "adds": 10,
		"halo_x": 4, "halo_y": 2, "halo_z": 4, "elements": 128 * 30 * 7,
		"tile_x": 32, "tile_y": 4, "tile_z": 1, "tile": tile, "wg_items": 32, "outputs_per_item": 4,
		"groups_x": 4, "groups_y": 8, "groups_z": 7, "groups": 224, "items": 224 * 32,
		"waves": 56, "pad_waste": 224*tile/(128*30*7) - 1,
		"local_mem": float64(l.LocalMemBytes), "local_mem_frac": float64(l.LocalMemBytes) / (48 << 10),
		"halo_overhead": 36*6*5/tile - 1, "loads_per_output": 36 * 6 * 5 / tile,
	}
	for n, w := range want {
		if math.Abs(got[n]-w) > 1e-12 {
			t.Errorf("%s = %g, want %g", n, got[n], w)
		}
	}
	if allocs := testing.AllocsPerRun(10, func() { d.Derive(dst[:len(names)], task, c, nil) }); allocs != 0 {
		t.Errorf("Derive allocates %v times", allocs)
	}
}

func TestStencilGroups(t *testing.T) {
	k := Stencil()
	byDim, byOpt := StencilGroups()
	for _, groups := range [][][]string{byDim, byOpt} {
		seen := map[string]bool{}
		for _, g := range groups {
			for _, name := range g {
				if k.Space.Param(name) < 0 || seen[name] {
					t.Errorf("group %v: %s is not a parameter, or is in two groups", g, name)
				}
				seen[name] = true
			}
		}
		// Every parameter but technique, which is fixed before a search.
		if len(seen) != len(k.Space.Params)-1 || seen["technique"] {
			t.Errorf("groups %v: want every parameter but technique", groups)
		}
	}
	byDim[0][0] = "changed"
	if again, _ := StencilGroups(); again[0][0] != "WX" {
		t.Error("StencilGroups returns shared slices")
	}
}
