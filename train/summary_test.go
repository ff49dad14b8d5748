package train

import (
	"strings"
	"testing"

	"github.com/augur-tuning/augur/features"
)

// TestWriteSummaryPool: a device's model says which model serves it and,
// when the choice was scored, both models' held-out picks; a device of
// many shapes whose choice was not scored (PoolOptions.Figures) says so
// instead of printing zeros.
func TestWriteSummaryPool(t *testing.T) {
	b, err := features.ReadBundleFile("../testdata/conv2d-h200.augur")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		pool *features.PoolChoice
		want string
	}{
		{"scored, fleet", &features.PoolChoice{Fleet: true, OwnPct: 89.9, FleetPct: 94.3, OwnWorst: 82.5, FleetWorst: 89.7, Shapes: 3},
			"serves the device: the fleet model, scored with this device's features (held-out picks on its 3 shapes: own 89.9%, worst 82.5%; fleet 94.3%, worst 89.7%)\n"},
		{"not scored", &features.PoolChoice{Shapes: 12},
			"serves the device: this model (a device of 12 shapes keeps its own model; its picks were not scored)\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nb := *b
			nb.Models = []features.Model{b.Models[0]}
			nb.Models[0].Pool = tc.pool
			var sb strings.Builder
			if err := WriteSummary(&sb, &nb); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(sb.String(), tc.want) {
				t.Errorf("summary lacks %q:\n%s", tc.want, sb.String())
			}
		})
	}
}
