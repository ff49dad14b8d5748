package runtime_test

import (
	"errors"
	"os"
	"testing"

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
				if i > 1 && p.LogSpeedup > got[i-1].LogSpeedup {
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

// BenchmarkCandidates times the ranking of 5 candidates for a shape (not
// cached), with the bundle BenchmarkChoose uses.
func BenchmarkCandidates(b *testing.B) {
	data, err := os.ReadFile(benchBundle)
	if err != nil {
		b.Fatal(err)
	}
	ch, err := runtime.New(data, runtime.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ch.Candidates(features.Task{1920, 1080, 5, 5}, 5); err != nil {
			b.Fatal(err)
		}
	}
}
