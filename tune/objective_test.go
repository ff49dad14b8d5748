package tune

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/augur-tuning/augur/collect"
	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/search"
)

// TestMeasureObjective climbs three steps on the first OpenCL device (PoCL
// on a machine without a GPU) with real measurements.
func TestMeasureObjective(t *testing.T) {
	if devs, err := collect.ListDevices(); err != nil || len(devs) == 0 {
		t.Skip("no OpenCL device")
	}
	k := datasets.Conv2D()
	obj := MeasureObjective(context.Background(), k, features.Task{64, 48, 3, 3}, collect.Options{Repeats: 1})
	res, err := search.Run(search.HillClimb{Steps: 3, Start: k.Reference}, k.Space, obj, rand.New(rand.NewPCG(1, 1)), search.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Evals != 4 || !k.Space.Valid(res.Best) {
		t.Errorf("climb = %+v, want 4 evaluations and a valid best", res)
	}
}
