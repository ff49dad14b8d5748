package predict_test

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"os"
	"testing"

	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/predict"
)

func bundle(t testing.TB) *features.Bundle {
	t.Helper()
	data, err := os.ReadFile("../testdata/conv2d-pocl.augur")
	if err != nil {
		t.Fatal(err)
	}
	b, err := features.ReadBundle(data)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestLoad(t *testing.T) {
	b := bundle(t)
	m, err := predict.Load(b, "", datasets.Deriver(b.Kernel))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := predict.Load(b, "no-such-device", datasets.Deriver(b.Kernel)); !errors.Is(err, predict.ErrNoModel) {
		t.Errorf("Load(unknown) error = %v, want ErrNoModel", err)
	}
	// A bundle whose schema lost a task feature no longer matches its model.
	short := *b
	short.TaskNames = b.TaskNames[1:]
	short.Features = b.Features[1:]
	if _, err := predict.Load(&short, "", datasets.Deriver(short.Kernel)); err == nil {
		t.Error("Load accepted a model with more features than the bundle schema")
	}
	task := features.Task{640, 480, 3, 3}
	if err := m.Check(task, b.Reference); err != nil {
		t.Errorf("Check: %v", err)
	}
	if err := m.Check(task[:3], b.Reference); err == nil {
		t.Error("Check accepted a short task")
	}
	if v := m.Predict(task, b.Reference); math.IsNaN(v) || math.Abs(v) > 1 {
		t.Errorf("reference log-speedup = %g, want near 0", v)
	}
}

func TestRank(t *testing.T) {
	b := bundle(t)
	m, _ := predict.Load(b, "", datasets.Deriver(b.Kernel))
	s, _ := b.Space()
	task := features.Task{800, 600, 7, 7}
	ranked := m.Rank(task, s.All())
	if len(ranked) != s.Len() {
		t.Fatalf("Rank returned %d, want %d", len(ranked), s.Len())
	}
	for i := 1; i < len(ranked); i++ {
		if ranked[i].LogSpeedup > ranked[i-1].LogSpeedup {
			t.Fatalf("Rank not sorted at %d: %g > %g", i, ranked[i].LogSpeedup, ranked[i-1].LogSpeedup)
		}
	}
	if got := m.Predict(task, ranked[0].Config); got != ranked[0].LogSpeedup {
		t.Errorf("Predict(top) = %g, Rank says %g", got, ranked[0].LogSpeedup)
	}
}

func BenchmarkPredict(b *testing.B) {
	bd := bundle(b)
	m, _ := predict.Load(bd, "", datasets.Deriver(bd.Kernel))
	task := features.Task{640, 480, 3, 3}
	b.ReportAllocs()
	for b.Loop() {
		m.Predict(task, bd.Reference)
	}
}

// TestFlatAgreesWithLeaves checks that the flat copy of the model was
// accepted, and that Predict and a Scorer agree with leaves itself.
func TestFlatAgreesWithLeaves(t *testing.T) {
	b := bundle(t)
	m, err := predict.Load(b, "", datasets.Deriver(b.Kernel))
	if err != nil {
		t.Fatal(err)
	}
	if !predict.HasFlat(m) {
		t.Fatal("flat evaluator was rejected for a model augur's trainer wrote")
	}
	s, _ := b.Space()
	for _, task := range []features.Task{{640, 480, 3, 3}, {4096, 16, 11, 11}, {100, 3000, 5, 7}} {
		sc := m.Scorer(task)
		for _, c := range s.All() {
			want := predict.LeavesPredict(m, task, c)
			if got := m.Predict(task, c); got != want {
				t.Fatalf("Predict(%v, %v) = %g, leaves %g", task, c, got, want)
			}
			if got := sc.Predict(c); math.Abs(got-want) > 1e-9 {
				t.Fatalf("Scorer(%v).Predict(%v) = %g, leaves %g", task, c, got, want)
			}
		}
	}
}

func BenchmarkScorer(b *testing.B) {
	bd := bundle(b)
	m, _ := predict.Load(bd, "", datasets.Deriver(bd.Kernel))
	sc := m.Scorer(features.Task{640, 480, 3, 3})
	b.ReportAllocs()
	for b.Loop() {
		sc.Predict(bd.Reference)
	}
}

// BenchmarkScoreBatch times Scorer.ScoreBatch on batches of the sizes
// Choose (a dozen configurations) and Candidates (every known one) score,
// with the model of ../testdata/conv2d-h200.augur, or of the bundle that
// AUGUR_BENCH_BUNDLE names: per configuration.
func BenchmarkScoreBatch(b *testing.B) {
	data, err := os.ReadFile(cmp.Or(os.Getenv("AUGUR_BENCH_BUNDLE"), "../testdata/conv2d-h200.augur"))
	if err != nil {
		b.Fatal(err)
	}
	bd, err := features.ReadBundle(data)
	if err != nil {
		b.Fatal(err)
	}
	m, err := predict.Load(bd, bd.Models[0].Name, datasets.Deriver(bd.Kernel))
	if err != nil {
		b.Fatal(err)
	}
	known := bd.Models[0].Known
	for _, n := range []int{12, len(known)} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			sc := m.Scorer(features.Task{1000, 700, 5, 5})
			vals, oks := make([]float64, n), make([]bool, n)
			b.ReportAllocs()
			for b.Loop() {
				sc.ScoreBatch(known[:n], vals, oks)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/config")
		})
	}
}
