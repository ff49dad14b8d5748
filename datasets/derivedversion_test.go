package datasets_test

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/runtime"
)

// TestConv2DDerivedVersion2Refused checks that a bundle trained with
// conv2d's derived features version 2, which augur no longer has, is
// refused when it loads, with one line that names the version, and that
// the shipped version 1 bundle still loads.
func TestConv2DDerivedVersion2Refused(t *testing.T) {
	b, err := features.ReadBundleFile("../testdata/conv2d-pocl.augur")
	if err != nil {
		t.Fatal(err)
	}
	if got := datasets.Deriver("conv2d").ID(); b.Derived != got {
		t.Fatalf("the shipped bundle records %q, conv2d's features are %q", b.Derived, got)
	}
	write := func(b *features.Bundle) []byte {
		var buf bytes.Buffer
		if err := features.WriteBundle(&buf, b); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	if _, err := runtime.New(write(b), runtime.Options{}); err != nil {
		t.Fatalf("version 1 bundle: %v", err)
	}
	b.Derived = "conv2d/2"
	// Version 2 appended six features to version 1's, before the
	// platform's.
	last := 0
	for i, f := range b.Features {
		if strings.HasPrefix(f, "derived.") {
			last = i
		}
	}
	var v2 []string
	for _, n := range []string{"private_floats", "global_loads_per_output", "global_loads_per_item", "group_input_bytes", "flops_per_item", "group_flops"} {
		v2 = append(v2, "derived."+n)
	}
	b.Features = slices.Insert(b.Features, last+1, v2...)
	_, err = runtime.New(write(b), runtime.Options{})
	if !errors.Is(err, features.ErrDerived) || !strings.Contains(err.Error(), `"conv2d/2"`) || strings.Contains(err.Error(), "\n") {
		t.Errorf("version 2 bundle: err = %v, want one line of features.ErrDerived naming \"conv2d/2\"", err)
	}
	t.Log(err)
}
