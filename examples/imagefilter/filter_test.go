package imagefilter_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/augur-tuning/augur/collect/opencl"
	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/examples/imagefilter"
	"github.com/augur-tuning/augur/features"
)

// TestTuneInMemory checks that without a wisdom file the timed winner of a
// shape is kept and used at the next call.
func TestTuneInMemory(t *testing.T) {
	devs, err := opencl.Devices()
	if err != nil {
		t.Skip(err)
	}
	if _, err := imagefilter.Open(devs[0], imagefilter.Options{Tune: -1}); err == nil {
		t.Error("Open accepted Tune = -1")
	}
	f, err := imagefilter.Open(devs[0], imagefilter.Options{Tune: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	k := datasets.Conv2D()
	s := features.Task{200, 100, 5, 3}
	args := k.Args(s, rand.New(rand.NewPCG(3, 4)))
	var picks []features.Config
	for range 2 {
		out, pick, err := f.Apply(context.Background(), args[2].Data, s[0], s[1], args[3].Data, s[2], s[3])
		if err != nil {
			t.Fatal(err)
		}
		if !near(out, k.Want(s, args), k.Tolerance) {
			t.Fatalf("output of %v differs from the Go reference", pick.Config)
		}
		picks = append(picks, pick.Config)
	}
	if !picks[0].Equal(picks[1]) {
		t.Errorf("second call ran %v, want the first call's winner %v", picks[1], picks[0])
	}
}
