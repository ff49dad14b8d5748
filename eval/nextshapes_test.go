package eval_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/eval"
)

// TestNextShapesFor checks the suggestions on real data (the H200's six
// 5x5 shapes of testdata/h200): a measured shape is never suggested, the
// farthest comes first, and each names its nearest measured or earlier
// suggested shape.
func TestNextShapesFor(t *testing.T) {
	const measured = "width=1024,height=1024,filter_w=5,filter_h=5"
	pool := []string{
		measured,
		"width=4096,height=4096,filter_w=3,filter_h=3",
		"width=100,height=100,filter_w=5,filter_h=5",
		"width=128,height=128,filter_w=5,filter_h=5",
	}
	got, err := eval.NextShapesFor("../testdata/h200", eval.Options{Kernel: "conv2d"}, "", pool, 9)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Platform != "nvidia-h200" || got[0].Measured != 6 {
		t.Fatalf("got %+v, want one device, nvidia-h200, with 6 measured shapes", got)
	}
	var shapes []string
	for _, s := range got[0].Shapes {
		shapes = append(shapes, s.Shape)
	}
	want := []string{pool[2], pool[1], pool[3]}
	if !slices.Equal(shapes, want) {
		t.Fatalf("suggested %q, want %q", shapes, want)
	}
	first, last := got[0].Shapes[0], got[0].Shapes[2]
	if first.Nearest != measured || !(first.Doublings > 3) {
		t.Errorf("first: %+v, want nearest %s more than 3 doublings away", first, measured)
	}
	// 128x128 is a third of a doubling a side from 100x100, suggested
	// before it.
	if last.Nearest != pool[2] || last.Doublings > 0.6 {
		t.Errorf("last: %+v, want nearest %s within 0.6 doublings", last, pool[2])
	}
}

func TestNextShapesForErrors(t *testing.T) {
	pool := []string{"width=512,height=512,filter_w=5,filter_h=5"}
	for _, tc := range []struct {
		name, device string
		pool         []string
		n            int
		want         string
	}{
		{"n", "", pool, 0, "at least 1"},
		{"no pool", "", nil, 1, "no shapes"},
		{"bad shape", "", []string{"width=512"}, 1, "filter_w"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := eval.NextShapesFor("../testdata/h200", eval.Options{Kernel: "conv2d"}, tc.device, tc.pool, tc.n)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want one naming %q", err, tc.want)
			}
		})
	}
}

func ExampleNextShapesFor() {
	pool := []string{
		"width=1920,height=1080,filter_w=5,filter_h=5",
		"width=640,height=480,filter_w=5,filter_h=5",
		"width=8192,height=8192,filter_w=5,filter_h=5",
	}
	out, err := eval.NextShapesFor("../testdata/h200", eval.Options{Kernel: "conv2d"}, "nvidia-h200", pool, 2)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range out[0].Shapes {
		fmt.Printf("%s: %.1f doublings from %s\n", s.Shape, s.Doublings, s.Nearest)
	}
	// Output:
	// width=8192,height=8192,filter_w=5,filter_h=5: 1.4 doublings from width=4096,height=4096,filter_w=5,filter_h=5
	// width=640,height=480,filter_w=5,filter_h=5: 1.3 doublings from width=1024,height=1024,filter_w=5,filter_h=5
}

// TestNextShapesForUnfit checks that a shape whose reference
// configuration the device cannot hold (fbcorr's 8 x 8 blocks of a
// 256-deep image need 82,240 bytes of local memory; the GPUs have 49,152)
// is left out and said why, on the shipped fbcorr data.
func TestNextShapesForUnfit(t *testing.T) {
	const unfit = "R=2048,C=2048,D=256,F=1,H=3,W=3"
	pool := []string{unfit, "R=2048,C=2048,D=16,F=1,H=3,W=3"}
	got, err := eval.NextShapesFor("../datasets/data", eval.Options{Kernel: "fbcorr"}, "nvidia-h200", pool, 2)
	if err != nil {
		t.Fatal(err)
	}
	ns := got[0]
	if len(ns.Shapes) != 1 || ns.Shapes[0].Shape != pool[1] {
		t.Errorf("suggested %+v, want only %s", ns.Shapes, pool[1])
	}
	if len(ns.Unfit) != 1 || ns.Unfit[0].Shape != unfit || !strings.Contains(ns.Unfit[0].Reason, "local memory 82240 bytes") {
		t.Errorf("unfit %+v, want %s for its local memory", ns.Unfit, unfit)
	}
}

// TestNextShapesForSpec: a spec kernel's shapes to choose from answer to
// problem_size_I too, and are checked against the spec.
func TestNextShapesForSpec(t *testing.T) {
	spec, err := datasets.ReadSpec("../examples/transpose/transpose.json")
	if err != nil {
		t.Fatal(err)
	}
	opt := eval.Options{Kernel: spec.Name, Spec: spec}
	got, err := eval.NextShapesFor("../datasets/data", opt, "nvidia-h200", []string{"problem_size_0=100000,problem_size_1=10"}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if s := got[0].Shapes; len(s) != 1 || s[0].Shape != "width=100000,height=10" {
		t.Errorf("suggested %+v, want width=100000,height=10", s)
	}
	if _, err := eval.NextShapesFor("../datasets/data", opt, "", []string{"width=0,height=10"}, 1); err == nil {
		t.Error("a shape the spec refuses was taken")
	}
}

// TestNextShapesForNewDevice: a device the data lacks gets the pool's
// medoid first, then the shape farthest from it.
func TestNextShapesForNewDevice(t *testing.T) {
	pool := []string{
		"width=512,height=512,filter_w=5,filter_h=5",
		"width=1024,height=1024,filter_w=5,filter_h=5",
		"width=2048,height=2048,filter_w=5,filter_h=5",
		"width=8192,height=8192,filter_w=5,filter_h=5",
	}
	got, err := eval.NextShapesFor("../testdata/h200", eval.Options{Kernel: "conv2d"}, "gtx-680", pool, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || !got[0].New || got[0].Platform != "gtx-680" || got[0].Measured != 0 {
		t.Fatalf("got %+v, want one new device gtx-680", got)
	}
	var shapes []string
	for _, s := range got[0].Shapes {
		shapes = append(shapes, s.Shape)
	}
	if want := []string{pool[1], pool[3]}; !slices.Equal(shapes, want) {
		t.Errorf("suggested %q, want %q", shapes, want)
	}
}
