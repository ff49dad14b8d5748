package search_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestNoHeavyDependencies keeps package search free of cgo, OpenCL and
// Arrow, so that runtime can link it into a library at no cost
// (ARCHITECTURE.md).
func TestNoHeavyDependencies(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}} {{.CgoFiles}}",
		"github.com/augur-tuning/augur/search").CombinedOutput()
	if err != nil {
		t.Skipf("go list unavailable: %v: %s", err, out)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		path, cgo, _ := strings.Cut(line, " ")
		if strings.Contains(path, "go-opencl") || strings.Contains(path, "apache/arrow") {
			t.Errorf("search depends on %s", path)
		}
		if strings.HasPrefix(path, "github.com/augur-tuning/") && cgo != "[]" {
			t.Errorf("%s uses cgo: %s", path, cgo)
		}
	}
}
