package record

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestMisplaced(t *testing.T) {
	check := func(path, kernel string) *Check { return &Check{Path: path, Meta: Meta{Kernel: kernel}} }
	for _, c := range []struct {
		name   string
		checks []*Check
		want   []string // the paths Misplaced returns
	}{
		{"all in place", []*Check{check("d/gemm/h200/a.arrow", "gemm"), check("d/median/h200/b.arrow", "median")}, nil},
		{"a foreign file", []*Check{check("d/gemm/h200/a.arrow", "transpose"), check("d/gemm/h200/b.arrow", "gemm")}, []string{"d/gemm/h200/a.arrow"}},
		{"not laid out by family", []*Check{check("x/y/a.arrow", "gemm"), check("x/y/b.arrow", "median")}, nil},
		{"one file alone", []*Check{check("d/gemm/h200/a.arrow", "transpose")}, nil},
		{"unreadable meta", []*Check{check("d/gemm/h200/a.arrow", ""), check("d/gemm/h200/b.arrow", "gemm")}, nil},
	} {
		var got []string
		for _, m := range Misplaced(c.checks) {
			got = append(got, m.Path)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: Misplaced = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestVerifyPartial(t *testing.T) {
	c := Verify(filepath.Join(t.TempDir(), "run.arrow"+partialSuffix), VerifyOptions{})
	if c.OK() || !strings.Contains(c.Err.Error(), "augur recover") {
		t.Errorf("Verify of a partial stream: %v, want an error pointing at augur recover", c.Err)
	}
}
