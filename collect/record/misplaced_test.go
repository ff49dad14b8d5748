package record

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v15/arrow/memory"
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

// TestMetaPlan checks that a file's collection plan is written and read
// back, that a file without one reads as "", and that the plan is outside
// the metadata checksum (the file verifies either way).
func TestMetaPlan(t *testing.T) {
	for _, plan := range []string{"sample=random:4 seed=7 shards=2", ""} {
		path := filepath.Join(t.TempDir(), "run.arrow")
		m := testMeta()
		m.Plan = plan
		writeFile(t, memory.DefaultAllocator, path, m, 0, testRows()[:2])
		got, _, err := ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if got.Plan != plan {
			t.Errorf("Plan read back as %q, want %q", got.Plan, plan)
		}
		if c := Verify(path, VerifyOptions{}); !c.OK() || !c.Verified {
			t.Errorf("plan %q: Verify = %v", plan, c)
		}
	}
}
