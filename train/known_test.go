package train_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/runtime"
	"github.com/augur-tuning/augur/train"
)

// TestChooseStaysAmongKnown trains on the H100's shipped GEMM data (14
// parameters, 250 sampled configurations on ten shapes) and checks that the runtime's
// picks, for measured and unmeasured shapes, are configurations that ran
// in the training data: a space this large is mostly configurations the
// model has never seen, whose predictions are guesses.
func TestChooseStaysAmongKnown(t *testing.T) {
	// One device's files: the H100's.
	dir := t.TempDir()
	src := "../datasets/data/gemm/nvidia-h100-80gb-hbm3"
	files, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(dir, "gemm", "nvidia-h100-80gb-hbm3")
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(src, f.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, f.Name()), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, _, err := train.Train(dir, train.Options{
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
