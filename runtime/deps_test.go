package runtime_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestNoHeavyDependencies keeps the packages a library links for Choose free
// of cgo, OpenCL, Arrow and the training code and libraries.
func TestNoHeavyDependencies(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}} {{.CgoFiles}}",
		"github.com/augur-tuning/augur/features", "github.com/augur-tuning/augur/search",
		"github.com/augur-tuning/augur/predict", "github.com/augur-tuning/augur/runtime").CombinedOutput()
	if err != nil {
		t.Skipf("go list unavailable: %v: %s", err, out)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		path, cgo, _ := strings.Cut(line, " ")
		if strings.Contains(path, "go-opencl") || strings.Contains(path, "apache/arrow") ||
			strings.Contains(path, "golearn") || path == "github.com/augur-tuning/augur/train" {
			t.Errorf("runtime depends on %s", path)
		}
		if strings.HasPrefix(path, "github.com/augur-tuning/") && cgo != "[]" {
			t.Errorf("%s uses cgo: %s", path, cgo)
		}
	}
}
