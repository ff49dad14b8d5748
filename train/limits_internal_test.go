package train

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/augur-tuning/augur/datasets"
)

// TestTypeLimits checks the resource limits of data of a GPU and a CPU: the
// limits over each type's rows are that device's own, and the limits over
// every row the larger of the two.
func TestTypeLimits(t *testing.T) {
	dir := t.TempDir()
	for _, src := range []string{"../testdata/h200-train/conv2d/nvidia-h200", "../testdata/pocl/conv2d/pocl-cpu-pthread-skylake-avx512-amd-epyc"} {
		if err := os.CopyFS(filepath.Join(dir, "conv2d", filepath.Base(src)), os.DirFS(src)); err != nil {
			t.Fatal(err)
		}
	}
	k := datasets.Conv2D()
	d, err := LoadWith(dir, "conv2d", LoadOptions{Derived: k.Derived})
	if err != nil {
		t.Fatal(err)
	}
	byType := d.typeLimits()
	all := d.limits()
	gpu, cpu := byType["gpu"], byType["cpu"]
	if len(byType) != 2 || gpu["wg_items"] == 0 || cpu["wg_items"] == 0 {
		t.Fatalf("type limits %v, want the GPU's and the CPU's work-group items", byType)
	}
	for name, v := range all {
		if want := max(gpu[name], cpu[name]); v != want {
			t.Errorf("%s: limit %v over every row, want the larger of the GPU's %v and the CPU's %v", name, v, gpu[name], cpu[name])
		}
	}
	if gpu["wg_items"] == cpu["wg_items"] {
		t.Errorf("the GPU and the CPU ran work-groups up to the same %v items: the test shows nothing", gpu["wg_items"])
	}
	var rows []int
	for i, s := range d.Samples() {
		if s.Platform == 0 {
			rows = append(rows, i)
		}
	}
	if one := d.Subset(rows); one.typeLimits() != nil {
		t.Errorf("data of one device has type limits %v, want none", d.Subset(rows).typeLimits())
	}
}
