package train_test

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/runtime"
	"github.com/augur-tuning/augur/train"
)

// TestSmallSampleMeasuredShape trains on a 2% sample of the H200's conv2d
// rows and checks that, on every shape of the sample, the runtime answers
// with the fastest configuration of the sample (from the bundle's measured
// table), never a worse one the model might prefer (issue 25).
func TestSmallSampleMeasuredShape(t *testing.T) {
	k, err := datasets.Lookup("conv2d")
	if err != nil {
		t.Fatal(err)
	}
	all, err := train.LoadWith("../testdata/h200", "conv2d", train.LoadOptions{Derived: k.Derived})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var rows []int
	for i := range all.Len() {
		if rng.IntN(50) == 0 {
			rows = append(rows, i)
		}
	}
	d := all.Subset(rows)
	best := map[features.TaskKey]train.Sample{}
	for _, s := range d.Samples() {
		if b, ok := best[s.Task.Key()]; !ok || s.TimeNs < b.TimeNs {
			best[s.Task.Key()] = s
		}
	}
	b, _, err := train.TrainData(d, train.Options{Kernel: "conv2d", Model: "gbrt", Folds: 1,
		GBRT: train.GBRTOptions{Trees: 20}})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := features.WriteBundle(&buf, b); err != nil {
		t.Fatal(err)
	}
	ch, err := runtime.New(buf.Bytes(), runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range best {
		p, err := ch.ChoosePick(s.Task)
		if err != nil {
			t.Fatal(err)
		}
		if p.Source != runtime.SourceTable || !p.Config.Equal(s.Config) {
			t.Errorf("shape %v (%d sampled rows in all): source %q config %v, want the sample's best %v from the table",
				s.Task, len(rows), p.Source, p.Config, s.Config)
		}
	}
	if len(best) == 0 {
		t.Fatal("the sample holds no shape")
	}
}
