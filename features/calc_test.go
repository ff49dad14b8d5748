package features

import (
	"math"
	"testing"
)

func TestCalc(t *testing.T) {
	names := []string{"a", "b", "c"}
	vars := []float64{7, 2, -3}
	tests := []struct {
		python string
		want   float64
	}{
		{"a + b * c", 1},
		{"(a + b) * c", -27},
		{"a / b", 3.5},
		{"a // b", 3},
		{"c // b", -2},
		{"a % b", 1},
		{"c % b", 1},
		{"a ** b", 49},
		{"a > b and not c > 0", 1},
		{"a < b or b == 2", 1},
		{"1 < b < 3", 1},
		{"b in [1, 2, 3]", 1},
		{"b not in [1, 3]", 1},
		{"min(a, b, c) + max(a, b)", 4},
		{"abs(c) + int(a / b)", 6},
		{"-a", -7},
		{"a & b | c", -1}, // as python3
		{"a ^ b", 5},
		{"~c", 2},
		{"a << b", 28},
		{"c >> 1", -2},
		{"(a & (a - 1)) == 0", 0},
		{"a if b > c else c", 7},
	}
	for _, tc := range tests {
		src, err := TranslatePython(tc.python)
		if err != nil {
			t.Fatalf("%s: %v", tc.python, err)
		}
		c, err := CompileCalc(src, names)
		if err != nil {
			t.Fatalf("%s (%s): %v", tc.python, src, err)
		}
		if got := c.Eval(vars); got != tc.want {
			t.Errorf("%s = %g, want %g", tc.python, got, tc.want)
		}
	}
	if c, _ := CompileCalc("a / (b - 2)", names); !math.IsInf(c.Eval(vars), 1) {
		t.Error("division by zero is not +Inf")
	}
	for _, bad := range []string{"a + d", "a +", `"x" + a`, "len(a)"} {
		if _, err := CompileCalc(bad, names); err == nil {
			t.Errorf("%s compiled", bad)
		}
	}
}

func BenchmarkCalc(b *testing.B) {
	c, err := CompileCalc("int(floor(a / (b * c))) * b + max(a, 4)", []string{"a", "b", "c"})
	if err != nil {
		b.Fatal(err)
	}
	vars := []float64{1000, 16, 2}
	b.ReportAllocs()
	for b.Loop() {
		c.Eval(vars)
	}
}

// TestExprDeriverCalc checks that ExprDeriver's compiled path gives what
// expr's interpreter gives.
func TestExprDeriverCalc(t *testing.T) {
	s, err := NewSpace([]Param{{Name: "bx", Values: []int{8, 16, 32}}, {Name: "wpt", Values: []int{1, 3}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defs := []string{"tile = bx * wpt", "groups = ceil(n / (bx * wpt))", "waste = (ceil(n / bx) * bx) / n - 1", "odd = wpt > 1 ? 2 : 0", "zero = n / (bx - bx)"}
	fast, err := NewExprDeriver(defs, []string{"n"}, s)
	if err != nil {
		t.Fatal(err)
	}
	if fast.calcs == nil {
		t.Fatal("the definitions did not compile into closures")
	}
	slow, _ := NewExprDeriver(defs, []string{"n"}, s)
	slow.calcs = nil
	a, b := make([]float64, len(defs)), make([]float64, len(defs))
	for _, n := range []int{1, 7, 100, 1000} {
		s.Each(func(c Config) bool {
			fast.Derive(a, Task{n}, c, nil)
			slow.Derive(b, Task{n}, c, nil)
			for i := range a {
				if a[i] != b[i] {
					t.Errorf("n=%d %v: %s = %g compiled, %g interpreted", n, c, defs[i], a[i], b[i])
				}
			}
			return true
		})
	}
}
