package features_test

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/augur-tuning/augur/features"
)

func TestBundleLimits(t *testing.T) {
	many := func(n int) []int {
		v := make([]int, n)
		for i := range v {
			v[i] = i
		}
		return v
	}
	tests := []struct {
		name   string
		change func(b *features.Bundle)
		want   string
	}{
		{"1M values", func(b *features.Bundle) { b.Params[0].Values = many(1_000_000) }, "has 1000000 values"},
		{"too many params", func(b *features.Bundle) {
			for i := range features.MaxParams {
				b.Params = append(b.Params, features.Param{Name: "p" + strings.Repeat("x", i), Values: []int{1}})
			}
		}, "parameters, at most 64"},
		{"huge space", func(b *features.Bundle) {
			for i := range 8 {
				b.Params = append(b.Params, features.Param{Name: "q" + strings.Repeat("x", i), Values: many(4096)})
			}
		}, "configurations, at most"},
		{"long constraint", func(b *features.Bundle) {
			b.Constraints = append(b.Constraints, strings.Repeat("(", 5000))
		}, "bytes long"},
		{"many constraints", func(b *features.Bundle) {
			for range 300 {
				b.Constraints = append(b.Constraints, "Xwg > 0")
			}
		}, "302 constraints"},
		{"a loop in a constraint", func(b *features.Bundle) {
			b.Constraints = append(b.Constraints, "all(1..100000, {all(1..100000, {# > 0})}) or Xwg > 0")
		}, "uses"},
		{"a range in a constraint", func(b *features.Bundle) {
			b.Constraints = append(b.Constraints, "Xwg in 1..100000000")
		}, "operator .."},
		{"costly constraints", func(b *features.Bundle) {
			// Every parameter but the last two named, 4,096 combinations
			// a constraint, tabulated; 100 constraints of about 1,000
			// nodes.
			c := strings.Repeat("Xwg * Ywg + Xwpt * Ywpt + LS * VW + ", 80) + "0 > 0"
			for range 100 {
				b.Constraints = append(b.Constraints, c)
			}
		}, "steps to evaluate"},
		{"a loop in a derived expression", func(b *features.Bundle) {
			b.DerivedExprs = []string{"slow = all(1..999999, {# > 0}) ? Xwg : 0"}
		}, "derived expression 0"},
		{"many models", func(b *features.Bundle) {
			for range features.MaxBundleModels {
				b.Models = append(b.Models, features.Model{Name: "x"})
			}
		}, "models, at most"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := features.ReadBundleFile("../testdata/conv2d-pocl.augur")
			if err != nil {
				t.Fatal(err)
			}
			tt.change(b)
			var buf bytes.Buffer
			if err := features.WriteBundle(&buf, b); err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			_, err = features.ReadBundle(buf.Bytes())
			if !errors.Is(err, features.ErrLimit) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want ErrLimit with %q", err, tt.want)
			}
			t.Logf("%d bytes refused in %v", buf.Len(), time.Since(start))
		})
	}
}

func TestExprNodes(t *testing.T) {
	tests := []struct {
		expr  string
		nodes int // 0: refused with ErrLimit
	}{
		{"Xwpt % VW == 0", 5},
		{"LS != 0 || PAD == 0", 7},
		{"KWG % int(MDIMC * NDIMC / MDIMA) == 0", 10},
		{"a in [1, 2, 4] and not (b > max(a, 3))", 13},
		{"a > 1 ? b : c", 6},
		{"int(floor(a / b)) ** 2 >= abs(-c)", 11},
		{"all(1..10, {# > a})", 0},
		{"a in 1..10", 0},
		{"len([1, 2]) > a", 0},
		{`a == len("xx")`, 0},
		{"let x = a; x > 1", 0},
		{"{a: 1}.a > 0", 0},
		{"a matches 'x'", 0},
	}
	for _, tt := range tests {
		got, err := features.ExprNodes(tt.expr)
		switch {
		case tt.nodes == 0 && !errors.Is(err, features.ErrLimit):
			t.Errorf("ExprNodes(%q) = %d, %v; want ErrLimit", tt.expr, got, err)
		case tt.nodes > 0 && (err != nil || got != tt.nodes):
			t.Errorf("ExprNodes(%q) = %d, %v; want %d", tt.expr, got, err, tt.nodes)
		}
	}
	if _, err := features.ExprNodes("a >"); !errors.Is(err, features.ErrSyntax) {
		t.Errorf("ExprNodes of a syntax error: %v, want ErrSyntax", err)
	}
}

// TestShippedBundlesLoad checks that every bundle the repository ships
// stays within the limits.
func TestShippedBundlesLoad(t *testing.T) {
	paths, _ := filepath.Glob("../testdata/*.augur")
	more, _ := filepath.Glob("../examples/*/*.augur")
	for _, p := range append(paths, more...) {
		start := time.Now()
		if _, err := features.ReadBundleFile(p); err != nil {
			t.Errorf("%s: %v", p, err)
		}
		t.Logf("%s read in %v", p, time.Since(start))
	}
	if len(paths) == 0 {
		t.Fatal("no bundles under ../testdata")
	}
}

// BenchmarkNewSpaceAtWorkLimit builds a space whose one constraint costs
// just under MaxConstraintWork: 31 nodes evaluated by Calc on each of 4M
// raw configurations, walked for the validity bitmap. Its time is about
// the most constraint evaluation a bundle may make its loader do.
func BenchmarkNewSpaceAtWorkLimit(b *testing.B) {
	vals := func(n int) []int {
		v := make([]int, n)
		for i := range v {
			v[i] = i + 1
		}
		return v
	}
	// 4M raw configurations (a validity bitmap) and a constraint over all
	// four parameters, too many combinations to tabulate: evaluated on
	// every configuration of the walk, as the benchmark hub's hotspot is.
	params := []features.Param{{Name: "a", Values: vals(64)}, {Name: "b", Values: vals(64)}, {Name: "c", Values: vals(32)}, {Name: "d", Values: vals(32)}}
	c := "a * b + c * d + a * c + b * d + a * d + b * c + a + b - 8 > 0"
	n, err := features.ExprNodes(c)
	if err != nil {
		b.Fatal(err)
	}
	if work := n * 64 * 64 * 32 * 32; work > features.MaxConstraintWork || work < features.MaxConstraintWork*8/10 {
		b.Fatalf("work %d, want just under %d", work, features.MaxConstraintWork)
	}
	for b.Loop() {
		if _, err := features.NewSpace(params, []string{c}); err != nil {
			b.Fatal(err)
		}
	}
}
