package features_test

import (
	"errors"
	"os"
	"testing"

	"github.com/augur-tuning/augur/features"
)

func TestBundleUnseenPolicy(t *testing.T) {
	data, err := os.ReadFile("../testdata/conv2d-pocl.augur")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		policy, newShapes string
		ok                bool
	}{
		{features.UnseenFleet, "", true},
		{features.UnseenCopy, "", true},
		{features.UnseenCopy, features.UnseenFleet, true},
		{features.UnseenFleet, features.UnseenCopy, true},
		{"", "", false},
		{"nearest", "", false},
		{features.UnseenCopy, "nearest", false},
	}
	for _, tt := range tests {
		t.Run(tt.policy+"/"+tt.newShapes, func(t *testing.T) {
			b, err := features.ReadBundle(data)
			if err != nil {
				t.Fatal(err)
			}
			b.Unseen = &features.UnseenPolicy{Policy: tt.policy, NewShapes: tt.newShapes, Devices: 2, Shapes: 10,
				PctGeomean: map[string]float64{features.UnseenCopy: 90, features.UnseenFleet: 85}}
			got, err := rewrite(t, b)
			switch {
			case tt.ok && err != nil:
				t.Fatalf("ReadBundle: %v", err)
			case tt.ok && (got.Unseen == nil || got.Unseen.Policy != tt.policy || got.Unseen.NewShapes != tt.newShapes || got.Unseen.PctGeomean[features.UnseenCopy] != 90):
				t.Errorf("read back %+v, want policy %q", got.Unseen, tt.policy)
			case !tt.ok && !errors.Is(err, features.ErrSyntax):
				t.Errorf("ReadBundle: err = %v, want ErrSyntax", err)
			}
		})
	}
}

func TestUnseenPolicyFor(t *testing.T) {
	tests := []struct {
		policy, newShapes string
		measured          bool
		want              string
	}{
		{features.UnseenCopy, features.UnseenFleet, true, features.UnseenCopy},
		{features.UnseenCopy, features.UnseenFleet, false, features.UnseenFleet},
		{features.UnseenFleet, features.UnseenCopy, false, features.UnseenCopy},
		{features.UnseenCopy, "", false, features.UnseenCopy}, // a bundle written before NewShapes
		{features.UnseenFleet, "", true, features.UnseenFleet},
	}
	for _, tt := range tests {
		u := &features.UnseenPolicy{Policy: tt.policy, NewShapes: tt.newShapes}
		if got := u.For(tt.measured); got != tt.want {
			t.Errorf("%+v.For(%v) = %q, want %q", *u, tt.measured, got, tt.want)
		}
	}
}

func TestMeasuredType(t *testing.T) {
	b := &features.Bundle{Models: []features.Model{
		{Name: "gpu-a", Platform: &features.Platform{Type: "gpu"}},
		{Name: "fleet"},
	}}
	tests := []struct {
		m    features.MeasuredBest
		want string
	}{
		{features.MeasuredBest{Device: "gpu-a"}, "gpu"},              // an older bundle: the model tells
		{features.MeasuredBest{Device: "gpu-a", Type: "cpu"}, "cpu"}, // the entry's own type first
		{features.MeasuredBest{Device: "unknown"}, ""},
	}
	for _, tt := range tests {
		if got := b.MeasuredType(tt.m); got != tt.want {
			t.Errorf("MeasuredType(%+v) = %q, want %q", tt.m, got, tt.want)
		}
	}
}
