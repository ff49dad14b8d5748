package predict_test

import (
	"math"
	"strings"
	"testing"

	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/predict"
	"github.com/augur-tuning/augur/predict/lightgbm"
)

// withRange returns a copy of b whose only model records [lo, hi] as its
// training-target range, as a trainer that writes the range does.
func withRange(t testing.TB, b *features.Bundle, lo, hi float64) *features.Bundle {
	t.Helper()
	lgm, err := lightgbm.Parse(b.Models[0].LightGBM)
	if err != nil {
		t.Fatal(err)
	}
	if err := lgm.SetTargetRange(lo, hi); err != nil {
		t.Fatal(err)
	}
	var sb strings.Builder
	if err := lgm.Write(&sb); err != nil {
		t.Fatal(err)
	}
	c := *b
	c.Models = append([]features.Model(nil), b.Models...)
	c.Models[0].LightGBM = sb.String()
	return &c
}

func TestClamp(t *testing.T) {
	b := bundle(t)
	raw, err := predict.Load(b, "", datasets.Deriver(b.Kernel))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, ok := raw.TargetRange(); ok {
		t.Fatal("testdata bundle already records a target range; the test needs one without")
	}
	task := features.Task{800, 600, 7, 7}
	s, _ := b.Space()
	ranked := raw.Rank(task, s.All())
	top, bottom := ranked[0].LogSpeedup, ranked[len(ranked)-1].LogSpeedup
	mid := (top + bottom) / 2
	tests := []struct {
		name        string
		lo, hi      float64
		cfg         features.Config
		want        float64
		wantClamped bool
	}{
		{"inside", bottom - 1, top + 1, ranked[0].Config, top, false},
		{"above", bottom - 1, mid, ranked[0].Config, mid, true},
		{"below", mid, top + 1, ranked[len(ranked)-1].Config, mid, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rb := withRange(t, b, tt.lo, tt.hi)
			m, err := predict.Load(rb, "", datasets.Deriver(rb.Kernel))
			if err != nil {
				t.Fatal(err)
			}
			if lo, hi, ok := m.TargetRange(); !ok || lo != tt.lo || hi != tt.hi {
				t.Fatalf("TargetRange() = %g, %g, %v, want %g, %g, true", lo, hi, ok, tt.lo, tt.hi)
			}
			got, clamped := m.PredictClamped(task, tt.cfg)
			if math.Abs(got-tt.want) > 1e-9 || clamped != tt.wantClamped {
				t.Errorf("PredictClamped = %g, %v, want %g, %v", got, clamped, tt.want, tt.wantClamped)
			}
			if p := m.Predict(task, tt.cfg); p != got {
				t.Errorf("Predict = %g, PredictClamped %g", p, got)
			}
			// The Scorer ranks on the raw values.
			if v := m.Scorer(task).Predict(tt.cfg); math.Abs(v-raw.Predict(task, tt.cfg)) > 1e-9 {
				t.Errorf("Scorer.Predict = %g, want the raw %g", v, raw.Predict(task, tt.cfg))
			}
			// Rank keeps the raw order and reports clamped values.
			r := m.Rank(task, s.All())
			for i := range r {
				if !r[i].Config.Equal(ranked[i].Config) {
					t.Fatalf("Rank()[%d] = %v, want %v (the unclamped order)", i, r[i].Config, ranked[i].Config)
				}
				if r[i].LogSpeedup > tt.hi || r[i].LogSpeedup < tt.lo {
					t.Fatalf("Rank()[%d].LogSpeedup = %g, outside [%g, %g]", i, r[i].LogSpeedup, tt.lo, tt.hi)
				}
			}
		})
	}
}
