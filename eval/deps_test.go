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

// TestNoRenderers keeps eval to results: the tables and plots of its
// reports are cmd/augur's (report.go, plots.go). eval imports no
// text/tabwriter (train, below it, still lays out its own report) and
// depends on no plotting library.
func TestNoRenderers(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.Imports}} {{.Deps}}", "github.com/augur-tuning/augur/eval").CombinedOutput()
	if err != nil {
		t.Skipf("go list unavailable: %v: %s", err, out)
	}
	imports, deps, _ := strings.Cut(string(out), "] [")
	if strings.Contains(imports, "text/tabwriter") {
		t.Error("eval imports text/tabwriter")
	}
	if strings.Contains(deps, "gonum.org/v1/plot") {
		t.Error("eval depends on gonum.org/v1/plot")
	}
}
