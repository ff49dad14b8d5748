package features_test

import (
	"errors"
	"testing"

	"github.com/augur-tuning/augur/features"
)

func TestExprDeriver(t *testing.T) {
	s, err := features.NewSpace([]features.Param{
		{Name: "block_size_x", Values: []int{16, 32}},
		{Name: "tile_size_x", Values: []int{1, 2, 4}},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	d, err := features.NewExprDeriver([]string{
		"tile_x = block_size_x * tile_size_x",
		"groups = ceil(width / (block_size_x * tile_size_x))",
		"bad = width / (tile_size_x - 1)", // division by zero at tile_size_x = 1
		"rem = width % block_size_x",      // % of floats, as Python's
	}, []string{"width"}, s)
	if err != nil {
		t.Fatal(err)
	}
	if got := d.Names(); len(got) != 4 || got[0] != "tile_x" || got[2] != "bad" {
		t.Errorf("Names() = %v", got)
	}
	dst := make([]float64, 4)
	d.Derive(dst, features.Task{1000}, features.Config{32, 1}, nil)
	if dst[0] != 32 || dst[1] != 32 || dst[2] != 0 || dst[3] != 8 {
		t.Errorf("Derive = %v, want [32 32 0 8] (a failed expression gives 0)", dst)
	}
	enc := features.NewEncoder([]string{"width"}, s).WithDerived(d)
	want := []string{"task.width", "param.block_size_x", "param.tile_size_x", "derived.tile_x", "derived.groups", "derived.bad", "derived.rem"}
	for i, n := range want {
		if enc.Names()[i] != n {
			t.Errorf("column %d is %q, want %q", i, enc.Names()[i], n)
		}
	}
	for _, defs := range [][]string{{"no equals sign"}, {"a = unknown_name * 2"}, {"a = 1", "a = 2"}, {"a b = 1"}} {
		if _, err := features.NewExprDeriver(defs, []string{"width"}, s); !errors.Is(err, features.ErrSyntax) {
			t.Errorf("NewExprDeriver(%q): err = %v, want ErrSyntax", defs, err)
		}
	}
}

// FuzzExprDeriver feeds arbitrary definitions to NewExprDeriver: a
// definition it accepts derives a value for every input without panicking
// (an expression that divides by zero gives an infinity, not a crash).
func FuzzExprDeriver(f *testing.F) {
	for _, def := range []string{"tile = bx * tx", "x = width / (bx + 0)", "y = bx > 2 ? 1 : 0", "bad", "= 1", "z = foo(1)", "w = width ** 40"} {
		f.Add(def)
	}
	s, err := features.NewSpace([]features.Param{{Name: "bx", Values: []int{1, 2, 4}}, {Name: "tx", Values: []int{1, 8}}}, nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, def string) {
		d, err := features.NewExprDeriver([]string{def}, []string{"width"}, s)
		if err != nil {
			return
		}
		dst := make([]float64, len(d.Names()))
		for _, c := range s.All() {
			d.Derive(dst, features.Task{64}, c, nil)
		}
	})
}
