package predict_test

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/predict"
	"github.com/augur-tuning/augur/predict/lightgbm"
)

// classifierText returns a multiclass model of k classes over the inputs
// of a classifier of b: one iteration, class c's tree a stump on the
// first task feature at 1000 that gives class 0 the narrow shapes and
// class k-1 the wide ones.
func classifierText(b *features.Bundle, k int, objective string) string {
	return classifierTextOver(features.ClassFeatures(b.TaskNames, nil), k, objective)
}

// classifierTextOver is classifierText over the named inputs.
func classifierTextOver(names []string, k int, objective string) string {
	m := &lightgbm.Model{Version: "v3", NumClass: k, NumTreePerIteration: k, MaxFeatureIdx: len(names) - 1,
		Objective: objective, FeatureNames: names}
	for range names {
		m.FeatureInfos = append(m.FeatureInfos, "[0:10000]")
	}
	if objective == "regression" {
		m.NumClass, m.NumTreePerIteration = 1, 1
		k = 1
	}
	for c := range k {
		narrow, wide := 0.0, 0.0
		if c == 0 {
			narrow = 0.9
		}
		if c == k-1 {
			wide = 0.9
		}
		m.Trees = append(m.Trees, lightgbm.Tree{NumLeaves: 2, SplitFeature: []int32{0}, Threshold: []float64{1000},
			DecisionType: []int8{2}, LeftChild: []int32{-1}, RightChild: []int32{-2},
			LeafValue: []float64{narrow, wide}, Shrinkage: 1})
	}
	var s strings.Builder
	if err := m.Write(&s); err != nil {
		panic(err)
	}
	return s.String()
}

// withClassifier returns a copy of the conv2d bundle with a classifier of
// param (LS: 3 values) whose model is text.
func withClassifier(b *features.Bundle, param, text string) *features.Bundle {
	s, _ := b.Space()
	c := *b
	c.Classifiers = []features.Classifier{{Param: param, Classes: s.Params[s.Param(param)].Values, Kind: "forest",
		Features: features.ClassFeatures(b.TaskNames, nil), LightGBM: text}}
	return &c
}

func TestLoadClassifier(t *testing.T) {
	b := bundle(t)
	for _, tt := range []struct {
		name    string
		text    string
		param   string // the classifier's parameter, LS unless set
		load    string // the parameter asked for, LS unless set
		wantErr error  // nil: loads; else errors.Is
		wantMsg string
	}{
		{name: "ok", text: classifierText(b, 3, "multiclass num_class:3")},
		{name: "ova", text: classifierText(b, 3, "multiclassova num_class:3 sigmoid:1")},
		{name: "two classes for three values", text: classifierText(b, 2, "multiclass num_class:2"), wantErr: lightgbm.ErrNotMulticlass},
		{name: "four classes for three values", text: classifierText(b, 4, "multiclass num_class:4"), wantErr: lightgbm.ErrNotMulticlass},
		{name: "a regression model", text: classifierText(b, 3, "regression"), wantErr: lightgbm.ErrNotMulticlass},
		{name: "no such classifier", text: classifierText(b, 3, "multiclass num_class:3"), load: "VW", wantErr: predict.ErrNoClassifier},
		{name: "damaged text", text: "tree\nversion=v3\n", wantMsg: "lightgbm: line"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			param, load := "LS", "LS"
			if tt.param != "" {
				param = tt.param
			}
			if tt.load != "" {
				load = tt.load
			}
			c, err := predict.LoadClassifier(withClassifier(b, param, tt.text), load, nil)
			switch {
			case tt.wantErr == nil && tt.wantMsg == "":
				if err != nil {
					t.Fatalf("LoadClassifier: %v", err)
				}
			case tt.wantErr != nil:
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("LoadClassifier = %v, want an error wrapping %v", err, tt.wantErr)
				}
				return
			default:
				if err == nil || !strings.Contains(err.Error(), tt.wantMsg) {
					t.Fatalf("LoadClassifier = %v, want an error containing %q", err, tt.wantMsg)
				}
				return
			}
			pv := make([]float64, len(features.PlatformNames()))
			if err := c.Check(features.Task{640, 480, 3, 3}, pv); err != nil {
				t.Errorf("Check: %v", err)
			}
			if err := c.Check(features.Task{640, 480, 3}, pv); err == nil {
				t.Error("Check accepted a short task")
			}
			for _, tc := range []struct {
				task      features.Task
				wantValue int
			}{{features.Task{640, 480, 3, 3}, 0}, {features.Task{4096, 480, 3, 3}, 2}} {
				v, p := c.Class(tc.task, pv)
				if v != tc.wantValue || p != 0.9 {
					t.Errorf("Class(%v) = %d (p %v), want %d (p 0.9)", tc.task, v, p, tc.wantValue)
				}
			}
		})
	}
}

// TestLoadLegacyClassifier loads a classifier of a bundle written before
// the measured platform features: it takes the first ten.
func TestLoadLegacyClassifier(t *testing.T) {
	b := bundle(t)
	names := features.ClassFeatures(b.TaskNames, nil)[:len(b.TaskNames)+features.LegacyPlatformFeatures]
	lb := withClassifier(b, "LS", classifierTextOver(names, 3, "multiclass num_class:3"))
	lb.Classifiers[0].Features = names
	c, err := predict.LoadClassifier(lb, "LS", nil)
	if err != nil {
		t.Fatal(err)
	}
	p := features.Platform{Type: "gpu", ComputeUnits: 132, GlobalBandwidthGBs: 3000}
	pv := c.PlatformVector(p)
	if len(pv) != features.LegacyPlatformFeatures || pv[0] != 132 {
		t.Errorf("PlatformVector = %v, want the first %d platform features", pv, features.LegacyPlatformFeatures)
	}
	task := features.Task{4096, 480, 3, 3}
	if err := c.Check(task, pv); err != nil {
		t.Errorf("Check of its own platform vector: %v", err)
	}
	if err := c.Check(task, p.Vector()); err == nil {
		t.Error("Check accepted every platform feature for a classifier of ten")
	}
	if v, prob := c.Class(task, pv); v != 2 || prob != 0.9 {
		t.Errorf("Class = %d (p %v), want 2 (p 0.9)", v, prob)
	}
}

// TestLoadRefusesClassifierAsModel checks that a multiclass model in the
// place of a surrogate is refused as one.
func TestLoadRefusesClassifierAsModel(t *testing.T) {
	b := bundle(t)
	c := *b
	c.Models = append([]features.Model(nil), b.Models...)
	c.Models[0].LightGBM = classifierText(b, 3, "multiclass num_class:3")
	if _, err := predict.Load(&c, "", nil); !errors.Is(err, lightgbm.ErrNotRegression) {
		t.Errorf("Load of a classifier as a model = %v, want ErrNotRegression", err)
	}
}

func TestClassifierAllocs(t *testing.T) {
	b := bundle(t)
	c, err := predict.LoadClassifier(withClassifier(b, "LS", classifierText(b, 3, "multiclass num_class:3")), "LS", nil)
	if err != nil {
		t.Fatal(err)
	}
	pv := make([]float64, len(features.PlatformNames()))
	task := features.Task{640, 480, 3, 3}
	if n := testing.AllocsPerRun(100, func() { c.Class(task, pv) }); n != 0 {
		t.Errorf("Class allocates %v times, want 0", n)
	}
}

func ExampleLoadClassifier() {
	data, err := os.ReadFile("../testdata/conv2d-pocl.augur")
	if err != nil {
		panic(err)
	}
	b, err := features.ReadBundle(data)
	if err != nil {
		panic(err)
	}
	// A made-up classifier of LS; 'augur train --target LS' writes real ones.
	b = withClassifier(b, "LS", classifierText(b, 3, "multiclass num_class:3"))
	c, err := predict.LoadClassifier(b, "LS", nil)
	if err != nil {
		panic(err)
	}
	platform := features.Platform{Type: "gpu", ComputeUnits: 132}.Vector()
	ls, p := c.Class(features.Task{4096, 2048, 5, 5}, platform)
	fmt.Printf("%s=%d with probability %.1f of classes %v\n", c.Param, ls, p, c.Classes())
	// Output: LS=2 with probability 0.9 of classes [0 1 2]
}
