package datasets

import (
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/augur-tuning/augur/features"
)

func TestFbcorrSpace(t *testing.T) {
	k := Fbcorr()
	raw := 6 * 6 * 2 * 3 * 2 * 2 * 2 * 2 * 7 * 2
	if got := k.Space.RawSize(); got != raw {
		t.Errorf("raw size: got %d, want %d", got, raw)
	}
	if got := k.Space.Len(); got != raw {
		t.Errorf("valid: got %d, want %d", got, raw)
	}
	if err := k.Space.Check(k.Reference); err != nil {
		t.Errorf("reference %v: %v", k.Reference, err)
	}
	space := fbcorrTaskSpace()
	// Section 5: "an argument space [of] 602 configurations with between
	// 1 and 50 gigaflops".
	if len(space) != 602 {
		t.Errorf("task space: got %d shapes, want 602", len(space))
	}
	for _, task := range append(space, k.Tasks...) {
		if err := k.CheckTask(task); err != nil {
			t.Errorf("task %v: %v", task, err)
		}
	}
	for _, task := range k.Tasks {
		if g := k.Flops(task) / 1e9; g < 1 || g > 50 {
			t.Errorf("default task %v: %g GFLOP, outside the paper's [1, 50]", task, g)
		}
	}
}

func TestFbcorrCheckTask(t *testing.T) {
	k := Fbcorr()
	tests := []struct {
		task features.Task
		want string // a fragment of the error; "" for none
	}{
		{features.Task{3, 3, 1, 1, 3, 3}, ""},
		{features.Task{4096, 4096, 256, 256, 11, 11}, ""},
		{features.Task{0, 3, 1, 1, 1, 1}, "R must"},
		{features.Task{10, 10, 600, 1, 3, 3}, "D must"},
		{features.Task{10, 10, 1, 0, 3, 3}, "F must"},
		{features.Task{10, 10, 1, 1, 17, 3}, "H must"},
		{features.Task{10, 4, 1, 1, 3, 5}, "at least the filter"},
		{features.Task{10, 10, 1, 1, 3}, "has 5 features"},
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

func TestFbcorrGeometryAndOptions(t *testing.T) {
	k := Fbcorr()
	tests := []struct {
		task          features.Task
		config        string
		global, local [3]int
		localMem      int
		options       string
	}{
		// 254 x 254 outputs in 8 x 8 blocks, all 10 filters in 3 float4s;
		// (8+0) x (8+2) staged pixels of 4+1 floats.
		{features.Task{256, 256, 4, 10, 3, 3}, "block_h=8,block_w=8,n_filter_r=1,n_output_4s=0,spill=0,imul_fast=1,pad_shared=1,use_tex1d=1,maxrreg=0,fast_math=0",
			[3]int{256, 256, 1}, [3]int{8, 8, 1}, 4 * 8 * 10 * 5,
			"-D H=3 -D W=3 -D D=4 -D F=10 -D BH=8 -D BW=8 -D NFR=1 -D N4=3 -D SPILL=0 -D IMUL=1 -D PAD=1 -D TEX=1"},
		// 10 filters in groups of 8: two passes; spill adds an int a
		// work-item.
		{features.Task{100, 60, 2, 10, 5, 7}, "block_h=16,block_w=4,n_filter_r=2,n_output_4s=2,spill=1,imul_fast=0,pad_shared=0,use_tex1d=0,maxrreg=24,fast_math=1",
			[3]int{56, 96, 2}, [3]int{4, 16, 1}, 4*17*10*2 + 4*64,
			"-D H=5 -D W=7 -D D=2 -D F=10 -D BH=16 -D BW=4 -D NFR=2 -D N4=2 -D SPILL=1 -D IMUL=0 -D PAD=0 -D TEX=0 -cl-nv-maxrregcount=24 -cl-fast-relaxed-math"},
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
		if l.Dims != 3 || l.Global != tt.global || l.Local != tt.local {
			t.Errorf("%s: launch %v / %v, want %v / %v", tt.config, l.Global, l.Local, tt.global, tt.local)
		}
		if l.LocalMemBytes != tt.localMem {
			t.Errorf("%s: local memory got %d, want %d", tt.config, l.LocalMemBytes, tt.localMem)
		}
		if got := k.Options(tt.task, c); got != tt.options {
			t.Errorf("Options: got %q, want %q", got, tt.options)
		}
	}
}

func TestFbcorrCheckDevice(t *testing.T) {
	k := Fbcorr()
	nvidia := features.Platform{PlatformName: "NVIDIA CUDA", Vendor: "NVIDIA Corporation", ImageSupport: true}
	pocl := features.Platform{PlatformName: "Portable Computing Language", Vendor: "AuthenticAMD", ImageSupport: true}
	poclCUDA := features.Platform{PlatformName: "Portable Computing Language", Vendor: "NVIDIA Corporation", ImageSupport: true}
	noImages := features.Platform{PlatformName: "NVIDIA CUDA"}
	limited := features.Config{8, 8, 1, 0, 0, 1, 1, 0, 24, 0}
	tests := []struct {
		name   string
		config features.Config
		plat   features.Platform
		ok     bool
	}{
		{"reference on NVIDIA", k.Reference, nvidia, true},
		{"reference on PoCL", k.Reference, pocl, true},
		{"maxrreg 24 on NVIDIA", limited, nvidia, true},
		{"maxrreg 24 on PoCL", limited, pocl, false},
		{"maxrreg 24 on PoCL's CUDA device", limited, poclCUDA, false},
		{"use_tex1d without images", k.Reference, noImages, false},
	}
	for _, tt := range tests {
		err := k.CheckDevice(tt.config, tt.plat)
		if tt.ok != (err == nil) || (err != nil && !errors.Is(err, ErrDevice)) {
			t.Errorf("%s: got %v, want ok=%v", tt.name, err, tt.ok)
		}
	}
}

// TestFbcorrWant compares the reference with Eq. 4 written plainly, on a
// filter count that is not a multiple of 4.
func TestFbcorrWant(t *testing.T) {
	k := Fbcorr()
	task := features.Task{9, 11, 3, 5, 3, 2}
	r, c, d, f, h, w := 9, 11, 3, 5, 3, 2
	args := k.Args(task, rand.New(rand.NewPCG(1, 2)))
	got := k.Want(task, args)
	x, fb := args[fbcorrArgX].Data, args[fbcorrArgFb].Data
	if len(fb) != 8*h*w*d {
		t.Errorf("filterbank holds %d floats, want 8 filters' %d", len(fb), 8*h*w*d)
	}
	for _, v := range fb[f*h*w*d:] {
		if v != 0 {
			t.Fatal("padding filters are not zero")
		}
	}
	oc := c - w + 1
	for y := range r - h + 1 {
		for col := range oc {
			for kk := range f {
				var s float64
				for hh := range h {
					for ww := range w {
						for dd := range d {
							s += float64(x[((y+hh)*c+col+ww)*d+dd]) * float64(fb[((kk*h+hh)*w+ww)*d+dd])
						}
					}
				}
				if g := got[(y*oc+col)*f+kk]; math.Abs(float64(g)-s) > 1e-6*s {
					t.Fatalf("Z[%d][%d][%d] = %g, want %g", y, col, kk, g, s)
				}
			}
		}
	}
	if got, want := k.Flops(task), float64(2*f*h*w*d*(r-h+1)*oc); got != want {
		t.Errorf("Flops: got %g, want %g", got, want)
	}
	if got, want := k.Bytes(task), float64(4*(r*c*d+f*h*w*d+(r-h+1)*oc*f)); got != want {
		t.Errorf("Bytes: got %g, want %g", got, want)
	}
}

func TestFbcorrDerived(t *testing.T) {
	d := Deriver("fbcorr")
	if d == nil || d.ID() != "fbcorr/2" {
		t.Fatalf(`Deriver("fbcorr") = %v, want fbcorr/2`, d)
	}
	k := Fbcorr()
	c, err := k.Space.Parse("block_h=16,block_w=4,n_filter_r=2,n_output_4s=1,spill=1,imul_fast=0,pad_shared=0,use_tex1d=0,maxrreg=0,fast_math=1")
	if err != nil {
		t.Fatal(err)
	}
	task := features.Task{100, 60, 2, 10, 5, 7}
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
	want := map[string]float64{
		"out_rows": 96, "out_cols": 54, "outputs_per_item": 4, "filter_passes": 3, "row_passes": 3,
		"groups_x": 14, "groups_y": 6, "groups": 14 * 6 * 3, "filter_waste": 12.0/10 - 1,
		"local_mem": float64(l.LocalMemBytes), "reg_limit": 255,
		// Lanes (lx, ly) read float (10 ly + lx) * 2: rows 0 and 3 (and
		// others) share banks, two lanes a bank.
		"bank_ways": 2,
		// 3 row passes of 17 x 10 staged pixels over 64 work-items, each
		// doing 4 x 5 x 7 multiply-adds a channel.
		"stage_loads_per_fma": 3.0 * 17 * 10 / (64 * 4 * 5 * 7),
		"acc_regs_frac":       4.0 / 255,
	}
	for n, w := range want {
		if math.Abs(got[n]-w) > 1e-12 {
			t.Errorf("%s = %g, want %g", n, got[n], w)
		}
	}
}

// TestFbcorrGrid checks Pinto and Cox's grid: 73 distinct configurations of
// the space, the reference first.
func TestFbcorrGrid(t *testing.T) {
	k := Fbcorr()
	if len(k.Grid) != 73 {
		t.Fatalf("grid has %d points, want 73", len(k.Grid))
	}
	if !k.Grid[0].Equal(k.Reference) {
		t.Errorf("grid starts with %s, want the reference", k.Space.Format(k.Grid[0]))
	}
	seen := map[int]bool{}
	for _, c := range k.Grid {
		if err := k.Space.Check(c); err != nil {
			t.Errorf("grid point %s: %v", k.Space.Format(c), err)
		}
		if i := k.Space.Index(c); seen[i] {
			t.Errorf("grid point %s repeated", k.Space.Format(c))
		} else {
			seen[i] = true
		}
	}
}

// TestFbcorrBankWays checks the inner loop's local-memory bank conflict
// against counts worked by hand: lane (lx, ly) reads float
// (ly * (BW + W - 1) + lx) * (D + pad) of a 32-bank memory.
func TestFbcorrBankWays(t *testing.T) {
	tests := []struct {
		name        string
		d, w        int
		bh, bw, pad int
		want        int
	}{
		{"D=32 unpadded: every lane on bank 0", 32, 1, 4, 32, 0, 32},
		{"D=32 padded: lane i on bank i", 32, 1, 4, 32, 1, 1},
		{"D=1 unpadded: consecutive floats", 1, 3, 4, 32, 0, 1},
		{"D=1 padded: even banks, two lanes each", 1, 3, 4, 32, 1, 2},
		{"D=4 unpadded, one row of 64: banks 0, 4, ..., 28", 4, 3, 4, 64, 0, 4},
		{"D=16 unpadded, a group of 16 lanes: banks 0 and 16", 16, 5, 4, 4, 0, 8},
		{"D=2, rows 20 floats apart", 2, 7, 16, 4, 0, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			task := features.Task{256, 256, tt.d, 8, 3, tt.w}
			p := fbcorrParams{bh: tt.bh, bw: tt.bw, nfr: 1, pad: tt.pad}
			if got := fbcorrBankWays(task, p); got != tt.want {
				t.Errorf("got %d ways, want %d", got, tt.want)
			}
		})
	}
}

// BenchmarkFbcorrDerive times the derived features of one configuration,
// which Choose computes for every configuration it scores.
func BenchmarkFbcorrDerive(b *testing.B) {
	d := Deriver("fbcorr")
	k := Fbcorr()
	dst := make([]float64, len(d.Names()))
	task := features.Task{1024, 1024, 16, 32, 5, 5}
	pv := features.Platform{ComputeUnits: 132, LocalMemBytes: 48 << 10}.Vector()
	c := k.Reference
	b.ReportAllocs()
	for b.Loop() {
		d.Derive(dst, task, c, pv)
	}
}

// TestFbcorrPaperShapesFile checks shapes/fbcorr-paper.txt, the task space
// for 'augur eval --next-shapes --from', against fbcorrTaskSpace. Run with
// AUGUR_WRITE_SHAPES=1 to write it.
func TestFbcorrPaperShapesFile(t *testing.T) {
	var b strings.Builder
	b.WriteString("# The fbcorr task space of Bergstra, Pinto and Cox (2012, section 5): R = C in\n")
	b.WriteString("# {256, ..., 4096}, H = W in {3, 5, 7, 9, 11}, D and F in {1, 4, 8, ..., 256}, the\n")
	b.WriteString("# correlations of 1 to 50 GFLOP: 602 shapes, one a line, for\n")
	b.WriteString("# 'augur eval --kernel fbcorr --next-shapes N --from datasets/shapes/fbcorr-paper.txt'.\n")
	k := Fbcorr()
	for _, task := range fbcorrTaskSpace() {
		b.WriteString(features.FormatTask(k.TaskNames, task) + "\n")
	}
	const path = "shapes/fbcorr-paper.txt"
	if os.Getenv("AUGUR_WRITE_SHAPES") == "1" {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != b.String() {
		t.Errorf("%s differs from fbcorrTaskSpace; write it again with AUGUR_WRITE_SHAPES=1", path)
	}
}
