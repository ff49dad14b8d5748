package train

import (
	"bufio"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/predict"
	"github.com/dmitryikh/leaves"
	"github.com/sjwhitworth/golearn/base"
)

// classSynthetic returns n rows of nf integer features and a made-up class
// in [0, 3) that depends on the first two features, with some label noise.
func classSynthetic(n, nf int, seed uint64) (x []float64, y []int) {
	rng := rand.New(rand.NewPCG(seed, 2))
	x = make([]float64, n*nf)
	y = make([]int, n)
	for i := range n {
		row := x[i*nf : (i+1)*nf]
		for f := range row {
			row[f] = float64(rng.IntN(16))
		}
		switch {
		case row[0] < 5:
			y[i] = 0
		case row[1] < 8:
			y[i] = 1
		default:
			y[i] = 2
		}
		if rng.IntN(10) == 0 {
			y[i] = rng.IntN(3)
		}
	}
	return x, y
}

// bothConv2D is the conv2d data of both train directories of testdata (an
// H200 and an H100: 42 (shape, device) groups), under one directory.
func bothConv2D(t *testing.T) *Data {
	t.Helper()
	dir := t.TempDir()
	for _, sub := range []string{"h200-train", "h100-train"} {
		from, err := filepath.Abs(filepath.Join("..", "testdata", sub, "conv2d"))
		if err != nil {
			t.Fatal(err)
		}
		ents, err := os.ReadDir(from)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			files, err := filepath.Glob(filepath.Join(from, e.Name(), "*.arrow"))
			if err != nil {
				t.Fatal(err)
			}
			to := filepath.Join(dir, "conv2d", e.Name())
			if err := os.MkdirAll(to, 0o755); err != nil {
				t.Fatal(err)
			}
			for _, f := range files {
				if err := os.Symlink(f, filepath.Join(to, filepath.Base(f))); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	d, err := Load(dir, "conv2d")
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestClassForestLeaves checks that the written multiclass model loads in
// leaves and in predict, and that both give the trainer's probabilities to
// the last bit, on rows the forest never saw.
func TestClassForestLeaves(t *testing.T) {
	const nf = 4
	x, y := classSynthetic(300, nf, 1)
	names := []string{"a", "b", "c", "d"}
	for _, tt := range []struct {
		name   string
		l      ClassLearner
		minAcc float64 // on the training rows
	}{
		{"forest", ClassForestOptions{Trees: 30, Seed: 3}, 0.85},
		{"forest stumps", ClassForestOptions{Trees: 20, MaxDepth: 1, ColSample: 1}, 0.55}, // one split: two classes at most
		{"forest min leaf", ClassForestOptions{Trees: 10, MinLeaf: 20}, 0.85},
		{"golearn", GolearnOptions{Trees: 40}, 0.75}, // not reproducible: 40 trees gave 0.833-0.857 in 300 runs (15 gave 0.703 at worst)
	} {
		t.Run(tt.name, func(t *testing.T) {
			f, err := tt.l.FitClasses(x, nf, y, 3)
			if err != nil {
				t.Fatal(err)
			}
			var text strings.Builder
			if err := f.WriteLightGBM(&text, names); err != nil {
				t.Fatal(err)
			}
			lg, err := leaves.LGEnsembleFromReader(bufio.NewReader(strings.NewReader(text.String())), false)
			if err != nil {
				t.Fatalf("leaves cannot load the model: %v", err)
			}
			if got := lg.NOutputGroups(); got != 3 {
				t.Errorf("leaves has %d output groups, want 3", got)
			}
			if got, want := lg.NEstimators(), f.NumTrees(); got != want {
				t.Errorf("leaves has %d iterations, want %d", got, want)
			}
			if _, err := predict.ParseClassifier(text.String(), "p", []int{10, 20, 30}, names, nil); err == nil {
				t.Fatalf("ParseClassifier accepted features %v for a model of no platform features", names)
			}
			// The fit learned the rule: well above chance on its own rows.
			right := 0
			for i := range y {
				if f.Class(x[i*nf:(i+1)*nf]) == y[i] {
					right++
				}
			}
			if acc := float64(right) / float64(len(y)); acc < tt.minAcc {
				t.Errorf("training accuracy %.3f, want >= %v", acc, tt.minAcc)
			}
			xt, _ := classSynthetic(500, nf, 99)
			got, want := make([]float64, 3), make([]float64, 3)
			for i := range 500 {
				row := xt[i*nf : (i+1)*nf]
				if i%5 == 0 {
					row[1] += 0.5 // between training values
				}
				f.Probabilities(want, row)
				if err := lg.Predict(row, 0, got); err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("row %d: leaves %v, trainer %v", i, got, want)
				}
				if s := want[0] + want[1] + want[2]; math.Abs(s-1) > 1e-9 {
					t.Fatalf("row %d: probabilities %v sum to %v", i, want, s)
				}
			}
		})
	}
}

// TestGolearnRuntimeAgrees fits golearn's forest on the conv2d groups of
// some shapes and checks, on every group of the others, that the class the
// runtime's classifier (predict.Classifier on the exported model) predicts
// is golearn's own prediction. golearn breaks a tie of votes by map order,
// at random; on such a row the runtime's class must be one of the tied.
func TestGolearnRuntimeAgrees(t *testing.T) {
	d := bothConv2D(t)
	for _, target := range []string{"VW", "Xwpt"} {
		t.Run(target, func(t *testing.T) {
			cd, err := Classes(d, target)
			if err != nil {
				t.Fatal(err)
			}
			folds, nFolds, err := cd.FoldKeys(nil)
			if err != nil {
				t.Fatal(err)
			}
			var x []float64
			var y []int
			var test []int
			for i := range cd.Y {
				if folds[i]%3 == 0 {
					test = append(test, i)
					continue
				}
				x = append(x, cd.Row(i)...)
				y = append(y, cd.Y[i])
			}
			if len(test) == 0 || nFolds < 3 {
				t.Fatalf("%d held-out groups of %d folds", len(test), nFolds)
			}
			cf, rf, attrs, err := GolearnOptions{Trees: 25}.fit(x, len(cd.Features), y, len(cd.Classes))
			if err != nil {
				t.Fatal(err)
			}
			var text strings.Builder
			if err := cf.WriteLightGBM(&text, cd.Features); err != nil {
				t.Fatal(err)
			}
			pc, err := predict.ParseClassifier(text.String(), target, cd.Classes, cd.Features, nil)
			if err != nil {
				t.Fatal(err)
			}
			// golearn's prediction of the held-out groups, in its own grid.
			tx := make([]float64, 0, len(test)*len(cd.Features))
			ty := make([]int, len(test))
			for _, i := range test {
				tx = append(tx, cd.Row(i)...)
			}
			grid, _, err := golearnGridWith(tx, len(cd.Features), ty, len(cd.Classes), attrs)
			if err != nil {
				t.Fatal(err)
			}
			out, err := rf.Predict(grid)
			if err != nil {
				t.Fatal(err)
			}
			prob := make([]float64, len(cd.Classes))
			for j, i := range test {
				g := cd.Groups[i]
				pv := cd.Platforms[g.Platform].Vector()
				golearnClass := base.GetClass(out, j)
				value, _ := pc.Class(g.Task, pv)
				runtimeClass := classIndex(cd.Classes, value)
				pc.Probabilities(prob, g.Task, pv)
				gk := atoi(t, golearnClass) // golearn names the classes by index
				if runtimeClass != gk && prob[gk] != prob[runtimeClass] {
					t.Errorf("group %v on %s: runtime class %d (p %v), golearn's %s",
						g.Task, cd.Platforms[g.Platform].Slug(), runtimeClass, prob, golearnClass)
				}
			}
		})
	}
}

func classIndex(classes []int, v int) int {
	for k, c := range classes {
		if c == v {
			return k
		}
	}
	return -1
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	var v int
	for _, r := range s {
		if r < '0' || r > '9' {
			t.Fatalf("class %q is not a number", s)
		}
		v = v*10 + int(r-'0')
	}
	return v
}

func TestClassForestOptionsInvalid(t *testing.T) {
	x, y := classSynthetic(50, 2, 1)
	for _, tt := range []struct {
		name string
		l    ClassLearner
		x    []float64
		y    []int
		k    int
		want string
	}{
		{"trees", ClassForestOptions{Trees: -1}, x, y, 3, "Trees"},
		{"depth", ClassForestOptions{MaxDepth: 33}, x, y, 3, "MaxDepth"},
		{"min leaf", ClassForestOptions{MinLeaf: -2}, x, y, 3, "MinLeaf"},
		{"colsample", ClassForestOptions{ColSample: 1.5}, x, y, 3, "ColSample"},
		{"one class", ClassForestOptions{}, x, y, 1, "want >= 2"},
		{"class out of range", ClassForestOptions{}, x, y, 2, "not in [0, 2)"},
		{"lengths", ClassForestOptions{}, x[:7], y, 3, "values for"},
		{"golearn trees", GolearnOptions{Trees: -3}, x, y, 3, "Trees"},
		{"golearn features", GolearnOptions{Features: 3}, x, y, 3, "Features"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.l.FitClasses(tt.x, 2, tt.y, tt.k)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "train: ") {
				t.Errorf("FitClasses = %v, want a train error naming %q", err, tt.want)
			}
		})
	}
}

// TestClassForestDeterministic checks that a seed makes the fit
// reproducible, which golearn's is not (it draws from math/rand's global
// source).
func TestClassForestDeterministic(t *testing.T) {
	x, y := classSynthetic(200, 3, 5)
	text := func() string {
		f, err := ClassForestOptions{Trees: 20, Seed: 9}.FitClasses(x, 3, y, 3)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		if err := f.WriteLightGBM(&b, []string{"a", "b", "c"}); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	if text() != text() {
		t.Error("two fits with one seed differ")
	}
}

func TestCrossValidateClasses(t *testing.T) {
	d := bothConv2D(t)
	cd, err := Classes(d, "VW")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := cd.Len(), 42; got != want {
		t.Errorf("%d groups, want %d (21 shapes on 2 devices)", got, want)
	}
	for _, tt := range []struct {
		by        []string
		wantFolds int
	}{
		{nil, 21},                             // one shape, on both devices
		{[]string{"filter_w", "filter_h"}, 3}, // one filter size
		{[]string{"width", "height", "filter_w", "filter_h"}, 21},
	} {
		cv, err := CrossValidateClasses(cd, ClassForestOptions{Trees: 20, Seed: 1}, tt.by)
		if err != nil {
			t.Fatal(err)
		}
		if cv.Folds != tt.wantFolds || cv.Groups != 42 {
			t.Errorf("by %v: %d folds of %d groups, want %d of 42", tt.by, cv.Folds, cv.Groups, tt.wantFolds)
		}
		if !(cv.Accuracy >= 0 && cv.Accuracy <= 1) || !(cv.PenaltyWeighted >= cv.Accuracy*0 && cv.PenaltyWeighted <= 1) {
			t.Errorf("by %v: accuracy %v, penalty-weighted %v, want in [0, 1]", tt.by, cv.Accuracy, cv.PenaltyWeighted)
		}
		if len(cv.ByPlatform) != 2 || cv.ByPlatform[0].Groups != 21 || cv.ByPlatform[1].Groups != 21 {
			t.Errorf("by %v: per-platform scores %+v, want 2 devices of 21 groups", tt.by, cv.ByPlatform)
		} else if m := (cv.ByPlatform[0].Accuracy + cv.ByPlatform[1].Accuracy) / 2; math.Abs(m-cv.Accuracy) > 1e-12 {
			t.Errorf("by %v: per-platform accuracies %+v average %v, overall %v", tt.by, cv.ByPlatform, m, cv.Accuracy)
		}
		// The oracle scores 1 on both.
		if o := ScoreClasses(cd, cd.Y); o.Accuracy != 1 || o.PenaltyWeighted != 1 {
			t.Errorf("oracle scores %v and %v, want 1 and 1", o.Accuracy, o.PenaltyWeighted)
		}
	}
	if _, err := CrossValidateClasses(cd, ClassForestOptions{}, []string{"depth"}); err == nil {
		t.Error("CrossValidateClasses by an unknown task feature succeeded")
	}
}

func TestClassesErrors(t *testing.T) {
	d := bothConv2D(t)
	for _, tt := range []struct{ target, want string }{
		{"nope", "no parameter"},
		{"", "no parameter"},
	} {
		_, err := Classes(d, tt.target)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Classes(%q) = %v, want an error containing %q", tt.target, err, tt.want)
		}
	}
}

// TestClassForestGolden compares a small classifier's LightGBM text with
// testdata/small-multiclass.lightgbm.txt (go test -update rewrites it):
// num_class, the multiclass objective and the interleaved class trees.
func TestClassForestGolden(t *testing.T) {
	x, y := classSynthetic(60, 2, 4)
	f, err := ClassForestOptions{Trees: 2, MaxDepth: 2, Seed: 1}.FitClasses(x, 2, y, 3)
	if err != nil {
		t.Fatal(err)
	}
	var buf strings.Builder
	if err := f.WriteLightGBM(&buf, []string{"task.width", "platform.compute_units"}); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "small-multiclass.lightgbm.txt")
	if *update {
		if err := os.WriteFile(golden, []byte(buf.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got := buf.String(); got != string(want) {
		t.Errorf("WriteLightGBM output differs from %s (go test -update rewrites it):\ngot:\n%s\nwant:\n%s", golden, got, want)
	}
}

// TestStaticFeatures checks that a stencil classifier takes the kernel's
// task-only derived features, and that predict, given the definitions,
// computes the same inputs: its probabilities equal the trainer's forest's
// on every group.
func TestStaticFeatures(t *testing.T) {
	k, err := datasets.Lookup("stencil")
	if err != nil {
		t.Fatal(err)
	}
	d, err := LoadWith("../testdata/stencil-pocl", "stencil", LoadOptions{Derived: k.Derived})
	if err != nil {
		t.Fatal(err)
	}
	cd, err := Classes(d, "technique")
	if err != nil {
		t.Fatal(err)
	}
	static := k.Derived.(features.TaskDeriver).TaskNames()
	if want := features.ClassFeatures(d.TaskNames, static); !slices.Equal(cd.Features, want) {
		t.Fatalf("features %v, want %v", cd.Features, want)
	}
	f, err := ClassForestOptions{Trees: 20, Seed: 1}.FitClasses(cd.X, len(cd.Features), cd.Y, len(cd.Classes))
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	if err := f.WriteLightGBM(&text, cd.Features); err != nil {
		t.Fatal(err)
	}
	if _, err := predict.ParseClassifier(text.String(), "technique", cd.Classes, cd.Features, nil); err == nil {
		t.Error("ParseClassifier of a classifier of static features, without their definitions: no error")
	}
	pc, err := predict.ParseClassifier(text.String(), "technique", cd.Classes, cd.Features, k.Derived)
	if err != nil {
		t.Fatal(err)
	}
	want := make([]float64, len(cd.Classes))
	got := make([]float64, len(cd.Classes))
	for i, g := range cd.Groups {
		f.Probabilities(want, cd.Row(i))
		pc.Probabilities(got, g.Task, cd.Platforms[g.Platform].Vector())
		if !slices.Equal(got, want) {
			t.Fatalf("group %v: predict's probabilities %v, the trainer's %v", g.Task, got, want)
		}
	}
}

func TestClassReportWarnsOfThinLabels(t *testing.T) {
	for _, tc := range []struct {
		ran  int
		warn bool
	}{{2, true}, {minRanForLabels - 1, true}, {minRanForLabels, false}, {400, false}} {
		r := &ClassReport{Target: "technique", Classes: []int{0, 1}, Counts: []int{1, 1}, Groups: 2, MedianRan: tc.ran}
		got := r.String()
		if !strings.Contains(got, fmt.Sprintf("a median of %d configurations", tc.ran)) {
			t.Errorf("MedianRan %d: report does not say it:\n%s", tc.ran, got)
		}
		if warned := strings.Contains(got, "label from whole spaces"); warned != tc.warn {
			t.Errorf("MedianRan %d: warned %v, want %v:\n%s", tc.ran, warned, tc.warn, got)
		}
	}
}
