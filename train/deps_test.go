package train_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestUpstreamOnly keeps train upstream of the bundle's consumers: data
// moves one way, so of augur's packages train may import
// only the shared vocabulary, the dataset reader and the LightGBM format;
// whatever needs the runtime's picks (the bundle's policy for a device it
// has no model of) lives in eval.
func TestUpstreamOnly(t *testing.T) {
	const self = "github.com/augur-tuning/augur/train"
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", self).CombinedOutput()
	if err != nil {
		t.Skipf("go list unavailable: %v: %s", err, out)
	}
	allowed := map[string]bool{self: true}
	for _, p := range []string{"features", "collect/record", "predict/lightgbm"} {
		allowed["github.com/augur-tuning/augur/"+p] = true
	}
	for _, path := range strings.Fields(string(out)) {
		if strings.HasPrefix(path, "github.com/augur-tuning/augur/") && !allowed[path] {
			t.Errorf("train depends on %s", path)
		}
	}
}
