package eval

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/train"
)

// TestEvaluate runs the harness on the full conv2d space recorded on an
// NVIDIA H200 (testdata/h200) with few seeds, and checks what must hold
// whatever the model: percentages within (0, 100], exhaustive knowledge
// of a fully recorded shape, more budget never worse in the median for
// random search, and every part present in the JSON.
func TestEvaluate(t *testing.T) {
	var steps [][2]int
	rep, err := Evaluate("../testdata/h200", Options{Kernel: "conv2d", Seeds: 10, TwoStageSeeds: 2, Budgets: []int{8, 64},
		Thresholds: []float64{0.1}, Holdout: true, Invalid: train.InvalidZeta,
		// A given learner keeps the test fast; train's tests cover selection.
		Learner: "gbrt", GBRT: train.GBRTOptions{Trees: 50},
		Steps: func(done, total int, _ string) { steps = append(steps, [2]int{done, total}) }})
	if err != nil {
		t.Fatal(err)
	}
	// One count before the first held-out shape and one after each.
	if len(steps) != 7 || steps[0] != [2]int{0, 6} || steps[6] != [2]int{6, 6} {
		t.Errorf("steps = %v, want 0/6 to 6/6", steps)
	}
	if len(rep.Shapes) != 6 || rep.Shapes[0].Coverage != 1 {
		t.Fatalf("shapes = %+v, want 6 fully recorded", rep.Shapes)
	}
	var random []float64
	for _, s := range rep.Strategies {
		if s.Median <= 0 || s.Median > 100 || s.Runs != 60 {
			t.Errorf("strategy %+v out of range", s)
		}
		if s.Strategy == "random" {
			random = append(random, s.Median)
		}
	}
	if len(random) != 2 || random[1] < random[0] {
		t.Errorf("random search medians %v: budget 64 below budget 8", random)
	}
	if len(rep.TwoStage) != 6 {
		t.Fatalf("two-stage rows = %d, want 6", len(rep.TwoStage))
	}
	for _, r := range rep.TwoStage {
		// The first stage passes over what is known or predicted to fail,
		// so it may measure fewer than its Sample.
		if r.Pct <= 0 || r.Pct > 100 || r.Measurements < 1 || r.Failed > r.Measurements {
			t.Errorf("two-stage %+v out of range", r)
		}
	}
	if h := rep.Holdout; h == nil || len(h.Shapes) != 6 || h.Pct <= h.RefPct {
		t.Errorf("holdout = %+v, want 6 shapes chosen better than the reference", h)
	}
	// Measuring more of the runtime's candidates never does worse.
	if h := rep.Holdout; h != nil {
		if len(h.TopK) != 4 || h.TopK[0].K != 2 || h.TopK[3].K != 8 {
			t.Fatalf("top-k = %+v, want k = 2, 3, 5, 8", h.TopK)
		}
		prev := h.Pct
		for _, k := range h.TopK {
			if k.Pct < prev-1e-9 || k.Pct > 100 || k.Shapes+k.Unrecorded != 6 {
				t.Errorf("top-%d %+v below the previous %g", k.K, k, prev)
			}
			prev = k.Pct
		}
		// The candidates are the runtime's first 8, the pick first.
		for _, s := range h.Shapes {
			if len(s.Candidates) != 8 || s.Candidates[0] != s.Chosen {
				t.Errorf("%s: candidates %v, want 8 beginning with the pick %s", s.Shape, s.Candidates, s.Chosen)
			}
		}
	}
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(rep); err != nil {
		t.Fatal(err)
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(buf.Bytes(), &keys); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"strategies", "two_stage", "holdout", "learning_curve"} {
		if _, ok := keys[k]; !ok {
			t.Errorf("JSON lacks %q", k)
		}
	}
}

func TestEvaluateErrors(t *testing.T) {
	if _, err := Evaluate("../testdata/h200", Options{}); err == nil {
		t.Error("no error without a kernel")
	}
	if _, err := Evaluate("../testdata/h200", Options{Kernel: "conv2d", SampleFraction: 2}); err == nil {
		t.Error("no error for SampleFraction 2")
	}
	if _, err := Evaluate(t.TempDir(), Options{Kernel: "conv2d"}); err == nil {
		t.Error("no error for an empty directory")
	}
}

// TestGeomeanInterval: the bootstrap interval over shapes holds the
// geometric mean, stays within the shapes' range, collapses when every
// shape agrees, widens with their spread, and is absent for one shape.
func TestGeomeanInterval(t *testing.T) {
	logsOf := func(pcts ...float64) []float64 {
		l := make([]float64, len(pcts))
		for i, p := range pcts {
			l[i] = math.Log(p)
		}
		return l
	}
	narrow := logsOf(90, 92, 94, 96, 98, 91, 93, 95, 97, 99)
	wide := logsOf(60, 92, 94, 96, 98, 70, 93, 95, 97, 99)
	tests := []struct {
		name   string
		logs   []float64
		lo, hi float64 // bounds the interval must lie within
	}{
		{"one shape", logsOf(90), 0, 0},
		{"all equal", logsOf(95, 95, 95, 95), 95, 95},
		{"narrow", narrow, 90, 99},
		{"wide", wide, 60, 99},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			iv := geomeanInterval(tt.logs)
			g := geomean(tt.logs)
			if len(tt.logs) < 2 {
				g = 0
			}
			if iv[0] < tt.lo-1e-9 || iv[1] > tt.hi+1e-9 || iv[0] > g+1e-9 || iv[1] < g-1e-9 {
				t.Errorf("interval %v, geomean %g: want %g <= low <= geomean <= high <= %g", iv, g, tt.lo, tt.hi)
			}
		})
	}
	n, w := geomeanInterval(narrow), geomeanInterval(wide)
	if !(n[1]-n[0] < w[1]-w[0]) || !(n[0] < n[1]) {
		t.Errorf("narrow %v, wide %v: want a non-empty interval that widens with the spread", n, w)
	}
}

// TestHoldoutWorkersSamePicks checks that fitting the held-out shapes'
// models at once (Options.Workers) changes no pick, on one device's data
// and on a fleet's (whose folds each decide between a device's own model
// and the fleet model): each fold's models depend on its rows alone.
func TestHoldoutWorkersSamePicks(t *testing.T) {
	spec, err := datasets.ReadSpec("../examples/partialsum/partialsum.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, data string
		opt        Options
	}{
		{"one device", "../testdata/h200", Options{Kernel: "conv2d", Invalid: train.InvalidZeta}},
		{"a fleet", "../datasets/data", Options{Kernel: spec.Name, Spec: spec, Derived: spec.Derived}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var reports []*HoldoutReport
			for _, workers := range []int{1, 3} {
				opt := tc.opt
				opt.Seeds, opt.TwoStageSeeds, opt.Budgets, opt.Thresholds = 1, 1, []int{8}, []float64{0.1}
				opt.Holdout, opt.Workers, opt.Learner, opt.GBRT = true, workers, "gbrt", train.GBRTOptions{Trees: 20}
				rep, err := Evaluate(tc.data, opt)
				if err != nil {
					t.Fatal(err)
				}
				reports = append(reports, rep.Holdout)
			}
			a, _ := json.Marshal(reports[0])
			b, _ := json.Marshal(reports[1])
			if len(reports[0].Shapes) == 0 || !bytes.Equal(a, b) {
				t.Errorf("holdout with 1 worker:\n%s\nwith 3:\n%s", a, b)
			}
		})
	}
}

// TestJudged reads a report's picks and candidates for one device's
// shapes: the pick first, each configuration once, and a one-line error
// for what does not parse or a report of other devices.
func TestJudged(t *testing.T) {
	k, err := datasets.Lookup("conv2d")
	if err != nil {
		t.Fatal(err)
	}
	const shape = "width=64,height=64,filter_w=3,filter_h=3"
	a := "Xwg=8,Ywg=8,Xwpt=1,Ywpt=1,LS=0,VW=1,PAD=0,UNR=1"
	b := "Xwg=16,Ywg=8,Xwpt=2,Ywpt=8,LS=0,VW=2,PAD=0,UNR=1"
	tests := []struct {
		name    string
		shapes  []HoldoutShape
		configs int
		err     string
	}{
		{"pick and candidates", []HoldoutShape{{Platform: "d", Shape: shape, Chosen: a, Candidates: []string{a, b}}}, 2, ""},
		{"another device's shape left out", []HoldoutShape{{Platform: "d", Shape: shape, Chosen: a}, {Platform: "e", Shape: shape, Chosen: b}}, 1, ""},
		{"only other devices", []HoldoutShape{{Platform: "e", Shape: shape, Chosen: a}}, 0, "no held-out shape of d in the report (its shapes are of e)"},
		{"a shape that does not parse", []HoldoutShape{{Platform: "d", Shape: "width=64", Chosen: a}}, 0, "held-out shape \"width=64\""},
		{"a configuration that does not parse", []HoldoutShape{{Platform: "d", Shape: shape, Chosen: "Xwg=3"}}, 0, "configuration \"Xwg=3\""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := (&HoldoutReport{Shapes: tt.shapes}).Judged("d", k)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want one saying %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			task, _ := features.ParseTask(k.TaskNames, shape)
			if len(got) != 1 || len(got[task.Key()]) != tt.configs || k.Space.Format(got[task.Key()][0]) != a {
				t.Errorf("Judged = %v, want %d configurations of %s, %s first", got, tt.configs, shape, a)
			}
		})
	}
}

// FuzzJudged reads held-out reports as collect --confirm-picks does: never
// a panic, and whatever it returns parses back to the configurations it
// names, each once, for the platform asked only.
func FuzzJudged(f *testing.F) {
	f.Add(`{"shapes":[{"platform":"d","shape":"width=64,height=64,filter_w=3,filter_h=3","chosen":"Xwg=8,Ywg=8,Xwpt=1,Ywpt=1,LS=0,VW=1,PAD=0,UNR=1","candidates":["Xwg=16,Ywg=8,Xwpt=2,Ywpt=8,LS=0,VW=2,PAD=0,UNR=1"]}]}`)
	f.Add(`{"shapes":[{"platform":"e","shape":"width=64","chosen":"Xwg=3"}]}`)
	f.Add(`{"shapes":[{"platform":"d","shape":"width=-1,height=0,filter_w=3,filter_h=3","chosen":""}]}`)
	k, err := datasets.Lookup("conv2d")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, text string) {
		var h HoldoutReport
		if json.Unmarshal([]byte(text), &h) != nil {
			return
		}
		got, err := h.Judged("d", k)
		if err != nil {
			return
		}
		for key, cs := range got {
			seen := map[string]bool{}
			for _, c := range cs {
				name := k.Space.Format(c)
				if seen[name] {
					t.Errorf("shape %v: %s twice", key, name)
				}
				seen[name] = true
				if _, err := k.Space.Parse(name); err != nil {
					t.Errorf("shape %v: %s does not parse back: %v", key, name, err)
				}
			}
		}
	})
}

// TestShapeInfosNoneRan: a shape whose every row failed has no best time
// (0, not +Inf, which JSON cannot carry) and no reference figure.
func TestShapeInfosNoneRan(t *testing.T) {
	space, err := features.NewSpace([]features.Param{{Name: "a", Values: []int{1, 2}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	d := &train.Data{Platforms: []features.Platform{{Name: "dev"}}, TaskNames: []string{"n"}}
	groups := []*group{
		{task: features.Task{64}, rows: []int{0}, times: map[string]float64{}, failed: map[string]bool{"a=1": true}, refNs: 0, bestNs: math.Inf(1)},
		{task: features.Task{128}, rows: []int{1, 2}, times: map[string]float64{"a=1": 200, "a=2": 100}, failed: map[string]bool{}, refNs: 200, bestNs: 100},
	}
	infos := shapeInfos(d, groups, space)
	if infos[0].BestNs != 0 || infos[0].RefPct != 0 || infos[1].BestNs != 100 || infos[1].RefPct != 50 {
		t.Errorf("shape infos %+v, want best 0 and 100 ns, reference 0 and 50%%", infos)
	}
	if _, err := json.Marshal(infos); err != nil {
		t.Errorf("json: %v", err)
	}
}

// TestHoldoutOf: leave-one-shape-out for one device of a fleet
// (Options.HoldoutOf) chooses for that device's shapes alone, exactly as
// the whole run does for them; a device the data lacks is an error.
func TestHoldoutOf(t *testing.T) {
	k, err := datasets.ReadSpec("../examples/partialsum/partialsum.json")
	if err != nil {
		t.Fatal(err)
	}
	run := func(of string, shapes ...string) (*HoldoutReport, error) {
		rep, err := Evaluate("../datasets/data", Options{Kernel: k.Name, Spec: k, Derived: k.Derived, Seeds: 1, TwoStageSeeds: 1,
			Budgets: []int{8}, Thresholds: []float64{0.1}, Holdout: true, HoldoutOf: of, HoldoutShapes: shapes, Learner: "gbrt", GBRT: train.GBRTOptions{Trees: 20}})
		if err != nil {
			return nil, err
		}
		return rep.Holdout, nil
	}
	all, err := run("")
	if err != nil {
		t.Fatal(err)
	}
	one, err := run("nvidia-h200")
	if err != nil {
		t.Fatal(err)
	}
	var want []HoldoutShape
	for _, s := range all.Shapes {
		if s.Platform == "nvidia-h200" {
			want = append(want, s)
		}
	}
	a, _ := json.Marshal(want)
	b, _ := json.Marshal(one.Shapes)
	if len(want) == 0 || !bytes.Equal(a, b) {
		t.Errorf("the H200's shapes of the whole run:\n%s\nheld out alone:\n%s", a, b)
	}
	if _, err := run("no-such-device"); err == nil || !strings.Contains(err.Error(), `no shape of device "no-such-device"`) {
		t.Errorf("an unknown device: %v", err)
	}
	// Two of its shapes, a run shared among machines: the same entries.
	part, err := run("nvidia-h200", want[1].Shape, want[3].Shape)
	if err != nil {
		t.Fatal(err)
	}
	a, _ = json.Marshal([]HoldoutShape{want[1], want[3]})
	b, _ = json.Marshal(part.Shapes)
	if !bytes.Equal(a, b) {
		t.Errorf("two of the H200's shapes of the whole run:\n%s\nheld out alone:\n%s", a, b)
	}
	if _, err := run("", "n=3"); err == nil || !strings.Contains(err.Error(), `no shape "n=3" to hold out`) {
		t.Errorf("an unknown shape: %v", err)
	}
	if _, err := run("", "m=3"); err == nil || !strings.Contains(err.Error(), `shape to hold out: features: syntax error: shape "m=3" lacks n`) {
		t.Errorf("a shape of other names: %v", err)
	}
}

// TestHoldoutOnly checks that HoldoutOnly skips the learning curve,
// strategies and two-stage tuner, and leaves the holdout and its noise
// ceiling as a whole run has them.
func TestHoldoutOnly(t *testing.T) {
	run := func(only bool) *Report {
		rep, err := Evaluate("../testdata/h200", Options{Kernel: "conv2d", Seeds: 1, TwoStageSeeds: 1, Budgets: []int{8},
			Thresholds: []float64{0.1}, Holdout: true, HoldoutOnly: only, Learner: "gbrt", GBRT: train.GBRTOptions{Trees: 20}})
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	whole, only := run(false), run(true)
	if len(whole.LearningCurve) == 0 || len(whole.Strategies) == 0 || len(whole.TwoStage) == 0 {
		t.Fatal("the whole run lacks a learning curve, strategies or a two-stage tuner")
	}
	if len(only.LearningCurve)+len(only.Strategies)+len(only.TwoStage)+len(only.TwoStageMax) != 0 {
		t.Errorf("HoldoutOnly ran a learning curve (%d), strategies (%d) or a two-stage tuner (%d, %d)",
			len(only.LearningCurve), len(only.Strategies), len(only.TwoStage), len(only.TwoStageMax))
	}
	a, _ := json.Marshal([]any{whole.Holdout, whole.Noise})
	b, _ := json.Marshal([]any{only.Holdout, only.Noise})
	if !bytes.Equal(a, b) {
		t.Errorf("the holdout of a whole run:\n%s\nwith HoldoutOnly:\n%s", a, b)
	}
	if _, err := Evaluate("../testdata/h200", Options{Kernel: "conv2d", HoldoutOnly: true}); err == nil || !strings.Contains(err.Error(), "HoldoutOnly needs Holdout") {
		t.Errorf("HoldoutOnly alone: %v", err)
	}
}
