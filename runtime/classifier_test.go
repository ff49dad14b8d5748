package runtime_test

import (
	"bytes"
	"fmt"
	"os"
	"testing"

	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/predict"
	"github.com/augur-tuning/augur/runtime"
	"github.com/augur-tuning/augur/train"
)

// classifierBundle returns the H200 benchmark bundle with a classifier of
// param fitted on the H200 training shapes (testdata/h200-train), as
// 'augur train --target' adds one.
func classifierBundle(tb testing.TB, param string) *features.Bundle {
	tb.Helper()
	data, err := os.ReadFile(benchBundle)
	if err != nil {
		tb.Fatal(err)
	}
	b, err := features.ReadBundle(data)
	if err != nil {
		tb.Fatal(err)
	}
	d, err := train.Load("../testdata/h200-train", "conv2d")
	if err != nil {
		tb.Fatal(err)
	}
	c, _, err := train.FitClassifier(d, train.ClassifyOptions{Target: param, Learner: train.LearnerForest, Forest: train.ClassForestOptions{Seed: 1}}, 1)
	if err != nil {
		tb.Fatal(err)
	}
	b.Classifiers = []features.Classifier{c}
	var buf bytes.Buffer
	if err := features.WriteBundle(&buf, b); err != nil {
		tb.Fatal(err)
	}
	out, err := features.ReadBundle(buf.Bytes())
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

// TestChooseClassifier checks that Choose keeps the classifier's value of
// the parameter, says so on the Pick, and searches everything when told to
// ignore the classifier or when no known configuration has the value.
func TestChooseClassifier(t *testing.T) {
	b := classifierBundle(t, "VW")
	cl, err := predict.LoadClassifier(b, "VW", nil)
	if err != nil {
		t.Fatal(err)
	}
	pv := b.Models[0].Platform.Vector()
	ch, err := runtime.FromBundle(b, runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	free, err := runtime.FromBundle(b, runtime.Options{IgnoreClassifier: true})
	if err != nil {
		t.Fatal(err)
	}
	vw := ch.Space().Param("VW")
	for _, task := range []features.Task{{1000, 700, 5, 5}, {3000, 3000, 3, 3}, {512, 4096, 7, 7}, {8000, 500, 5, 5}} {
		want, _ := cl.Class(task, pv)
		p, err := ch.ChoosePick(task)
		if err != nil {
			t.Fatal(err)
		}
		if p.Config[vw] != want || p.Fixed != fmt.Sprintf("VW=%d", want) {
			t.Errorf("%v: pick %v (Fixed %q), want VW=%d fixed", task, p.Config, p.Fixed, want)
		}
		q, err := free.ChoosePick(task)
		if err != nil {
			t.Fatal(err)
		}
		if q.Fixed != "" {
			t.Errorf("%v: IgnoreClassifier pick has Fixed %q", task, q.Fixed)
		}
	}
	// No known configuration has the predicted value: the classifier is
	// ignored rather than followed off the measured configurations.
	task := features.Task{1000, 700, 5, 5}
	want, _ := cl.Class(task, pv)
	unknown := *b
	unknown.Models = append([]features.Model(nil), b.Models...)
	var known []features.Config
	for _, k := range b.Models[0].Known {
		if k[vw] != want {
			known = append(known, k)
		}
	}
	unknown.Models[0].Known = known
	ch2, err := runtime.FromBundle(&unknown, runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := ch2.ChoosePick(task)
	if err != nil {
		t.Fatal(err)
	}
	if p.Fixed != "" {
		t.Errorf("pick %v has Fixed %q with no known configuration of VW=%d, want none", p.Config, p.Fixed, want)
	}
}

func BenchmarkChooseClassifier(b *testing.B) {
	bundle := classifierBundle(b, "VW")
	b.Run("cold", func(b *testing.B) {
		ch, err := runtime.FromBundle(bundle, runtime.Options{})
		if err != nil {
			b.Fatal(err)
		}
		benchCold(b, ch)
	})
	b.Run("cached-into", func(b *testing.B) {
		ch, err := runtime.FromBundle(bundle, runtime.Options{})
		if err != nil {
			b.Fatal(err)
		}
		s := features.Task{1920, 1080, 5, 5}
		dst := make(features.Config, len(ch.Space().Params))
		if err := ch.ChooseInto(dst, s); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			if err := ch.ChooseInto(dst, s); err != nil {
				b.Fatal(err)
			}
		}
	})
}
