package train_test

import (
	"bytes"
	"testing"

	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/runtime"
	"github.com/augur-tuning/augur/train"
)

// TestChooseStaysAmongKnown trains on the shipped GEMM data (14 parameters,
// 250 sampled configurations on ten shapes) and checks that the runtime's
// picks, for measured and unmeasured shapes, are configurations that ran
// in the training data: a space this large is mostly configurations the
// model has never seen, whose predictions are guesses.
func TestChooseStaysAmongKnown(t *testing.T) {
	b, _, err := train.Train("../datasets/data", train.Options{
		Kernel: "gemm", Folds: 1, GBRT: train.GBRTOptions{Trees: 30, MaxDepth: 6},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Models) != 1 || len(b.Models[0].Known) == 0 {
		t.Fatalf("bundle has %d models, want 1 with known configurations", len(b.Models))
	}
	space, err := b.Space()
	if err != nil {
		t.Fatal(err)
	}
	known := map[int]bool{}
	for _, c := range b.Models[0].Known {
		known[space.Index(c)] = true
	}
	var buf bytes.Buffer
	if err := features.WriteBundle(&buf, b); err != nil {
		t.Fatal(err)
	}
	ch, err := runtime.New(buf.Bytes(), runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, shape := range []features.Task{{512, 512, 512}, {640, 640, 640}, {3072, 256, 1024}, {128, 4096, 96}} {
		p, err := ch.ChoosePick(shape)
		if err != nil {
			t.Fatalf("ChoosePick(%v): %v", shape, err)
		}
		if !known[space.Index(p.Config)] && !p.Config.Equal(b.Reference) {
			t.Errorf("ChoosePick(%v) = %s (source %s), which never ran in the training data", shape, space.Format(p.Config), p.Source)
		}
	}
}
