package datasets_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/features"
)

func TestLookup(t *testing.T) {
	if got := datasets.Names(); !slices.Contains(got, "conv2d") || !slices.IsSorted(got) {
		t.Errorf("Names() = %v, want sorted names with conv2d", got)
	}
	k, err := datasets.Lookup("conv2d")
	if err != nil {
		t.Fatal(err)
	}
	if k.Name != "conv2d" || k.Space.Len() != 6400 || k.Version() != datasets.Conv2D().Version() {
		t.Errorf("Lookup(conv2d) = %s with %d valid configurations, version %s", k.Name, k.Space.Len(), k.Version())
	}
	if _, err := datasets.Lookup("nosuch"); !errors.Is(err, datasets.ErrUnknownKernel) {
		t.Errorf("Lookup(nosuch): err = %v, want ErrUnknownKernel", err)
	}
	if d := datasets.Deriver("conv2d"); d == nil || d.ID() != k.Derived.ID() {
		t.Errorf("Deriver(conv2d) = %v, want %s's", d, k.Derived.ID())
	}
	if d := datasets.Deriver("nosuch"); d != nil {
		t.Errorf("Deriver(nosuch) = %v, want nil", d)
	}
}

func TestRegistry(t *testing.T) {
	r := datasets.NewRegistry()
	a, err := r.Lookup("conv2d")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := r.Lookup("conv2d")
	if a != b {
		t.Error("second Registry.Lookup built the family again")
	}
	if ks := r.Kernels(); len(ks) != len(datasets.Names()) || !slices.Contains(ks, a) {
		t.Errorf("Registry.Kernels() = %v, want the kernel Lookup returned", ks)
	}
	if _, err := r.Lookup("nosuch"); !errors.Is(err, datasets.ErrUnknownKernel) {
		t.Errorf("Registry.Lookup(nosuch): err = %v, want ErrUnknownKernel", err)
	}
	if other := datasets.NewRegistry(); mustLookup(t, other, "conv2d") == a {
		t.Error("two registries share a kernel")
	}
}

func mustLookup(t *testing.T, r *datasets.Registry, name string) *datasets.Kernel {
	t.Helper()
	k, err := r.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestLookupWithSpace(t *testing.T) {
	own := datasets.Conv2D()
	same, err := features.NewSpace(own.Space.Params, own.Space.Constraints)
	if err != nil {
		t.Fatal(err)
	}
	fewer, err := features.NewSpace(own.Space.Params, own.Space.Constraints[:1])
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		space *features.Space
		share bool
	}{
		{"the family's space", same, true},
		{"another space", fewer, false},
		{"no space", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k, err := datasets.LookupWithSpace("conv2d", tt.space)
			if err != nil {
				t.Fatal(err)
			}
			if got := k.Space == tt.space; got != tt.share {
				t.Errorf("shares the space: %v, want %v", got, tt.share)
			}
			if k.Version() != own.Version() {
				t.Errorf("Version() = %s, want the family's %s", k.Version(), own.Version())
			}
		})
	}
}

func TestDefine(t *testing.T) {
	space, err := features.NewSpace([]features.Param{{Name: "WG", Values: []int{4, 8}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	data := datasets.Kernel{Name: "copy", Space: space, TaskNames: []string{"n"}, Reference: features.Config{4}}
	full := datasets.Define(data, datasets.Funcs{
		Options: func(_ features.Task, c features.Config) string { return "-D WG=" + string(rune('0'+c[0])) },
		Geometry: func(t features.Task, c features.Config) (datasets.Launch, error) {
			return datasets.Launch{Dims: 1, Global: [3]int{t[0]}, Local: [3]int{c[0]}}, nil
		},
		Flops: func(t features.Task) float64 { return float64(t[0]) },
	})
	bare := &data // a Kernel literal: data only
	n := features.Task{64}
	if got := full.Options(n, features.Config{8}); got != "-D WG=8" {
		t.Errorf("Options = %q", got)
	}
	if l, err := full.Geometry(n, features.Config{8}); err != nil || l.Local[0] != 8 {
		t.Errorf("Geometry = %+v, %v", l, err)
	}
	tests := []struct {
		name string
		err  error
		want error
	}{
		{"shape of the wrong length", full.CheckTask(features.Task{1, 2}), datasets.ErrTask},
		{"configuration outside the space", second(full.Geometry(n, features.Config{5})), datasets.ErrConfig},
		{"no geometry in a literal", second(bare.Geometry(n, features.Config{4})), datasets.ErrNoBehaviour},
		{"a literal checks lengths", bare.CheckTask(nil), datasets.ErrTask},
		{"a literal takes any shape of the right length", bare.CheckTask(n), nil},
	}
	for _, tt := range tests {
		if !errors.Is(tt.err, tt.want) || (tt.want == nil && tt.err != nil) {
			t.Errorf("%s: err = %v, want %v", tt.name, tt.err, tt.want)
		}
	}
	if full.Flops(n) != 64 || full.Bytes(n) != 0 || bare.Flops(n) != 0 {
		t.Errorf("Flops, Bytes = %g, %g; literal Flops %g; want 64, 0, 0", full.Flops(n), full.Bytes(n), bare.Flops(n))
	}
	if full.Args(n, rand.New(rand.NewPCG(1, 2))) != nil || bare.Want(n, nil) != nil || bare.Options(n, features.Config{4}) != "" {
		t.Error("undefined Args, Want or Options gave something")
	}
}

func second[T any](_ T, err error) error { return err }

func TestGroupParams(t *testing.T) {
	for _, tt := range []struct {
		kernel, want, err string
	}{
		{"conv2d", "[Xwg Ywg]", ""},
		{"stencil", "[WX WY WZ]", ""},
		{"gemm", "", "names no work-group parameters"},
		{"convolution", "", "unknown kernel"},
	} {
		got, err := datasets.GroupParams(tt.kernel)
		if tt.err == "" && (err != nil || fmt.Sprint(got) != tt.want) {
			t.Errorf("GroupParams(%s) = %v, %v; want %s", tt.kernel, got, err, tt.want)
		}
		if tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
			t.Errorf("GroupParams(%s) error %v, want one with %q", tt.kernel, err, tt.err)
		}
	}
}
