package lightgbm_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestStdlibOnly keeps the format package a leaf that train and predict
// can both import: the standard library only, no cgo.
func TestStdlibOnly(t *testing.T) {
	const self = "github.com/augur-tuning/augur/predict/lightgbm"
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}} {{.Standard}} {{.CgoFiles}}", self).CombinedOutput()
	if err != nil {
		t.Skipf("go list unavailable: %v: %s", err, out)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		if f[0] != self && f[1] != "true" {
			t.Errorf("lightgbm depends on %s, want the standard library only", f[0])
		}
		if f[0] == self && !strings.HasSuffix(line, "[]") {
			t.Errorf("lightgbm uses cgo: %s", line)
		}
	}
}
