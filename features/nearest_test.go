package features_test

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/augur-tuning/augur/features"
)

func TestLogShapesNearest(t *testing.T) {
	grid := features.LogShapes{
		features.TaskLogs(nil, features.Task{64, 64}),
		features.TaskLogs(nil, features.Task{256, 256}),
		features.TaskLogs(nil, features.Task{1024, 1024}),
		features.TaskLogs(nil, features.Task{256, 256}), // a tie with 1
		features.TaskLogs(nil, features.Task{4096, 16}),
	}
	many := make(features.LogShapes, 40)
	for i := range many {
		many[i] = []float64{float64(i)}
	}
	tests := []struct {
		name string
		s    features.LogShapes
		t    features.Task
		k    int
		want []int
	}{
		{"one", grid, features.Task{200, 300}, 1, []int{1}},
		{"ties keep the earlier first", grid, features.Task{256, 256}, 3, []int{1, 3, 0}},
		{"log scale: 32x32 is nearer 64x64 than 1024x1024 is", grid, features.Task{32, 32}, 2, []int{0, 1}},
		{"k above the shapes", grid, features.Task{4096, 8}, 9, []int{4, 1, 3, 0, 2}},
		{"zero values count as 1", grid, features.Task{0, 0}, 1, []int{0}},
		{"empty", nil, features.Task{1, 1}, 3, []int{}},
		{"k = 0", grid, features.Task{1, 1}, 0, []int{}},
		{"k above 16", many, features.Task{int(math.Round(math.Exp(20)))}, 20, []int{20, 19, 21, 18, 22, 17, 23, 16, 24, 15, 25, 14, 26, 13, 27, 12, 28, 11, 29, 10}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			idx := make([]int, tt.k)
			n := tt.s.Nearest(features.TaskLogs(nil, tt.t), idx)
			if !slices.Equal(idx[:n], tt.want) {
				t.Errorf("Nearest(%v, k=%d) = %v, want %v", tt.t, tt.k, idx[:n], tt.want)
			}
			want1 := -1
			if len(tt.want) > 0 && tt.k > 0 {
				want1 = tt.want[0]
			}
			if got := tt.s.NearestOne(features.TaskLogs(nil, tt.t)); tt.k > 0 && got != want1 {
				t.Errorf("NearestOne(%v) = %d, want %d", tt.t, got, want1)
			}
		})
	}
}

func BenchmarkLogShapesNearest(b *testing.B) {
	grid := make(features.LogShapes, 0, 400)
	for w := 1; w <= 20; w++ {
		for h := 1; h <= 20; h++ {
			grid = append(grid, features.TaskLogs(nil, features.Task{64 * w, 48 * h, 3, 3}))
		}
	}
	var lbuf [8]float64
	var idx [8]int
	b.ReportAllocs()
	for b.Loop() {
		grid.Nearest(features.TaskLogs(lbuf[:0], features.Task{1000, 700, 3, 3}), idx[:])
	}
}

// The grid shapes nearest a shape never measured, on a log scale.
func ExampleLogShapes_Nearest() {
	shapes := []features.Task{{512, 512}, {1024, 1024}, {2048, 2048}, {4096, 256}}
	var grid features.LogShapes
	for _, t := range shapes {
		grid = append(grid, features.TaskLogs(nil, t))
	}
	idx := make([]int, 2)
	n := grid.Nearest(features.TaskLogs(nil, features.Task{1920, 1080}), idx)
	for _, i := range idx[:n] {
		fmt.Println(shapes[i])
	}
	// Output:
	// [1024 1024]
	// [2048 2048]
}

func TestLogShapesFarthestFirst(t *testing.T) {
	logs := func(ts ...features.Task) features.LogShapes {
		var out features.LogShapes
		for _, t := range ts {
			out = append(out, features.TaskLogs(nil, t))
		}
		return out
	}
	line := logs(features.Task{1}, features.Task{2}, features.Task{4}, features.Task{8}, features.Task{16}, features.Task{32}, features.Task{64})
	tests := []struct {
		name     string
		measured features.LogShapes
		pool     features.LogShapes
		n        int
		want     []int
		wantDist []float64 // in doublings; nil: not checked
	}{
		{"the far end first, then the gap's middle", logs(features.Task{1}), line, 2, []int{6, 3}, []float64{6, 3}},
		{"nothing measured: the medoid, then the ends", nil, line, 3, []int{3, 0, 6}, nil},
		{"measured shapes are never chosen again", line, line, 3, nil, nil},
		{"fewer than asked when the pool runs out", logs(features.Task{1}), logs(features.Task{4}, features.Task{4}, features.Task{1}), 5, []int{0}, []float64{2}},
		{"ties go to the earlier shape", logs(features.Task{8, 8}), logs(features.Task{2, 32}, features.Task{32, 2}), 1, []int{0}, nil},
		{"Euclidean over every value: 64x4 is farther from 4x4 than 16x16 is", logs(features.Task{4, 4}), logs(features.Task{16, 16}, features.Task{64, 4}), 1, []int{1}, []float64{4}},
		{"n = 0", nil, line, 0, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			idx, dist := tt.measured.FarthestFirst(tt.pool, tt.n)
			if !slices.Equal(idx, tt.want) {
				t.Fatalf("FarthestFirst = %v, want %v", idx, tt.want)
			}
			if len(dist) != len(idx) {
				t.Fatalf("%d distances for %d shapes", len(dist), len(idx))
			}
			for i, w := range tt.wantDist {
				if got := dist[i] / math.Ln2; math.Abs(got-w) > 1e-9 {
					t.Errorf("distance %d = %.3f doublings, want %g", i, got, w)
				}
			}
		})
	}
}

func ExampleLogShapes_FarthestFirst() {
	measured := features.LogShapes{features.TaskLogs(nil, features.Task{512, 512}), features.TaskLogs(nil, features.Task{1024, 1024})}
	pool := []features.Task{{640, 480}, {8192, 8192}, {2048, 2048}, {128, 128}}
	var logs features.LogShapes
	for _, t := range pool {
		logs = append(logs, features.TaskLogs(nil, t))
	}
	idx, dist := measured.FarthestFirst(logs, 2)
	for i, j := range idx {
		fmt.Printf("%v %.2f doublings away\n", pool[j], dist[i]/math.Ln2)
	}
	// Output:
	// [8192 8192] 4.24 doublings away
	// [128 128] 2.83 doublings away
}
