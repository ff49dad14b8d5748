package datasets

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/augur-tuning/augur/features"
)

func TestGEMMSpace(t *testing.T) {
	k := GEMM()
	tests := []struct {
		name      string
		got, want int
	}{
		{"raw size", k.Space.RawSize(), 4 * 4 * 2 * 3 * 3 * 3 * 3 * 2 * 4 * 4 * 2 * 2 * 2 * 2},
		// CLTune's paper: 241,600 configurations at M = N = K = 2048.
		{"valid", k.Space.Len(), 241600},
		{"task features", len(k.TaskNames), 3},
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
	for i, name := range gemmParamNames {
		if k.Space.Params[i].Name != name {
			t.Errorf("parameter %d: got %s, want %s", i, k.Space.Params[i].Name, name)
		}
	}
}

func TestGEMMCheckTask(t *testing.T) {
	k := GEMM()
	tests := []struct {
		task features.Task
		want string // a fragment of the error; "" for none
	}{
		{features.Task{128, 128, 32}, ""},
		{features.Task{8192, 384, 96}, ""},
		{features.Task{64, 128, 32}, "M"},
		{features.Task{192, 128, 32}, "M"},
		{features.Task{128, 8320, 32}, "N"},
		{features.Task{128, 128, 48}, "K"},
		{features.Task{128, 128, 0}, "K"},
		{features.Task{128, 128}, "has 2 features"},
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

func TestGEMMGeometry(t *testing.T) {
	k := GEMM()
	tests := []struct {
		task          features.Task
		config        string
		global, local [2]int
		localMem      int
	}{
		{features.Task{256, 128, 64}, "MWG=16,NWG=16,KWG=16,MDIMC=8,NDIMC=8,MDIMA=8,NDIMB=8,KWI=2,VWM=1,VWN=1,STRM=0,STRN=0,SA=0,SB=0",
			[2]int{128, 64}, [2]int{8, 8}, 0},
		// 2 x 1 groups of 16 x 8; tiles of 32 x 128 (A) and 32 x 64 (B).
		{features.Task{256, 128, 64}, "MWG=128,NWG=64,KWG=32,MDIMC=16,NDIMC=8,MDIMA=16,NDIMB=8,KWI=8,VWM=4,VWN=2,STRM=1,STRN=0,SA=1,SB=1",
			[2]int{32, 16}, [2]int{16, 8}, 4 * 32 * (128 + 64)},
		{features.Task{256, 128, 64}, "MWG=64,NWG=128,KWG=32,MDIMC=32,NDIMC=8,MDIMA=32,NDIMB=16,KWI=2,VWM=2,VWN=8,STRM=0,STRN=1,SA=0,SB=1",
			[2]int{128, 8}, [2]int{32, 8}, 4 * 32 * 128},
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

// TestGEMMGeometryCovers checks every valid configuration on the smallest
// and an oblong shape: whole work-groups, one per tile of C, and a
// re-shaped loading work-group of the same size.
func TestGEMMGeometryCovers(t *testing.T) {
	k := GEMM()
	dst := make([]float64, len(gemmDerivedNames))
	pv := features.Platform{ComputeUnits: 16, LocalMemBytes: 32 << 10}.Vector()
	for _, task := range []features.Task{{128, 128, 32}, {384, 1024, 96}} {
		k.Space.Each(func(c features.Config) bool {
			l, err := k.Geometry(task, c)
			if err != nil {
				t.Fatalf("Geometry(%v, %s): %v", task, k.Space.Format(c), err)
			}
			p := gemmParamsOf(c)
			groups := [2]int{l.Global[0] / l.Local[0], l.Global[1] / l.Local[1]}
			switch {
			case l.Global[0]%l.Local[0] != 0 || l.Global[1]%l.Local[1] != 0:
				t.Fatalf("Geometry(%v, %s): global %v not a multiple of local %v", task, k.Space.Format(c), l.Global, l.Local)
			case groups[0]*p.mwg != task[gemmM] || groups[1]*p.nwg != task[gemmN]:
				t.Fatalf("Geometry(%v, %s): %v groups of %d x %d do not tile C", task, k.Space.Format(c), groups, p.mwg, p.nwg)
			case task[gemmK]%p.kwg != 0 || p.kwg%p.kwi != 0:
				t.Fatalf("Geometry(%v, %s): K steps do not divide", task, k.Space.Format(c))
			case p.mdima*(p.mdimc*p.ndimc/p.mdima) != p.mdimc*p.ndimc || p.ndimb*(p.mdimc*p.ndimc/p.ndimb) != p.mdimc*p.ndimc:
				t.Fatalf("Geometry(%v, %s): loading work-groups differ in size", task, k.Space.Format(c))
			case l.LocalMemBytes > 32<<10:
				t.Fatalf("Geometry(%v, %s): %d bytes of local memory, want <= 32 KiB", task, k.Space.Format(c), l.LocalMemBytes)
			}
			k.Derived.Derive(dst, task, c, pv)
			for i, v := range dst {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					t.Fatalf("Derive(%v, %s): %s = %v", task, k.Space.Format(c), gemmDerivedNames[i], v)
				}
			}
			return true
		})
	}
}

// TestGEMMWant checks the reference implementation against the definition
// on a shape small enough to compute naively.
func TestGEMMWant(t *testing.T) {
	k := GEMM()
	task := features.Task{128, 256, 64}
	args := k.Args(task, rand.New(rand.NewPCG(1, 2)))
	got := k.Want(task, args)
	m, n, kk := task[0], task[1], task[2]
	a, b, cin := args[gemmArgA].Data, args[gemmArgB].Data, args[gemmArgCin].Data
	for _, ij := range [][2]int{{0, 0}, {127, 255}, {5, 200}, {100, 3}} {
		i, j := ij[0], ij[1]
		var s float64
		for p := 0; p < kk; p++ {
			s += float64(a[p*m+i]) * float64(b[p*n+j])
		}
		want := gemmAlpha*s + gemmBeta*float64(cin[j*m+i])
		if d := math.Abs(float64(got[j*m+i]) - want); d > 1e-6*want {
			t.Errorf("C[n=%d][m=%d] = %g, want %g", j, i, got[j*m+i], want)
		}
	}
	if f := k.Flops(task); f != 2*128*256*64 {
		t.Errorf("Flops = %g, want %d", f, 2*128*256*64)
	}
}

func TestGEMMOptions(t *testing.T) {
	k := GEMM()
	got := k.Options(features.Task{128, 128, 32}, k.Reference)
	want := "-D MWG=16 -D NWG=16 -D KWG=16 -D MDIMC=8 -D NDIMC=8 -D MDIMA=8 -D NDIMB=8 -D KWI=2 -D VWM=1 -D VWN=1 -D STRM=0 -D STRN=0 -D SA=0 -D SB=0"
	if got != want {
		t.Errorf("Options = %q, want %q", got, want)
	}
	if d := Deriver("gemm"); d == nil || d.ID() != "gemm/1" || len(d.Names()) != len(gemmDerivedNames) {
		t.Errorf("Deriver(gemm) = %v, want gemm/1 with %d names", d, len(gemmDerivedNames))
	}
}
