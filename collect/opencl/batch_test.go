package opencl

import (
	"context"
	"testing"

	"github.com/augur-tuning/augur/datasets"
)

func TestRunBatch(t *testing.T) {
	dev := firstDevice(t)
	s, err := dev.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	args, err := s.Bind([]datasets.Arg{
		{Name: "in", Kind: datasets.Input, Data: []float32{1}},
		{Name: "out", Kind: datasets.Output, Len: 1},
		{Name: "n", Kind: datasets.Int32, Int: 1000},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer args.Release()
	p, err := s.Build(spinSource, "", "spin")
	if err != nil {
		t.Fatal(err)
	}
	defer p.Release()
	one := datasets.Launch{Dims: 1, Global: [3]int{1, 1, 1}, Local: [3]int{1, 1, 1}}
	tests := []struct {
		name   string
		launch datasets.Launch
		n      int
		want   int // times appended; -1: an error of kind ResourceLimit
	}{
		{"one", one, 1, 1},
		{"seven", one, 7, 7},
		{"none", one, 0, 0},
		{"over the compiled limit", datasets.Launch{Dims: 1, Global: [3]int{1 << 20, 1, 1}, Local: [3]int{1 << 20, 1, 1}}, 3, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dst := []int64{-5}
			got, err := s.RunBatch(context.Background(), p, args, tt.launch, dst, tt.n)
			if tt.want < 0 {
				if KindOf(err) != ResourceLimit || len(got) != 1 {
					t.Fatalf("RunBatch = %v, %v; want a ResourceLimit error and dst untouched", got, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 1+tt.want || got[0] != -5 {
				t.Fatalf("RunBatch appended %d times to dst (%v), want %d after dst's own", len(got)-1, got, tt.want)
			}
			for i, ns := range got[1:] {
				if ns <= 0 {
					t.Errorf("launch %d ran in %d ns, want > 0", i, ns)
				}
			}
		})
	}
	if s.Stuck() {
		t.Error("Stuck() after batches that finished")
	}
}
