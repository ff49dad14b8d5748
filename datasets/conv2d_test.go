package datasets

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/augur-tuning/augur/features"
)

func TestConv2DSpace(t *testing.T) {
	k := Conv2D()
	tests := []struct {
		name      string
		got, want int
	}{
		{"raw size", k.Space.RawSize(), 4 * 4 * 4 * 4 * 3 * 4 * 2 * 2},
		// Xwpt % VW == 0 leaves 10 of the 16 (Xwpt, VW) pairs and
		// LS != 0 || PAD == 0 leaves 5 of the 6 (LS, PAD) pairs.
		{"valid", k.Space.Len(), 4 * 4 * 4 * 10 * 5 * 2},
		{"task features", len(k.TaskNames), 4},
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
	}
}

func TestConv2DCheckTask(t *testing.T) {
	k := Conv2D()
	tests := []struct {
		task features.Task
		want string // a fragment of the error; "" for none
	}{
		{features.Task{16, 16, 3, 3}, ""},
		{features.Task{16384, 100, 11, 5}, ""},
		{features.Task{15, 100, 3, 3}, "width"},
		{features.Task{100, 16385, 3, 3}, "height"},
		{features.Task{100, 100, 4, 3}, "filter_w"},
		{features.Task{100, 100, 1, 3}, "filter_w"},
		{features.Task{100, 100, 3, 13}, "filter_h"},
		{features.Task{100, 100, 3}, "has 3 features"},
	}
	for _, tt := range tests {
		err := k.CheckTask(tt.task)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("CheckTask(%v): got %v, want nil", tt.task, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("CheckTask(%v): got %v, want an error naming %q", tt.task, err, tt.want)
		case tt.want != "" && !errors.Is(err, ErrTask):
			t.Errorf("CheckTask(%v): got %v, want it to wrap ErrTask", tt.task, err)
		}
	}
}

func TestConv2DGeometry(t *testing.T) {
	k := Conv2D()
	tests := []struct {
		task          features.Task
		config        string
		global, local [2]int
		localMem      int
	}{
		{features.Task{100, 75, 3, 3}, "Xwg=8,Ywg=8,Xwpt=1,Ywpt=1,LS=0,VW=1,PAD=0,UNR=0", [2]int{104, 80}, [2]int{8, 8}, 0},
		// 4 x 2 groups of 32 x 16 outputs, tile (32+2) x (16+6) plus a pad.
		{features.Task{100, 17, 3, 7}, "Xwg=16,Ywg=8,Xwpt=2,Ywpt=2,LS=1,VW=2,PAD=1,UNR=0", [2]int{64, 16}, [2]int{16, 8}, 4 * 35 * 22},
		// Halo work-items: ceil(10/4) = 3 in x, ceil(4/2) = 2 in y;
		// the tile is (11*4+1) x (10*2) floats.
		{features.Task{64, 48, 11, 5}, "Xwg=8,Ywg=8,Xwpt=4,Ywpt=2,LS=2,VW=4,PAD=1,UNR=1", [2]int{2 * 11, 3 * 10}, [2]int{11, 10}, 4 * 45 * 20},
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
		if got := [2]int{l.Global[0], l.Global[1]}; got != tt.global {
			t.Errorf("Geometry(%v, %s).Global: got %v, want %v", tt.task, tt.config, got, tt.global)
		}
		if got := [2]int{l.Local[0], l.Local[1]}; got != tt.local {
			t.Errorf("Geometry(%v, %s).Local: got %v, want %v", tt.task, tt.config, got, tt.local)
		}
		if l.LocalMemBytes != tt.localMem {
			t.Errorf("Geometry(%v, %s).LocalMemBytes: got %d, want %d", tt.task, tt.config, l.LocalMemBytes, tt.localMem)
		}
	}
}

// TestConv2DGeometryCovers checks every valid configuration on shapes that
// no tile divides: whole work-groups, enough of them to cover the image.
func TestConv2DGeometryCovers(t *testing.T) {
	k := Conv2D()
	for _, task := range []features.Task{{100, 75, 3, 3}, {16, 16, 11, 11}, {1920, 1080, 5, 9}} {
		k.Space.Each(func(c features.Config) bool {
			l, err := k.Geometry(task, c)
			if err != nil {
				t.Fatalf("Geometry(%v, %s): %v", task, k.Space.Format(c), err)
			}
			p := conv2dParamsOf(c)
			groups := [2]int{l.Global[0] / l.Local[0], l.Global[1] / l.Local[1]}
			switch {
			case l.Dims != 2 || l.Global[2] != 1 || l.Local[2] != 1:
				t.Fatalf("Geometry(%v, %s): got %+v, want a 2-D launch", task, k.Space.Format(c), l)
			case l.Global[0]%l.Local[0] != 0 || l.Global[1]%l.Local[1] != 0:
				t.Fatalf("Geometry(%v, %s): global %v not a multiple of local %v", task, k.Space.Format(c), l.Global, l.Local)
			case groups[0]*p.xwg*p.xwpt < task[0] || groups[1]*p.ywg*p.ywpt < task[1]:
				t.Fatalf("Geometry(%v, %s): %v groups do not cover the image", task, k.Space.Format(c), groups)
			case (groups[0]-1)*p.xwg*p.xwpt >= task[0] || (groups[1]-1)*p.ywg*p.ywpt >= task[1]:
				t.Fatalf("Geometry(%v, %s): %v groups, one too many", task, k.Space.Format(c), groups)
			case p.ls != 2 && (l.Local[0] != p.xwg || l.Local[1] != p.ywg):
				t.Fatalf("Geometry(%v, %s): local %v, want Xwg x Ywg", task, k.Space.Format(c), l.Local)
			case (p.ls == 0) != (l.LocalMemBytes == 0):
				t.Fatalf("Geometry(%v, %s): %d B of local memory with LS=%d", task, k.Space.Format(c), l.LocalMemBytes, p.ls)
			}
			return true
		})
	}
}

func TestConv2DRejects(t *testing.T) {
	k := Conv2D()
	if _, err := k.Geometry(features.Task{100, 100, 3, 3}, features.Config{8, 8, 1, 1, 0, 2, 0, 0}); !errors.Is(err, ErrConfig) {
		t.Errorf("Geometry with VW=2, Xwpt=1: got %v, want ErrConfig", err)
	}
	if _, err := k.Geometry(features.Task{100, 100, 2, 3}, k.Reference); !errors.Is(err, ErrTask) {
		t.Errorf("Geometry with filter_w=2: got %v, want ErrTask", err)
	}
}

func TestConv2DOptions(t *testing.T) {
	k := Conv2D()
	got := k.Options(features.Task{512, 256, 7, 5}, k.Reference)
	want := "-D FW=7 -D FH=5 -D Xwg=8 -D Ywg=8 -D Xwpt=1 -D Ywpt=1 -D LS=0 -D VW=1 -D PAD=0 -D UNR=0"
	if got != want {
		t.Errorf("Options: got %q, want %q", got, want)
	}
	if other := k.Options(features.Task{1024, 64, 7, 5}, k.Reference); other != got {
		t.Errorf("Options differ between image sizes: %q and %q", got, other)
	}
}

// TestConv2DWant compares the row-wise reference with the definition,
// written as plainly as possible, on an oblong filter.
func TestConv2DWant(t *testing.T) {
	k := Conv2D()
	task := features.Task{23, 17, 5, 3}
	args := k.Args(task, rand.New(rand.NewPCG(1, 2)))
	got := k.Want(task, args)
	w, h, fw, fh := 23, 17, 5, 3
	a, f := args[2].Data, args[3].Data
	for y := range h {
		for x := range w {
			var sum float64
			for j := range fh {
				for i := range fw {
					xx, yy := x+i-fw/2, y+j-fh/2
					if xx >= 0 && xx < w && yy >= 0 && yy < h {
						sum += float64(f[j*fw+i]) * float64(a[yy*w+xx])
					}
				}
			}
			if want := float32(sum); got[y*w+x] != want {
				t.Fatalf("Want at (%d, %d): got %g, want %g", x, y, got[y*w+x], want)
			}
		}
	}
	if got, want := k.Flops(task), float64(2*w*h*fw*fh); got != want {
		t.Errorf("Flops: got %g, want %g", got, want)
	}
	if got, want := k.Bytes(task), float64(4*(2*w*h+fw*fh)); got != want {
		t.Errorf("Bytes: got %g, want %g", got, want)
	}
}

func BenchmarkConv2DWant(b *testing.B) {
	k := Conv2D()
	task := features.Task{1024, 1024, 7, 7}
	args := k.Args(task, rand.New(rand.NewPCG(1, 2)))
	b.ReportAllocs()
	for b.Loop() {
		k.Want(task, args)
	}
}

func TestConv2DDerived(t *testing.T) {
	d := Deriver("conv2d")
	if d == nil {
		t.Fatal(`Deriver("conv2d") = nil`)
	}
	k := Conv2D()
	if k.Derived.ID() != d.ID() {
		t.Errorf("Conv2D().Derived.ID() = %q, Deriver gives %q", k.Derived.ID(), d.ID())
	}
	plat := features.Platform{ComputeUnits: 132, LocalMemBytes: 48 << 10}
	pv := plat.Vector()
	tests := []struct {
		task   features.Task
		config string
		want   map[string]float64
	}{
		{features.Task{1000, 600, 5, 5}, "Xwg=16,Ywg=8,Xwpt=4,Ywpt=2,LS=0,VW=2,PAD=0,UNR=0", map[string]float64{
			"tile_x": 64, "tile_y": 16, "groups_x": 16, "groups_y": 38, "groups": 608, "wg_items": 128,
			"pad_waste_x": 1024.0/1000 - 1, "loads_per_output": 25, "local_mem": 0, "vector_loads_per_row": 2,
			"waves": 608.0 / 132, "last_wave_fill": (608.0 / 132) / 5,
		}},
		{features.Task{64, 64, 3, 3}, "Xwg=8,Ywg=8,Xwpt=2,Ywpt=2,LS=2,VW=1,PAD=1,UNR=1", map[string]float64{
			"tile_x": 16, "wg_items": 9 * 9, "halo_items": 81.0 / 64, "groups": 16,
			"local_mem": 4 * (18 + 1) * 18, "loads_per_output": 18.0 * 18 / 256,
		}},
	}
	names := d.Names()
	for _, tt := range tests {
		c, err := k.Space.Parse(tt.config)
		if err != nil {
			t.Fatal(err)
		}
		l, err := k.Geometry(tt.task, c)
		if err != nil {
			t.Fatal(err)
		}
		dst := make([]float64, len(names)+1)
		dst[len(names)] = 12345 // Derive must write exactly len(Names()) values
		d.Derive(dst[:len(names)], tt.task, c, pv)
		if dst[len(names)] != 12345 {
			t.Errorf("Derive wrote past its %d values", len(names))
		}
		got := map[string]float64{}
		for i, n := range names {
			got[n] = dst[i]
		}
		if w := float64(l.LocalMemBytes); got["local_mem"] != w {
			t.Errorf("%v: local_mem = %g, geometry says %g", tt.task, got["local_mem"], w)
		}
		for n, w := range tt.want {
			if math.Abs(got[n]-w) > 1e-12 {
				t.Errorf("%v %s: %s = %g, want %g", tt.task, tt.config, n, got[n], w)
			}
		}
	}
}

func BenchmarkConv2DDerive(b *testing.B) {
	d := Deriver("conv2d")
	dst := make([]float64, len(d.Names()))
	pv := features.Platform{ComputeUnits: 132, LocalMemBytes: 48 << 10}.Vector()
	t, c := features.Task{1920, 1080, 5, 5}, features.Config{16, 8, 4, 2, 1, 2, 1, 0}
	b.ReportAllocs()
	for b.Loop() {
		d.Derive(dst, t, c, pv)
	}
}
