package search_test

import (
	"errors"
	"math"
	"testing"

	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/predict"
	"github.com/augur-tuning/augur/search"
)

// familyModel is a failure model that learns by family: a configuration
// {i, f} belongs to family f, and once a member of a family has failed it
// gives every other member probability p of failing.
type familyModel struct {
	p      float64
	failed map[int]bool
}

func (m *familyModel) Observe(c features.Config, failed bool) bool {
	if failed && !m.failed[c[1]] {
		m.failed[c[1]] = true
		return true
	}
	return false
}

func (m *familyModel) PFail(c features.Config) float64 {
	if m.failed[c[1]] {
		return m.p
	}
	return 0
}

// TestSecondStageFailures checks that a stage with a failure model stops
// proposing a family of configurations that fails (family 1: a work-group
// over the device's limit, say) once it has seen one of them fail, in its
// ranking and in its random draws, and that an unsure model changes
// nothing.
func TestSecondStageFailures(t *testing.T) {
	// Ten configurations; the odd ones are of family 1 and fail. The
	// ranking predicts every one at 1 (the model cannot tell), the truth
	// is 1 for those that run, so the stage goes through the whole ranking.
	var ranked []predict.Scored
	var random []features.Config
	for i := range 10 {
		ranked = append(ranked, predict.Scored{Config: features.Config{i, i % 2}, LogSpeedup: 1})
		random = append(random, features.Config{9 - i, (9 - i) % 2})
	}
	measure := func(c features.Config) (float64, error) {
		if c[1] == 1 {
			return 0, errors.New("invalid work-group size")
		}
		return 1, nil
	}
	tests := []struct {
		name       string
		model      func() search.FailureModel
		random     []features.Config
		wantFailed int
		wantPassed int
	}{
		{"no model", func() search.FailureModel { return nil }, nil, 5, 0},
		{"learns the family", func() search.FailureModel { return &familyModel{p: 1, failed: map[int]bool{}} }, nil, 1, 4},
		// P(run) = 0.05 is below T = 0.1: passed over.
		{"confident", func() search.FailureModel { return &familyModel{p: 0.95, failed: map[int]bool{}} }, nil, 1, 4},
		// P(run) = 0.5 times P(beat) = 0.5 is above T: still measured.
		{"unsure", func() search.FailureModel { return &familyModel{p: 0.5, failed: map[int]bool{}} }, nil, 5, 0},
		{"no model, random draws", func() search.FailureModel { return nil }, random, 5, 0},
		// The random stream's first draw (9) fails; the family is then
		// passed over in both streams.
		{"random draws", func() search.FailureModel { return &familyModel{p: 1, failed: map[int]bool{}} }, random, 1, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := search.SecondStage{Threshold: 0.1, Sigma: 1, Random: tt.random, Failures: tt.model()}
			res, err := st.Run(ranked, 1, features.Config{-1, 0}, nil, measure)
			if err != nil {
				t.Fatal(err)
			}
			failed := 0
			for _, m := range res.Measured {
				if math.IsNaN(m.LogSpeedup) {
					failed++
				}
			}
			if res.Failed != tt.wantFailed || failed != tt.wantFailed || res.Passed != tt.wantPassed {
				t.Errorf("%d failed (%d in Measured), %d passed over; want %d failed, %d passed over", res.Failed, failed, res.Passed, tt.wantFailed, tt.wantPassed)
			}
			// Every configuration that runs is still measured.
			if got := len(res.Measured) - failed; got != 5 {
				t.Errorf("%d configurations that run measured, want all 5", got)
			}
		})
	}
}

// flipModel says every configuration fails until it has seen two
// failures, then that none does: the stage must come back to those it
// passed over when the model changes its mind.
type flipModel struct{ failures int }

func (m *flipModel) Observe(_ features.Config, failed bool) bool {
	if failed {
		m.failures++
		return m.failures == 2
	}
	return false
}

func (m *flipModel) PFail(c features.Config) float64 {
	if m.failures < 2 && c[0] < 5 {
		return 1
	}
	return 0
}

func TestSecondStageReconsidersPassed(t *testing.T) {
	// Configurations 0-4 are passed over at first; 5 and 6 fail, the
	// model then clears 0-4, and the stage measures them in rank order.
	var ranked []predict.Scored
	for i := range 8 {
		ranked = append(ranked, predict.Scored{Config: features.Config{i}, LogSpeedup: 1})
	}
	measure := func(c features.Config) (float64, error) {
		if c[0] == 5 || c[0] == 6 {
			return 0, errors.New("out of resources")
		}
		return 0.5 + 0.1*float64(c[0]), nil
	}
	res, err := search.SecondStage{Threshold: 0.1, Sigma: 1, Failures: &flipModel{}}.Run(ranked, math.Inf(-1), nil, nil, measure)
	if err != nil {
		t.Fatal(err)
	}
	var order []int
	for _, m := range res.Measured {
		order = append(order, m.Config[0])
	}
	want := []int{5, 6, 0, 1, 2, 3, 4, 7}
	if len(order) != len(want) {
		t.Fatalf("measured %v, want %v", order, want)
	}
	for i := range want {
		if order[i] != want[i] {
			t.Fatalf("measured %v, want %v", order, want)
		}
	}
	if res.Best[0] != 7 || res.Passed != 5 {
		t.Errorf("best %v, %d passed over; want 7, 5", res.Best, res.Passed)
	}
}
