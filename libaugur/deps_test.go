package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestNoHeavyDependencies keeps libaugur free of OpenCL, Arrow and the
// training code: it links the runtime alone, and no augur package but
// libaugur itself uses cgo.
func TestNoHeavyDependencies(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}} {{.CgoFiles}}", ".").CombinedOutput()
	if err != nil {
		t.Skipf("go list unavailable: %v: %s", err, out)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		path, cgo, _ := strings.Cut(line, " ")
		switch {
		case strings.Contains(path, "go-opencl"), strings.Contains(path, "apache/arrow"), strings.Contains(path, "golearn"),
			strings.HasPrefix(path, "github.com/augur-tuning/augur/train"), strings.HasPrefix(path, "github.com/augur-tuning/augur/collect"),
			strings.HasPrefix(path, "github.com/augur-tuning/augur/eval"):
			t.Errorf("libaugur depends on %s", path)
		case path == "github.com/augur-tuning/augur/libaugur":
		case strings.HasPrefix(path, "github.com/augur-tuning/") && cgo != "[]":
			t.Errorf("%s uses cgo: %s", path, cgo)
		}
	}
}
