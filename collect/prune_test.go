package collect

import (
	"maps"
	"testing"

	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/features"
)

func TestPruneReasonKinds(t *testing.T) {
	dev := features.Platform{MaxWorkGroupSize: 256, MaxWorkItemSizes: [3]int{256, 128, 64}, LocalMemBytes: 48 << 10, ConstantMemBytes: 64 << 10}
	tests := []struct {
		name   string
		launch datasets.Launch
		want   Reason // "" for no pruning
	}{
		{"fits", datasets.Launch{Dims: 2, Global: [3]int{512, 512}, Local: [3]int{16, 16}, LocalMemBytes: 48 << 10, ConstantMemBytes: 64 << 10}, ""},
		{"work-group", datasets.Launch{Dims: 2, Global: [3]int{512, 512}, Local: [3]int{32, 16}}, ReasonWorkGroup},
		{"dimension", datasets.Launch{Dims: 2, Global: [3]int{512, 512}, Local: [3]int{1, 256}}, ReasonWorkItems},
		{"global", datasets.Launch{Dims: 1, Global: [3]int{100}, Local: [3]int{64}}, ReasonGlobal},
		{"local memory", datasets.Launch{Dims: 1, Global: [3]int{64}, Local: [3]int{64}, LocalMemBytes: 48<<10 + 1}, ReasonLocalMem},
		{"constant memory", datasets.Launch{Dims: 1, Global: [3]int{64}, Local: [3]int{64}, ConstantMemBytes: 64<<10 + 4}, ReasonConstantMem},
		{"dims", datasets.Launch{}, ReasonDims},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := pruneReason(tt.launch, dev)
			var got Reason
			if pe, ok := err.(*PruneError); ok {
				got = pe.Reason
			} else if err != nil {
				t.Fatalf("got %T %v, want a *PruneError", err, err)
			}
			if got != tt.want {
				t.Errorf("reason %q (%v), want %q", got, err, tt.want)
			}
		})
	}
}

// TestPrune counts CLTune's GEMM space on a device of 256 work-items and
// 32 KiB of local memory: the 15,744 configurations with a work-group of
// 512 or 1024 items go (counted independently of augur, by a script over
// CLTune's constraints), and no tile exceeds 32 KiB.
func TestPrune(t *testing.T) {
	dev := features.Platform{MaxWorkGroupSize: 256, MaxWorkItemSizes: [3]int{256, 256, 256}, LocalMemBytes: 32 << 10, ConstantMemBytes: 64 << 10}
	tests := []struct {
		kernel   *datasets.Kernel
		task     features.Task
		dev      features.Platform
		runnable int
		pruned   map[Reason]int
	}{
		{datasets.GEMM(), features.Task{2048, 2048, 2048}, dev, 225856, map[Reason]int{ReasonWorkGroup: 15744}},
		// An 11 x 11 filter takes 484 bytes of constant memory.
		{datasets.Conv2D(), features.Task{256, 256, 11, 11}, features.Platform{MaxWorkGroupSize: 1 << 20, MaxWorkItemSizes: [3]int{1 << 20, 1 << 20, 1 << 20}, LocalMemBytes: 1 << 30, ConstantMemBytes: 484}, 6400, map[Reason]int{}},
		{datasets.Conv2D(), features.Task{256, 256, 11, 11}, features.Platform{MaxWorkGroupSize: 1 << 20, MaxWorkItemSizes: [3]int{1 << 20, 1 << 20, 1 << 20}, LocalMemBytes: 1 << 30, ConstantMemBytes: 480}, 0, map[Reason]int{ReasonConstantMem: 6400}},
	}
	for _, tt := range tests {
		got, err := Prune(tt.kernel, tt.task, tt.dev)
		if err != nil {
			t.Fatal(err)
		}
		if got.Raw != tt.kernel.Space.RawSize() || got.Valid != tt.kernel.Space.Len() || got.Runnable != tt.runnable || !maps.Equal(got.Pruned, tt.pruned) {
			t.Errorf("Prune(%s, %v) = %+v, want raw %d, valid %d, runnable %d, pruned %v",
				tt.kernel.Name, tt.task, got, tt.kernel.Space.RawSize(), tt.kernel.Space.Len(), tt.runnable, tt.pruned)
		}
	}
	if _, err := Prune(datasets.GEMM(), features.Task{100, 128, 32}, dev); err == nil {
		t.Error("Prune with a bad shape: got nil, want an error")
	}
}
