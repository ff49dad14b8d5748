package runtime_test

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/runtime"
)

func TestCandidates(t *testing.T) {
	pocl := load(t, runtime.Options{})
	fleetData, err := os.ReadFile("../testdata/conv2d-fleet.augur")
	if err != nil {
		t.Fatal(err)
	}
	fleet, err := runtime.New(fleetData, runtime.Options{Model: "fleet"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		ch    *runtime.Chooser
		shape features.Task
		k     int
		want  int
	}{
		{"one", pocl, features.Task{1024, 768, 5, 5}, 1, 1},
		{"five", pocl, features.Task{1024, 768, 5, 5}, 5, 5},
		{"eight, unseen shape", pocl, features.Task{3000, 200, 7, 7}, 8, 8},
		{"fleet model", fleet, features.Task{1920, 1080, 3, 3}, 5, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.ch.Candidates(tc.shape, tc.k)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != tc.want {
				t.Fatalf("got %d candidates, want %d", len(got), tc.want)
			}
			pick, _ := tc.ch.ChoosePick(tc.shape)
			if !got[0].Config.Equal(pick.Config) || got[0].Source != pick.Source {
				t.Errorf("first candidate %v from %q, Choose %v from %q", got[0].Config, got[0].Source, pick.Config, pick.Source)
			}
			seen := map[int]bool{}
			for i, p := range got {
				idx := tc.ch.Space().Index(p.Config)
				if seen[idx] || !tc.ch.Space().Valid(p.Config) {
					t.Errorf("candidate %d %v: repeated or invalid", i, p.Config)
				}
				seen[idx] = true
				if i > 1 && p.Source != runtime.SourceNear && p.LogSpeedup > got[i-1].LogSpeedup {
					t.Errorf("candidate %d predicted %g, above candidate %d's %g", i, p.LogSpeedup, i-1, got[i-1].LogSpeedup)
				}
				if plan, _ := tc.ch.Plan(tc.shape, p.Config); plan.BuildOptions != p.Plan.BuildOptions {
					t.Errorf("candidate %d plan %q, want %q", i, p.Plan.BuildOptions, plan.BuildOptions)
				}
			}
			// The caller owns the result.
			got[0].Config[0] = -1
			if again, _ := tc.ch.ChoosePick(tc.shape); !again.Config.Equal(pick.Config) {
				t.Error("changing a candidate changed the cached pick")
			}
		})
	}
	if _, err := pocl.Candidates(features.Task{1024, 768, 5, 5}, 0); err == nil {
		t.Error("Candidates accepted k = 0")
	}
	if _, err := pocl.Candidates(features.Task{1024, 768, 4, 4}, 3); !errors.Is(err, runtime.ErrShape) {
		t.Errorf("Candidates of an even filter: %v, want ErrShape", err)
	}
}

// TestCandidatesNear checks that the measured bests of the training shapes
// nearest the asked one (Bundle.Measured) follow the pick, in turn with the
// model's ranking, and that other devices' bests and far shapes' do not.
func TestCandidatesNear(t *testing.T) {
	data, err := os.ReadFile(testBundle)
	if err != nil {
		t.Fatal(err)
	}
	b, err := features.ReadBundle(data)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := runtime.FromBundle(b, runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	shape := features.Task{1024, 768, 5, 5}
	ranked, err := plain.Candidates(shape, 64)
	if err != nil {
		t.Fatal(err)
	}
	// Measured bests that the model ranks low, so that the ranking alone
	// would not return them among the first few.
	low, lower := ranked[len(ranked)-2].Config, ranked[len(ranked)-1].Config
	other := ranked[len(ranked)-3].Config
	device := b.Models[0].Name
	b.Measured = []features.MeasuredBest{
		{Device: device, Task: features.Task{1024, 1024, 5, 5}, Config: low, TimeNs: 1},
		{Device: device, Task: features.Task{800, 600, 5, 5}, Config: lower, TimeNs: 1},
		{Device: "another-device", Task: features.Task{1024, 768, 3, 3}, Config: other, TimeNs: 1},
	}
	for range 4 { // far shapes, beyond Options.Starts = 2 below
		b.Measured = append(b.Measured, features.MeasuredBest{Device: device, Task: features.Task{8192, 8192, 3, 3}, Config: other, TimeNs: 1})
	}
	ch, err := runtime.FromBundle(b, runtime.Options{Starts: 2})
	if err != nil {
		t.Fatal(err)
	}
	got, err := ch.Candidates(shape, 5)
	if err != nil {
		t.Fatal(err)
	}
	var sources []string
	for _, p := range got {
		sources = append(sources, p.Source)
	}
	model := "model:" + device
	if want := []string{model, runtime.SourceNear, model, runtime.SourceNear, model}; !slices.Equal(sources, want) {
		t.Fatalf("sources %v, want %v", sources, want)
	}
	if !got[0].Config.Equal(ranked[0].Config) || !got[2].Config.Equal(ranked[1].Config) || !got[4].Config.Equal(ranked[2].Config) {
		t.Errorf("the model's candidates %v %v %v, want the ranking's first three", got[0].Config, got[2].Config, got[4].Config)
	}
	near := []features.Config{got[1].Config, got[3].Config}
	if !slices.ContainsFunc(near, low.Equal) || !slices.ContainsFunc(near, lower.Equal) {
		t.Errorf("nearby candidates %v, want %v and %v", near, low, lower)
	}
	if got[1].LogSpeedup < got[3].LogSpeedup {
		t.Errorf("nearby candidates predicted %g then %g, want best predicted first", got[1].LogSpeedup, got[3].LogSpeedup)
	}
}

// TestCandidatesPrefix checks that Candidates of k is the first k of
// Candidates of a larger k, for every k: Candidates ranks only as many
// configurations as k and the nearby bests can take, and a nearby best
// that the ranking also holds (the first two measured here are the
// model's own second and third) must not leave the list short.
func TestCandidatesPrefix(t *testing.T) {
	data, err := os.ReadFile(testBundle)
	if err != nil {
		t.Fatal(err)
	}
	b, err := features.ReadBundle(data)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := runtime.FromBundle(b, runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	shape := features.Task{1024, 768, 5, 5}
	ranked, err := plain.Candidates(shape, 64)
	if err != nil {
		t.Fatal(err)
	}
	device := b.Models[0].Name
	for i, cfg := range []features.Config{ranked[1].Config, ranked[2].Config, ranked[40].Config, ranked[0].Config} {
		b.Measured = append(b.Measured, features.MeasuredBest{Device: device, Task: features.Task{1024 + 64*i, 768, 5, 5}, Config: cfg, TimeNs: 1})
	}
	for _, ch := range []*runtime.Chooser{plain, mustFromBundle(t, b)} {
		for _, s := range []features.Task{shape, {3000, 200, 7, 7}, {64, 4096, 3, 3}} {
			all, err := ch.Candidates(s, 40)
			if err != nil {
				t.Fatal(err)
			}
			for k := 1; k <= len(all); k++ {
				got, err := ch.Candidates(s, k)
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != k {
					t.Fatalf("%v k=%d: %d candidates", s, k, len(got))
				}
				for i := range got {
					if !got[i].Config.Equal(all[i].Config) || got[i].Source != all[i].Source || got[i].LogSpeedup != all[i].LogSpeedup {
						t.Fatalf("%v k=%d: candidate %d is %v (%s, %g), of k=%d %v (%s, %g)", s, k, i,
							got[i].Config, got[i].Source, got[i].LogSpeedup, len(all), all[i].Config, all[i].Source, all[i].LogSpeedup)
					}
				}
			}
		}
	}
}

func mustFromBundle(t *testing.T, b *features.Bundle) *runtime.Chooser {
	t.Helper()
	ch, err := runtime.FromBundle(b, runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return ch
}

// BenchmarkCandidates times Candidates of k = 3 and 8 for a shape not seen
// before at every call (the first call of a shape, which a library times
// the candidates at), on the PoCL test bundle and benchBundle, and on the
// PoCL bundle given a Bundle.Measured of 64 shapes (neither records one),
// and reports the latency's median and 99th percentile.
func BenchmarkCandidates(b *testing.B) {
	for _, bc := range []struct {
		name, path string
		measured   bool
	}{
		{"pocl", testBundle, false},
		{"pocl-measured", testBundle, true},
		{"h200", benchBundle, false},
	} {
		data, err := os.ReadFile(bc.path)
		if err != nil {
			b.Fatal(err)
		}
		bundle, err := features.ReadBundle(data)
		if err != nil {
			b.Fatal(err)
		}
		if bc.measured {
			known := bundle.Models[0].Known
			for i := range 64 {
				bundle.Measured = append(bundle.Measured, features.MeasuredBest{Device: bundle.Models[0].Name,
					Task: features.Task{256 << (i % 4), 256 << (i / 16), 3 + 2*((i/4)%4), 3 + 2*((i/4)%4)}, Config: known[i%len(known)], TimeNs: 1})
			}
		}
		ch, err := runtime.FromBundle(bundle, runtime.Options{})
		if err != nil {
			b.Fatal(err)
		}
		for _, k := range []int{3, 8} {
			b.Run(fmt.Sprintf("%s/k=%d", bc.name, k), func(b *testing.B) {
				var lat []time.Duration
				i := 0
				b.ReportAllocs()
				for b.Loop() {
					i++
					s := features.Task{64 + i%8192, 64 + i/8192, 3 + 2*(i%5), 3 + 2*(i%5)}
					start := time.Now()
					if _, err := ch.Candidates(s, k); err != nil {
						b.Fatal(err)
					}
					lat = append(lat, time.Since(start))
				}
				slices.Sort(lat)
				b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds()), "p50-ns")
				b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds()), "p99-ns")
			})
		}
	}
}

// TestCandidatesHugeK asks for far more candidates than the space holds:
// the answer is every candidate there is, not a buffer sized by k.
func TestCandidatesHugeK(t *testing.T) {
	data, _ := os.ReadFile(testBundle)
	ch, err := runtime.New(data, runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	shape := features.Task{1000, 1000, 5, 5}
	all, err := ch.Candidates(shape, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	huge, err := ch.Candidates(shape, 1<<40)
	if err != nil || len(huge) != len(all) || len(all) < 2 {
		t.Errorf("k = 2^40: %d candidates (%v), k = 2^20: %d; want the same, at least 2", len(huge), err, len(all))
	}
}
