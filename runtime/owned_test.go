package runtime_test

import (
	"errors"
	"math"
	"os"
	"testing"

	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/runtime"
)

// TestPicksAreTheCallers: a pick's plan values, and the Platform given to
// New, are not shared with the Chooser: changing them changes no later
// pick.
func TestPicksAreTheCallers(t *testing.T) {
	data, err := os.ReadFile("../libaugur/testdata/specscale.augur") // a spec kernel whose configuration sets two arguments
	if err != nil {
		t.Fatal(err)
	}
	ch, err := runtime.New(data, runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	shape := make(features.Task, len(ch.TaskNames()))
	for i := range shape {
		shape[i] = 4096
	}
	first, err := ch.ChoosePick(shape)
	if err != nil || len(first.Plan.Values) == 0 {
		t.Fatalf("pick %+v, %v: want plan values", first, err)
	}
	want := map[string]float64{}
	for k, v := range first.Plan.Values {
		want[k] = v
		first.Plan.Values[k] = -1
	}
	cands, _ := ch.Candidates(shape, 1)
	again, _ := ch.ChoosePick(shape)
	for k, v := range want {
		if again.Plan.Values[k] != v || cands[0].Plan.Values[k] != v {
			t.Errorf("%s: %v and %v after the caller changed its copy, want %v", k, again.Plan.Values[k], cands[0].Plan.Values[k], v)
		}
	}

	pocl, _ := os.ReadFile(testBundle)
	plain, _ := runtime.New(pocl, runtime.Options{})
	shape = features.Task{1920, 1080, 5, 5}
	model, _ := plain.ChoosePick(shape)
	// A Platform of a name alone has no limits to say what runs: the
	// model's own device's serve, and the pick is the model's.
	named, err := runtime.New(pocl, runtime.Options{Platform: &features.Platform{Name: "My GPU"}})
	if err != nil {
		t.Fatal(err)
	}
	if p, _ := named.ChoosePick(shape); !p.Config.Equal(model.Config) || math.IsInf(p.LogSpeedup, 0) {
		t.Errorf("a Platform without limits: %v (log-speedup %g), want the model's pick %v", p.Config, p.LogSpeedup, model.Config)
	}
	// The caller's Platform changed after New changes nothing.
	plat := features.Platform{Name: "My GPU", MaxWorkGroupSize: 1024, MaxWorkItemSizes: [3]int{1024, 1024, 64}, LocalMemBytes: 64 << 10}
	mine, err := runtime.New(pocl, runtime.Options{Platform: &plat})
	if err != nil {
		t.Fatal(err)
	}
	before, _ := mine.ChoosePick(features.Task{1000, 700, 3, 3})
	plat = features.Platform{}
	if after, _ := mine.ChoosePick(features.Task{700, 1000, 3, 3}); after.Source != before.Source {
		t.Errorf("source %q after the caller cleared its Platform, was %q", after.Source, before.Source)
	}
	if _, err := plain.Predict(features.Task{1024, 768, 4, 4}, model.Config); !errors.Is(err, runtime.ErrShape) {
		t.Errorf("Predict of an even filter: %v, want ErrShape", err)
	}
	if c, err := plain.Candidates(shape, math.MaxInt); err != nil || len(c) < 2 {
		t.Errorf("Candidates(MaxInt): %d, %v", len(c), err)
	}
	if _, err := runtime.New(pocl, runtime.Options{Starts: 1 << 30}); err == nil {
		t.Error("Starts of 2^30 accepted")
	}
}
