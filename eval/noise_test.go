package eval

import (
	"cmp"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/augur-tuning/augur/collect/record"
	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/train"
)

// kept is the row collect writes for runs, with its runs kept.
func kept(runs ...float64) Timing {
	t := timing3(runs...)
	t.Runs = runs
	return t
}

// timing3 is the row collect writes for three timed runs.
func timing3(runs ...float64) Timing {
	med, lo, cv := record.Summarize(append([]float64(nil), runs...))
	return Timing{MedianNs: med, MinNs: lo, CV: cv, Repeats: len(runs)}
}

func TestRebuildRuns(t *testing.T) {
	tests := []struct {
		name string
		runs []float64
	}{
		{"equal", []float64{100, 100, 100}},
		{"one slow", []float64{100, 100, 180}},
		{"one fast", []float64{60, 130, 130}},
		{"spread", []float64{91, 97, 250}},
		{"two", []float64{90, 110}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := RebuildRuns(timing3(tt.runs...))
			if len(got) != len(tt.runs) {
				t.Fatalf("RebuildRuns(%v) = %v", tt.runs, got)
			}
			for i := range tt.runs {
				if math.Abs(got[i]-tt.runs[i]) > 1e-6*tt.runs[i] {
					t.Fatalf("RebuildRuns = %v, want %v", got, tt.runs)
				}
			}
		})
	}
}

// TestRebuildRunsSummary checks that runs rebuilt for more than 3 timed
// runs have the row's summary, and none is faster than its minimum.
func TestRebuildRunsSummary(t *testing.T) {
	tests := []struct {
		name string
		runs []float64
	}{
		{"5 equal", []float64{100, 100, 100, 100, 100}},
		{"5 one slow", []float64{100, 100, 100, 100, 300}},
		{"5 spread", []float64{95, 99, 100, 104, 120}},
		{"7 spread", []float64{80, 90, 97, 100, 101, 130, 160}},
		{"4", []float64{90, 100, 102, 140}},
		{"6", []float64{90, 95, 100, 102, 110, 140}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := timing3(tt.runs...)
			got := RebuildRuns(want)
			if len(got) != len(tt.runs) {
				t.Fatalf("RebuildRuns(%+v) = %v", want, got)
			}
			if again := timing3(got...); math.Abs(again.MedianNs-want.MedianNs) > 1e-9*want.MedianNs ||
				again.MinNs != want.MinNs || math.Abs(again.CV-want.CV) > 1e-9 {
				t.Errorf("RebuildRuns = %v, summary %+v, want %+v", got, again, want)
			}
		})
	}
}

func TestSplitHalf(t *testing.T) {
	// X runs 100 ns every time; Y's runs are 60, 130 and 130: its median,
	// 130, loses, but one lucky run (60), or the pair holding it (mean 95),
	// beats X. Choosing by one run, judged by the other two's mean: Y's
	// lucky run is the chosen one with probability 1/3 (Y picked, 100/130),
	// else X is picked and Y's pair (95) beats it (0.95). Choosing by the
	// pair: Y's pair holds the lucky run with probability 2/3 (Y picked,
	// judged by a 130 run: 100/130), else X is picked and judged against
	// the lucky run (0.6). The two ways are averaged in log.
	x, y := timing3(100, 100, 100), timing3(60, 130, 130)
	oracle := 100 * math.Exp((math.Log(1/1.3)+2.0/3*math.Log(0.95)+1.0/3*math.Log(0.6))/2)
	// X, the recorded optimum, loses 0.95 or 0.6 as above; Y scores
	// 100/130 whenever judged by a 130 run or pair, half the time.
	xScore := 100 * math.Exp((2.0/3*math.Log(0.95)+1.0/3*math.Log(0.6))/2)
	yScore := 100 * math.Sqrt(1/1.3)
	noisy := Timing{MedianNs: 100, MinNs: 80, CV: 0.1, Repeats: 5}
	tests := []struct {
		name      string
		ts        []Timing
		judged    []int
		oracle    float64
		scores    []float64
		tolerance float64
		// Where the answer is not known: the oracle's range, open.
		between [2]float64
		// The configurations whose runs are recorded, rebuilt, drawn
		// and, of the recorded, kept in the file (Timing.Runs).
		counts [4]int
	}{
		{"no noise, recorded", []Timing{timing3(100, 100, 100), timing3(120, 120, 120)}, []int{0, 1}, 100, []float64{100, 100 * 100.0 / 120}, 1e-9, [2]float64{}, [4]int{2, 0, 0, 0}},
		{"no noise, rebuilt", []Timing{{MedianNs: 100, MinNs: 100, Repeats: 5}, {MedianNs: 150, MinNs: 150, Repeats: 5}}, []int{1}, 100, []float64{100 * 100.0 / 150}, 1e-9, [2]float64{}, [4]int{0, 2, 0, 0}},
		{"no noise, kept", []Timing{kept(100, 100, 100, 100, 100), kept(150, 150, 150, 150, 150)}, []int{1}, 100, []float64{100 * 100.0 / 150}, 1e-9, [2]float64{}, [4]int{2, 0, 0, 2}},
		{"one lucky run", []Timing{x, y}, []int{0, 1}, oracle, []float64{xScore, yScore}, 0.8, [2]float64{}, [4]int{2, 0, 0, 0}},
		// The same runs kept, in the order they ran: the same figures.
		{"one lucky run, kept", []Timing{kept(100, 100, 100), kept(130, 60, 130)}, []int{0, 1}, oracle, []float64{xScore, yScore}, 0.8, [2]float64{}, [4]int{2, 0, 0, 2}},
		// Three equal configurations: any pick is as good as another, but
		// the judging half's best is a lucky draw.
		{"noise, rebuilt", []Timing{noisy, noisy, noisy}, nil, 0, nil, 0, [2]float64{85, 100}, [4]int{0, 3, 0, 0}},
		// No 5 runs of median and minimum 100 ns have a CV of 1.9: drawn.
		{"no runs, drawn", []Timing{{MedianNs: 100, MinNs: 100, CV: 1.9, Repeats: 5}, {MedianNs: 150, MinNs: 150, Repeats: 5}}, nil, 0, nil, 0, [2]float64{0, 100}, [4]int{0, 1, 1, 0}},
		// A row with its runs beside one with its summary alone.
		{"kept and rebuilt", []Timing{kept(95, 99, 100, 104, 120), noisy}, nil, 0, nil, 0, [2]float64{70, 100}, [4]int{1, 1, 0, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sp, err := SplitHalf(tt.ts, tt.judged, NoiseOptions{Draws: 4000, Seed: 3})
			if err != nil {
				t.Fatal(err)
			}
			oracle, scores := sp.Oracle, sp.Scores
			if got := [4]int{sp.Recorded, sp.Rebuilt, sp.Drawn, sp.Kept}; got != tt.counts {
				t.Errorf("recorded, rebuilt, drawn, kept = %v, want %v", got, tt.counts)
			}
			if tt.between != [2]float64{} {
				if !(oracle > tt.between[0] && oracle < tt.between[1]) {
					t.Errorf("oracle = %.2f, want in (%g, %g)", oracle, tt.between[0], tt.between[1])
				}
				return
			}
			if math.Abs(oracle-tt.oracle) > tt.tolerance {
				t.Errorf("oracle = %.3f, want %.3f", oracle, tt.oracle)
			}
			for k := range tt.scores {
				if math.Abs(scores[k]-tt.scores[k]) > tt.tolerance {
					t.Errorf("score of %d = %.3f, want %.3f", tt.judged[k], scores[k], tt.scores[k])
				}
			}
		})
	}
}

func TestSplitHalfErrors(t *testing.T) {
	one := Timing{MedianNs: 100, MinNs: 100, Repeats: 1}
	ok := Timing{MedianNs: 100, MinNs: 100, Repeats: 3}
	tests := []struct {
		name   string
		ts     []Timing
		judged []int
		opt    NoiseOptions
		is     error
	}{
		{"one run", []Timing{ok, one}, nil, NoiseOptions{}, ErrNoRepeats},
		{"no configuration", nil, nil, NoiseOptions{}, nil},
		{"judged outside", []Timing{ok}, []int{1}, NoiseOptions{}, nil},
		{"negative draws", []Timing{ok}, nil, NoiseOptions{Draws: -1}, nil},
		{"zero median", []Timing{{Repeats: 3}}, nil, NoiseOptions{}, nil},
		{"one kept run", []Timing{ok, {MedianNs: 100, MinNs: 100, Repeats: 3, Runs: []float64{100}}}, nil, NoiseOptions{}, ErrNoRepeats},
		{"a kept run of 0 ns", []Timing{ok, kept(0, 100, 100)}, nil, NoiseOptions{}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := SplitHalf(tt.ts, tt.judged, tt.opt)
			if err == nil {
				t.Fatal("SplitHalf: no error")
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("SplitHalf: %v, want %v", err, tt.is)
			}
		})
	}
}

// FuzzRebuildRuns checks that rebuilt runs have the summary they were
// rebuilt from, and none is faster than its minimum.
func FuzzRebuildRuns(f *testing.F) {
	f.Add(uint8(5), 100.0, 5.0, 2.0, 30.0, 1.0, 0.5, 0.0)
	f.Add(uint8(3), 60.0, 70.0, 0.0, 0.0, 0.0, 0.0, 0.0)
	f.Add(uint8(7), 100.0, 10.0, 1.0, 1.0, 0.0, 40.0, 80.0)
	f.Add(uint8(5), 90.0, 10.0, 0.0, 0.0, 0.0, 0.0, 0.0)
	f.Fuzz(func(t *testing.T, n uint8, base, d1, d2, d3, d4, d5, d6 float64) {
		steps := []float64{d1, d2, d3, d4, d5, d6}
		if n < 2 || int(n) > len(steps)+1 || !(base > 1e-3 && base < 1e12) {
			t.Skip()
		}
		runs := []float64{base}
		for _, s := range steps[:n-1] {
			if !(s >= 0 && s < 1e12) {
				t.Skip()
			}
			runs = append(runs, runs[len(runs)-1]+s)
		}
		want := timing3(runs...)
		got := RebuildRuns(want)
		if got == nil {
			t.Skipf("no runs found for %+v", want) // the lognormal draws stand in
		}
		again := timing3(got...)
		if math.Abs(again.MedianNs-want.MedianNs) > 1e-6*want.MedianNs || math.Abs(again.MinNs-want.MinNs) > 1e-6*want.MinNs ||
			math.Abs(again.CV-want.CV) > 1e-6*max(want.CV, 1e-3) {
			t.Fatalf("runs %v: rebuilt %v, summary %+v, want %+v", runs, got, again, want)
		}
	})
}

// TestNoiseCeilingData reads testdata/h200's rows and matches the held-out
// picks to them by platform, shape and configuration.
func TestNoiseCeilingData(t *testing.T) {
	_, space := loadConv2d(t, "../testdata/h200")
	const shape = "width=1024,height=1024,filter_w=5,filter_h=5"
	opt := Options{Kernel: "conv2d", Noise: NoiseOptions{Draws: 10}}
	best, err := noiseCeiling("../testdata/h200", space, nil, opt)
	if err != nil {
		t.Fatal(err)
	}
	if len(best.Shapes) != 6 {
		t.Fatalf("%d shapes, want 6", len(best.Shapes))
	}
	optimum := fastestRecorded(t, shape)
	tests := []struct {
		name          string
		h             *HoldoutReport
		shapes, picks int
		pickIsOptimum bool
	}{
		{"every shape", nil, 6, 0, false},
		{"one held out, its optimum picked", &HoldoutReport{Shapes: []HoldoutShape{{Platform: "nvidia-h200", Shape: shape, Chosen: optimum}}}, 1, 1, true},
		{"a pick never recorded", &HoldoutReport{Shapes: []HoldoutShape{{Platform: "nvidia-h200", Shape: shape, Chosen: "none"}}}, 1, 0, false},
		{"another device", &HoldoutReport{Shapes: []HoldoutShape{{Platform: "nvidia-h100", Shape: shape, Chosen: optimum}}}, 0, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, err := noiseCeiling("../testdata/h200", space, tt.h, opt)
			if err != nil {
				t.Fatal(err)
			}
			if tt.shapes == 0 {
				if n != nil {
					t.Fatalf("noiseCeiling = %+v, want nil", n)
				}
				return
			}
			if len(n.Shapes) != tt.shapes || n.Picks != tt.picks || n.RowsRebuilt == 0 || n.RowsRecorded+n.RowsDrawn != 0 {
				t.Fatalf("shapes %d, picks %d, rows %d/%d/%d; want %d shapes, %d picks, rebuilt rows only",
					len(n.Shapes), n.Picks, n.RowsRecorded, n.RowsRebuilt, n.RowsDrawn, tt.shapes, tt.picks)
			}
			if !(n.Pct > 50 && n.Pct <= n.RecordedBestPct+1 && n.RecordedBestPct <= 100) {
				t.Errorf("oracle %.1f, recorded optimum %.1f: want 50 < oracle <= optimum <= 100", n.Pct, n.RecordedBestPct)
			}
			if tt.pickIsOptimum && n.PickPct != n.RecordedBestPct {
				t.Errorf("the optimum picked scores %.2f, the recorded optimum %.2f: want equal", n.PickPct, n.RecordedBestPct)
			}
		})
	}
}

// loadConv2d loads the conv2d rows under dir as train does, and their space.
func loadConv2d(t *testing.T, dir string) (*train.Data, *features.Space) {
	t.Helper()
	all, err := train.LoadWith(dir, "conv2d", train.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	space, err := features.NewSpace(all.Params, all.Constraints)
	if err != nil {
		t.Fatal(err)
	}
	return all, space
}

// fastestRecorded returns testdata/h200's fastest configuration of shape.
func fastestRecorded(t *testing.T, shape string) string {
	t.Helper()
	all, space := loadConv2d(t, "../testdata/h200")
	best, bestNs := "", math.Inf(1)
	for _, s := range all.Samples() {
		if features.FormatTask(all.TaskNames, s.Task) == shape && s.Measured() && s.TimeNs < bestNs {
			best, bestNs = space.Format(s.Config), s.TimeNs
		}
	}
	return best
}

// TestNoiseCeilingRuns reads a tiny data directory written by the record
// package, whose rows keep their timed runs or not: the ceiling splits the
// kept runs where a row has them, rebuilds them where it has not, and
// counts which.
func TestNoiseCeilingRuns(t *testing.T) {
	runs := [][]int64{
		{100, 101, 99, 100, 180},
		{104, 98, 103, 105, 102},
		{130, 131, 129, 130, 128},
	}
	tests := []struct {
		name string
		kept []bool // which configurations' rows keep their runs
	}{
		{"every row keeps its runs", []bool{true, true, true}},
		{"summaries only", []bool{false, false, false}},
		{"one row keeps its runs", []bool{false, true, false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			meta := record.Meta{Kernel: "toy", TaskNames: []string{"n"}, Params: []features.Param{{Name: "p", Values: []int{1, 2, 3}}},
				Platform: features.Platform{Name: "dev", Type: "cpu"}, Source: "collect"}
			space, err := features.NewSpace(meta.Params, nil)
			if err != nil {
				t.Fatal(err)
			}
			w, err := record.Create(filepath.Join(mkdir(t, dir, "toy", "dev"), "run.arrow"), meta, record.WriterOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var want []Timing
			nKept := 0
			for i, rs := range runs {
				xs := make([]float64, len(rs))
				for j, ns := range rs {
					xs[j] = float64(ns)
				}
				med, lo, cv := record.Summarize(slices.Clone(xs))
				r := record.Row{Task: features.Task{64}, Config: features.Config{i + 1}, Status: record.StatusOK,
					TimeNs: med, TimeMinNs: lo, TimeCV: cv, Repeats: len(rs), LogSpeedup: math.NaN()}
				tm := Timing{MedianNs: med, MinNs: lo, CV: cv, Repeats: len(rs)}
				if tt.kept[i] {
					r.Runs, tm.Runs = rs, xs
					nKept++
				}
				if err := w.Write(r); err != nil {
					t.Fatal(err)
				}
				want = append(want, tm)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			opt := Options{Kernel: "toy", Seed: 7, Noise: NoiseOptions{Draws: 50}}
			n, err := noiseCeiling(dir, space, nil, opt)
			if err != nil {
				t.Fatal(err)
			}
			if n.RowsKept != nKept || n.RowsRebuilt != len(runs)-nKept || n.RowsRecorded != nKept || n.RowsDrawn != 0 {
				t.Errorf("rows kept %d, rebuilt %d, recorded %d, drawn %d; want %d kept (and recorded), %d rebuilt",
					n.RowsKept, n.RowsRebuilt, n.RowsRecorded, n.RowsDrawn, nKept, len(runs)-nKept)
			}
			// The same split of the timings as the rows hold them.
			sp, err := SplitHalf(want, []int{0}, NoiseOptions{Draws: 50, Seed: 7})
			if err != nil {
				t.Fatal(err)
			}
			// noiseCeiling's figures are exp(ln x) of SplitHalf's, over one shape.
			if math.Abs(n.Pct-sp.Oracle) > 1e-9*sp.Oracle || math.Abs(n.RecordedBestPct-sp.Scores[0]) > 1e-9*sp.Scores[0] {
				t.Errorf("ceiling %.4f, recorded optimum %.4f; SplitHalf of the rows' timings %.4f, %.4f",
					n.Pct, n.RecordedBestPct, sp.Oracle, sp.Scores[0])
			}
		})
	}
}

// mkdir makes the directory elem under dir and returns it.
func mkdir(t *testing.T, dir string, elem ...string) string {
	t.Helper()
	p := filepath.Join(append([]string{dir}, elem...)...)
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestNoiseCeilingFewerRuns reads testdata/h200 with the second pass of
// testdata/confirm, which timed each shape's 30 fastest again with 15
// runs: a pick the second pass did not time (5 runs) is counted as judged
// by fewer runs than its optimum, the optimum itself is not.
func TestNoiseCeilingFewerRuns(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "conv2d", "nvidia-h200")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, from := range []string{"../testdata/h200/conv2d/nvidia-h200", "../testdata/confirm/conv2d/nvidia-h200"} {
		paths, err := filepath.Glob(filepath.Join(from, "*.arrow"))
		if err != nil || len(paths) == 0 {
			t.Fatalf("no files under %s: %v", from, err)
		}
		for _, p := range paths {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(sub, filepath.Base(p)), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	all, space := loadConv2d(t, dir)
	const shape = "width=1024,height=1024,filter_w=5,filter_h=5"
	// The shape's optimum and a configuration that ran but is not among
	// its 30 fastest, as train loads them (a re-timed row supersedes).
	type row struct {
		name string
		ns   float64
	}
	var rows []row
	for _, s := range all.Samples() {
		if features.FormatTask(all.TaskNames, s.Task) == shape && s.Measured() {
			rows = append(rows, row{space.Format(s.Config), s.TimeNs})
		}
	}
	slices.SortFunc(rows, func(a, b row) int { return cmp.Compare(a.ns, b.ns) })
	if len(rows) < 100 {
		t.Fatalf("%d measured rows of %s, want the whole space's", len(rows), shape)
	}
	tests := []struct {
		name        string
		chosen      string
		fewer, runs int
	}{
		{"the optimum picked", rows[0].name, 0, 15},
		{"a pick the second pass did not time", rows[len(rows)/2].name, 1, 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := &HoldoutReport{Shapes: []HoldoutShape{{Platform: "nvidia-h200", Shape: shape, Chosen: tt.chosen}}}
			n, err := noiseCeiling(dir, space, h, Options{Kernel: "conv2d", Noise: NoiseOptions{Draws: 10}})
			if err != nil {
				t.Fatal(err)
			}
			if n == nil || n.Picks != 1 || len(n.Shapes) != 1 {
				t.Fatalf("noiseCeiling = %+v, want one shape with its pick", n)
			}
			if s := n.Shapes[0]; n.PicksFewerRuns != tt.fewer || s.BestRuns != 15 || s.PickRuns != tt.runs {
				t.Errorf("picks with fewer runs %d, optimum's runs %d, pick's %d; want %d, 15, %d", n.PicksFewerRuns, s.BestRuns, s.PickRuns, tt.fewer, tt.runs)
			}
		})
	}
	// The second pass re-timed the optimum; without it, nothing did.
	h := &HoldoutReport{Shapes: []HoldoutShape{{Platform: "nvidia-h200", Shape: shape, Chosen: rows[0].name}}}
	for _, tt := range []struct {
		dir  string
		once int
	}{{dir, 0}, {"../testdata/h200", 1}} {
		n, err := noiseCeiling(tt.dir, space, h, Options{Kernel: "conv2d", Noise: NoiseOptions{Draws: 10}})
		if err != nil {
			t.Fatal(err)
		}
		if n == nil || n.OptimaOnce != tt.once {
			t.Errorf("%s: optima timed once %+v, want %d", tt.dir, n, tt.once)
		}
	}
}
