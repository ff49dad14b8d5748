package eval_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestNoCgo keeps eval, which replays recorded data, free of cgo and of
// OpenCL: the device workflows live in package tune.
func TestNoCgo(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}} {{.CgoFiles}}",
		"github.com/augur-tuning/augur/eval").CombinedOutput()
	if err != nil {
		t.Skipf("go list unavailable: %v: %s", err, out)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		path, cgo, _ := strings.Cut(line, " ")
		if strings.Contains(path, "go-opencl") || path == "github.com/augur-tuning/augur/collect" || path == "github.com/augur-tuning/augur/collect/opencl" {
			t.Errorf("eval depends on %s", path)
		}
		// The standard library's cgo (net, os/user) has pure-Go
		// fallbacks; packages outside it have none.
		first, _, _ := strings.Cut(path, "/")
		if cgo != "[]" && cgo != "" && strings.Contains(first, ".") {
			t.Errorf("eval depends on %s, which uses cgo: %s", path, cgo)
		}
	}
}
