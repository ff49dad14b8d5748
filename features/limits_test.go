package features_test

import (
	"bytes"
	"errors"
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
