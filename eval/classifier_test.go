package eval

import (
	"testing"

	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/train"
)

// TestLeaveOneOutNeverSeesItsKernel builds groups whose best class is the
// kernel's own (two array sizes of each of three stencils): a classifier
// that saw the kernel it picks for would answer its class; one trained
// without it can only answer another's.
func TestLeaveOneOutNeverSeesItsKernel(t *testing.T) {
	cd := &train.ClassData{Target: "technique", Classes: []int{10, 20, 30},
		TaskNames: []string{"kernel", "n"}, Features: features.ClassFeatures([]string{"kernel", "n"}, nil)}
	for k := range 3 {
		for _, n := range []int{64, 128} {
			cd.Groups = append(cd.Groups, train.ClassGroup{Task: features.Task{k, n}})
			cd.X = append(append(cd.X, float64(k), float64(n)), features.Platform{}.Vector()...)
			cd.Y = append(cd.Y, k)
		}
	}
	forest := train.ClassForestOptions{Trees: 20, MinLeaf: 1, Seed: 1}
	for _, tc := range []struct {
		name   string
		foldBy []string
		// seen says whether the kernel's own groups may be in training.
		seen bool
	}{
		{"by kernel", []string{"kernel"}, false},
		{"by shape", nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, err := NewLeaveOneOut(cd, forest, tc.foldBy)
			if err != nil {
				t.Fatal(err)
			}
			for k := range 3 {
				got, err := l.Technique("hybrid", features.Platform{}, features.Task{k, 64})
				if err != nil {
					t.Fatal(err)
				}
				if own := cd.Classes[k]; !tc.seen && got == own {
					t.Errorf("kernel %d: picked %d, its own class, which leave-one-kernel-out never trained on", k, got)
				}
			}
		})
	}
	if _, err := NewLeaveOneOut(cd, forest, []string{"radius"}); err == nil {
		t.Error("NewLeaveOneOut with an unknown fold key: no error")
	}
}
