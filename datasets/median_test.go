package datasets

import (
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/augur-tuning/augur/features"
)

func TestMedianSpace(t *testing.T) {
	k := Median()
	// Table 4 of the paper: 12^4 sizes times 2^4 switches.
	if got, want := k.Space.RawSize(), 331776; got != want {
		t.Errorf("raw size: got %d, want %d", got, want)
	}
	if got, want := k.Space.Len(), 331776; got != want {
		t.Errorf("valid: got %d, want %d", got, want)
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

func TestMedianCheckTask(t *testing.T) {
	k := Median()
	tests := []struct {
		task features.Task
		want string // a fragment of the error; "" for none
	}{
		{features.Task{16, 16, 3}, ""},
		{features.Task{3072, 3072, 7}, ""},
		{features.Task{15, 100, 3}, "width"},
		{features.Task{100, 16385, 3}, "height"},
		{features.Task{100, 100, 4}, "filter"},
		{features.Task{100, 100, 9}, "filter"},
		{features.Task{100, 100}, "has 2 features"},
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

func TestMedianGeometryAndOptions(t *testing.T) {
	k := Median()
	tests := []struct {
		task          features.Task
		config        string
		global, local [2]int
		localMem      int
	}{
		{features.Task{100, 75, 3}, "Xwg=8,Ywg=8,Xppt=1,Yppt=1,IMG=0,LMEM=0,ALG=0,LARR=0", [2]int{104, 80}, [2]int{8, 8}, 0},
		// 100/(6*4) = 5 groups, 75/(2*12) = 4; tile (24+4) x (24+4).
		{features.Task{100, 75, 5}, "Xwg=6,Ywg=2,Xppt=4,Yppt=12,IMG=1,LMEM=1,ALG=0,LARR=0", [2]int{30, 8}, [2]int{6, 2}, 4 * 28 * 28},
		// A sort array of 49 floats a work-item, or 256 counts.
		{features.Task{64, 64, 7}, "Xwg=16,Ywg=4,Xppt=2,Yppt=2,IMG=0,LMEM=0,ALG=0,LARR=1", [2]int{32, 32}, [2]int{16, 4}, 4 * 49 * 64},
		{features.Task{64, 64, 7}, "Xwg=16,Ywg=4,Xppt=2,Yppt=2,IMG=0,LMEM=0,ALG=1,LARR=1", [2]int{32, 32}, [2]int{16, 4}, 256 * 64},
	}
	for _, tt := range tests {
		c, err := k.Space.Parse(tt.config)
		if err != nil {
			t.Fatal(err)
		}
		l, err := k.Geometry(tt.task, c)
		if err != nil {
			t.Fatal(err)
		}
		if got := [2]int{l.Global[0], l.Global[1]}; got != tt.global {
			t.Errorf("%s: global got %v, want %v", tt.config, got, tt.global)
		}
		if got := [2]int{l.Local[0], l.Local[1]}; got != tt.local {
			t.Errorf("%s: local got %v, want %v", tt.config, got, tt.local)
		}
		if l.LocalMemBytes != tt.localMem {
			t.Errorf("%s: local memory got %d, want %d", tt.config, l.LocalMemBytes, tt.localMem)
		}
	}
	got := k.Options(features.Task{512, 256, 5}, k.Reference)
	want := "-D FS=5 -D XWG=8 -D YWG=8 -D XPPT=1 -D YPPT=1 -D IMG=0 -D LMEM=0 -D ALG=0 -D LARR=0"
	if got != want {
		t.Errorf("Options: got %q, want %q", got, want)
	}
}

func TestMedianCheckDevice(t *testing.T) {
	k := Median()
	img := features.Config{8, 8, 1, 1, 1, 0, 0, 0}
	if err := k.CheckDevice(img, features.Platform{ImageSupport: true}); err != nil {
		t.Errorf("IMG=1 with images: got %v, want nil", err)
	}
	if err := k.CheckDevice(img, features.Platform{}); !errors.Is(err, ErrDevice) {
		t.Errorf("IMG=1 without images: got %v, want ErrDevice", err)
	}
	if err := k.CheckDevice(k.Reference, features.Platform{}); err != nil {
		t.Errorf("reference without images: got %v, want nil", err)
	}
}

// TestMedianWant compares the counting reference with a sort of each
// clamped window.
func TestMedianWant(t *testing.T) {
	k := Median()
	for _, task := range []features.Task{{23, 17, 3}, {16, 19, 7}} {
		args := k.Args(task, rand.New(rand.NewPCG(1, 2)))
		got := k.Want(task, args)
		w, h, f := task[0], task[1], task[2]
		a := args[medianArgIn].Data
		if !slices.Equal(a, args[3].Data) {
			t.Fatal("buffer and image arguments differ")
		}
		win := make([]float32, 0, f*f)
		for y := range h {
			for x := range w {
				win = win[:0]
				for j := range f {
					for i := range f {
						xx := min(max(x+i-f/2, 0), w-1)
						yy := min(max(y+j-f/2, 0), h-1)
						win = append(win, a[yy*w+xx])
					}
				}
				slices.Sort(win)
				if want := win[len(win)/2]; got[y*w+x] != want {
					t.Fatalf("%v: Want at (%d, %d): got %g, want %g", task, x, y, got[y*w+x], want)
				}
			}
		}
	}
}

func TestMedianDerived(t *testing.T) {
	d := Deriver("median")
	if d == nil || d.ID() != "median/1" {
		t.Fatalf(`Deriver("median") = %v, want median/1`, d)
	}
	k := Median()
	c, err := k.Space.Parse("Xwg=16,Ywg=8,Xppt=4,Yppt=2,IMG=0,LMEM=1,ALG=1,LARR=1")
	if err != nil {
		t.Fatal(err)
	}
	task := features.Task{1000, 600, 5}
	l, _ := k.Geometry(task, c)
	names := d.Names()
	dst := make([]float64, len(names)+1)
	dst[len(names)] = 12345
	d.Derive(dst[:len(names)], task, c, features.Platform{ComputeUnits: 10, LocalMemBytes: 64 << 10}.Vector())
	if dst[len(names)] != 12345 {
		t.Errorf("Derive wrote past its %d values", len(names))
	}
	got := map[string]float64{}
	for i, n := range names {
		got[n] = dst[i]
	}
	want := map[string]float64{
		"tile_x": 64, "tile_y": 16, "groups_x": 16, "groups_y": 38, "groups": 608,
		"local_mem": float64(l.LocalMemBytes), "pixels_per_item": 8, "window": 25,
		"ops_per_pixel": 256 + 25 + 256, "loads_per_pixel": 68.0 * 20 / (64 * 16),
	}
	for n, w := range want {
		if got[n] != w {
			t.Errorf("%s = %g, want %g", n, got[n], w)
		}
	}
}
