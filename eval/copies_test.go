package eval

import (
	"os"
	"slices"
	"testing"

	"github.com/augur-tuning/augur/features"
)

func TestTopCopy(t *testing.T) {
	prior := []float64{0.5, 2, -1, 2, 3}
	tests := []struct {
		name   string
		copies []int
		want   []int
	}{
		{"none", nil, nil},
		{"one", []int{2}, []int{2}},
		{"the prior's favourite", []int{0, 4, 1}, []int{4}},
		{"a tie: the first", []int{3, 1}, []int{3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := topCopy(tt.copies, prior); !slices.Equal(got, tt.want) {
				t.Errorf("topCopy(%v) = %v, want %v", tt.copies, got, tt.want)
			}
		})
	}
}

// TestBundleCopies: each other device's best of the shape nearest the one
// tuned, from the bundle's measured table, and none of the device's own.
func TestBundleCopies(t *testing.T) {
	data, err := os.ReadFile("../testdata/conv2d-fleet.augur")
	if err != nil {
		t.Fatal(err)
	}
	b, err := features.ReadBundle(data)
	if err != nil {
		t.Fatal(err)
	}
	space, err := b.Space()
	if err != nil {
		t.Fatal(err)
	}
	valid := space.All()
	// One shape each of two devices.
	a, c := b.Measured[0], b.Measured[0]
	for _, m := range b.Measured {
		if !m.Config.Equal(a.Config) {
			c = m
			break
		}
	}
	a.Device, a.Task = "dev-a", features.Task{1000, 1000, 5, 5}
	c.Device, c.Task = "dev-c", features.Task{4000, 4000, 5, 5}
	far := a
	far.Task, far.Config = features.Task{100, 100, 5, 5}, c.Config
	b.Measured = []features.MeasuredBest{a, far, c}
	index := func(cfg features.Config) int {
		return slices.IndexFunc(valid, func(v features.Config) bool { return v.Equal(cfg) })
	}
	tests := []struct {
		name string
		slug string
		want []int
	}{
		{"both devices", "dev-new", []int{index(a.Config), index(c.Config)}},
		{"not the device's own", "dev-c", []int{index(a.Config)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := bundleCopies(b, tt.slug, features.Task{1100, 900, 5, 5}, space, valid)
			if !slices.Equal(got, tt.want) {
				t.Errorf("bundleCopies = %v, want %v", got, tt.want)
			}
		})
	}
}
