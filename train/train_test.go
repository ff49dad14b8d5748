package train

import (
	"bufio"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dmitryikh/leaves"

	"github.com/augur-tuning/augur/collect/record"
	"github.com/augur-tuning/augur/features"
)

// The datasets below are SYNTHETIC: made-up smooth speedup functions of the
// parameters, written with record.NewWriter. They test the plumbing and the
// learner, not any real kernel.

var (
	synthTasks  = []string{"width", "height"}
	synthParams = []features.Param{
		{Name: "wg", Values: []int{1, 2, 4, 8, 16, 32, 64}},
		{Name: "unroll", Values: []int{1, 2, 4, 8}},
		{Name: "vec", Values: []int{1, 2, 4}},
	}
	synthRef = features.Config{8, 1, 1}
)

func synthPlatform(name string, cu int) features.Platform {
	return features.Platform{PlatformName: "Synthetic", Name: name, Type: "gpu", ComputeUnits: cu,
		ClockMHz: 1500, MaxWorkGroupSize: 1024, LocalMemBytes: 48 << 10, GlobalMemBytes: 16 << 30}
}

func synthMeta(p features.Platform) record.Meta {
	return record.Meta{Kernel: "synth", KernelVersion: "v1", Platform: p, AugurVersion: features.Version,
		Created: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), TaskNames: synthTasks, Params: synthParams,
		Constraints: []string{"wg * vec <= 128"}, Reference: synthRef, Source: "synthetic-test"}
}

// synthLogSpeedup is the made-up truth: a best work-group size that grows
// with the device, a gentle optimum in unroll, and a vector bonus on wide
// images.
func synthLogSpeedup(t features.Task, c features.Config, cu int) float64 {
	best := math.Log2(float64(cu))
	wg := math.Log2(float64(c[0]))
	u := math.Log2(float64(c[1]))
	v := 0.1 * math.Log2(float64(c[2])) * float64(t[0]) / 1024
	return 0.8 - 0.15*(wg-best)*(wg-best) - 0.1*(u-1)*(u-1) + v
}

// writeSynth writes one file of rows for platform p under dir/synth/<slug>/.
func writeSynth(t *testing.T, dir string, p features.Platform, seed uint64, n int) {
	t.Helper()
	sub := filepath.Join(dir, "synth", p.Slug())
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	w, err := record.NewWriter(filepath.Join(sub, "run.arrow"), synthMeta(p), 0)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 2))
	for i := 0; i < n; i++ {
		task := features.Task{256 << rng.IntN(4), 256 << rng.IntN(3)}
		c := features.Config{}
		for _, prm := range synthParams {
			c = append(c, prm.Values[rng.IntN(len(prm.Values))])
		}
		r := record.Row{Task: task, Config: c, LogSpeedup: math.NaN()}
		switch {
		case c[0]*c[2] > 128:
			r.Status = record.StatusPruned
		case i%17 == 0:
			r.Status, r.Error = record.StatusCompileError, "synthetic failure"
		default:
			ref := 1e6 * float64(task[0]*task[1]) / (256 * 256)
			ls := synthLogSpeedup(task, c, p.ComputeUnits) + 0.02*rng.NormFloat64()
			r.Status, r.RefTimeNs, r.TimeNs, r.LogSpeedup, r.Repeats = record.StatusOK, ref, ref/math.Exp(ls), ls, 5
		}
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestTrainTwoPlatforms(t *testing.T) {
	dir := t.TempDir()
	small, big := synthPlatform("Small GPU", 4), synthPlatform("Big GPU", 64)
	writeSynth(t, dir, small, 1, 1500)
	writeSynth(t, dir, big, 2, 1500)

	b, rep, err := Train(dir, Options{Kernel: "synth", Seed: 1, GBRT: GBRTOptions{Trees: 50}})
	if err != nil {
		t.Fatal(err)
	}
	wantNames := []string{"big-gpu", "small-gpu", FleetModel} // platforms in file path order
	if len(b.Models) != len(wantNames) {
		t.Fatalf("got %d models, want %d", len(b.Models), len(wantNames))
	}
	for i, m := range b.Models {
		if m.Name != wantNames[i] {
			t.Errorf("model %d is %q, want %q", i, m.Name, wantNames[i])
		}
		if (m.Platform == nil) != (m.Name == FleetModel) {
			t.Errorf("model %s: Platform = %v, want nil only for the fleet", m.Name, m.Platform)
		}
		if m.Kind != "gbrt" || m.Target != "log_speedup" || m.TrainRows == 0 {
			t.Errorf("model %s: kind %q target %q rows %d", m.Name, m.Kind, m.Target, m.TrainRows)
		}
		if rho := m.Stats["cv_spearman"]; !(rho > 0.8) {
			t.Errorf("model %s: cv_spearman = %v, want > 0.8 on a smooth synthetic function", m.Name, rho)
		}
		if mre := m.Stats["cv_mre_time"]; !(mre < 0.1) {
			t.Errorf("model %s: cv_mre_time = %v, want < 0.1", m.Name, mre)
		}
		lg, err := leaves.LGEnsembleFromReader(bufio.NewReader(strings.NewReader(m.LightGBM)), true)
		if err != nil {
			t.Fatalf("model %s: leaves: %v", m.Name, err)
		}
		if lg.NFeatures() != len(b.Features) {
			t.Errorf("model %s: %d features, bundle has %d", m.Name, lg.NFeatures(), len(b.Features))
		}
	}
	if rows := b.Models[0].TrainRows + b.Models[1].TrainRows; rows != b.Models[2].TrainRows {
		t.Errorf("fleet trained on %d rows, platforms on %d together", b.Models[2].TrainRows, rows)
	}
	if b.Kernel != "synth" || b.KernelVersion != "v1" || !b.Reference.Equal(synthRef) {
		t.Errorf("bundle kernel %q version %q reference %v", b.Kernel, b.KernelVersion, b.Reference)
	}
	// The bundle passes the runtime's own checks.
	var sb strings.Builder
	if err := features.WriteBundle(&sb, b); err != nil {
		t.Fatal(err)
	}
	rb, err := features.ReadBundle([]byte(sb.String()))
	if err != nil {
		t.Fatalf("ReadBundle of the trained bundle: %v", err)
	}
	// A new bundle's models take every platform feature, measured ones
	// included, and say so in their feature names.
	if n, err := features.PlatformColumns(rb.Features); err != nil || n != len(features.PlatformNames()) {
		t.Errorf("trained bundle takes %d platform features (%v), want all %d", n, err, len(features.PlatformNames()))
	}
	if enc, err := rb.Encoder(nil); err != nil || enc.NumPlatform() != len(features.PlatformNames()) || strings.Join(enc.Names(), ",") != strings.Join(rb.Features, ",") {
		t.Errorf("trained bundle's encoder: %v, %d platform features, names %v; want the bundle's %v", err, enc.NumPlatform(), enc.Names(), rb.Features)
	}
	// The table of measured bests: one entry per (device, shape), each the
	// fastest ok row of its pair.
	if len(b.Measured) != 24 {
		t.Errorf("bundle lists %d measured bests, want 24 (2 devices x 12 shapes)", len(b.Measured))
	}
	d, err := Load(dir, "synth")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range b.Measured {
		for _, s := range d.Samples() {
			if d.Platforms[s.Platform].Slug() == e.Device && s.Task.Key() == e.Task.Key() && s.TimeNs < e.TimeNs {
				t.Errorf("measured best of %s on %v is %v ns, but %v ran in %v ns", e.Device, e.Task, e.TimeNs, s.Config, s.TimeNs)
			}
		}
	}
	if rep.Rows != b.Models[2].TrainRows || len(rep.Platforms) != 2 || rep.Shapes != 12 {
		t.Errorf("report rows %d platforms %v shapes %d", rep.Rows, rep.Platforms, rep.Shapes)
	}
	if s := rep.String(); !strings.Contains(s, "fleet") || !strings.Contains(s, "cv_spearman") {
		t.Errorf("report lacks the fleet line or the header:\n%s", s)
	}
}

func TestTrainOnePlatformNoCV(t *testing.T) {
	dir := t.TempDir()
	writeSynth(t, dir, synthPlatform("Only GPU", 16), 3, 400)
	b, rep, err := Train(dir, Options{Kernel: "synth", Folds: 1, GBRT: GBRTOptions{Trees: 10}})
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Models) != 1 || b.Models[0].Name != "only-gpu" {
		t.Fatalf("models = %+v, want just only-gpu", b.Models)
	}
	if _, ok := b.Models[0].Stats["cv_rmse_log_speedup"]; ok || rep.Models[0].CV.Folds != 0 {
		t.Errorf("Folds=1 still cross-validated: %v", b.Models[0].Stats)
	}
}

func TestTrainForestAndZeta(t *testing.T) {
	dir := t.TempDir()
	writeSynth(t, dir, synthPlatform("Only GPU", 16), 6, 800)
	ignored, _, err := Train(dir, Options{Kernel: "synth", Folds: 1})
	if err != nil {
		t.Fatal(err)
	}
	b, rep, err := Train(dir, Options{Kernel: "synth", Model: "rf", Folds: 3, Seed: 2,
		Forest: ForestOptions{Trees: 20, Seed: 2}, Load: LoadOptions{Invalid: InvalidZeta, Zeta: -3}})
	if err != nil {
		t.Fatal(err)
	}
	m := b.Models[0]
	if m.Kind != "rf" || rep.Models[0].Trees != 20 {
		t.Errorf("kind %q with %d trees, want rf with 20", m.Kind, rep.Models[0].Trees)
	}
	if got, ign := m.TrainRows, ignored.Models[0].TrainRows; got <= ign {
		t.Errorf("zeta trained on %d rows, ignore on %d; want more with the invalid rows", got, ign)
	}
	wantOpts := map[string]float64{"trees": 20, "max_depth": 12, "min_leaf": 5, "zeta": -3}
	for k, v := range wantOpts {
		if got, ok := m.Options[k]; !ok || got != v {
			t.Errorf("Options[%q] = %v, %v; want %v", k, got, ok, v)
		}
	}
	if _, ok := ignored.Models[0].Options["zeta"]; ok || ignored.Models[0].Options["learning_rate"] != 0.1 {
		t.Errorf("gbrt with invalid rows ignored: options %v, want learning_rate 0.1 and no zeta", ignored.Models[0].Options)
	}
	if !strings.Contains(m.LightGBM, "\naverage_output\n") {
		t.Error("forest model lacks average_output")
	}
	if rho := m.Stats["cv_spearman"]; !(rho > 0.7) {
		t.Errorf("forest cv_spearman = %v, want > 0.7 on a smooth synthetic function", rho)
	}
	if _, err := leaves.LGEnsembleFromReader(bufio.NewReader(strings.NewReader(m.LightGBM)), true); err != nil {
		t.Errorf("leaves cannot load the forest: %v", err)
	}
}

func TestTrainOptionErrors(t *testing.T) {
	dir := t.TempDir()
	writeSynth(t, dir, synthPlatform("Only GPU", 16), 3, 100)
	tests := []struct {
		opt  Options
		want string
	}{
		{Options{}, "Options.Kernel"},
		{Options{Kernel: "synth", Model: "svm"}, "Options.Model"},
		{Options{Kernel: "synth", Folds: -2}, "Options.Folds"},
		{Options{Kernel: "synth", GBRT: GBRTOptions{MaxDepth: -1}}, "GBRTOptions.MaxDepth"},
		{Options{Kernel: "synth", GBRT: GBRTOptions{L2: -1}}, "GBRTOptions.L2"},
		{Options{Kernel: "synth", Model: "rf", Forest: ForestOptions{ColSample: 3}}, "ForestOptions.ColSample"},
		{Options{Kernel: "synth", Load: LoadOptions{Invalid: InvalidZeta, Zeta: 1}}, "LoadOptions.Zeta"},
		{Options{Kernel: "synth", Load: LoadOptions{Invalid: 7}}, "LoadOptions.Invalid"},
		{Options{Kernel: "nothing"}, "no dataset files"},
	}
	for _, tt := range tests {
		if _, _, err := Train(dir, tt.opt); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Train(%+v): err = %v, want one mentioning %q", tt.opt, err, tt.want)
		}
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	p := synthPlatform("Only GPU", 16)
	writeSynth(t, dir, p, 4, 300)
	_, rows, err := record.ReadFile(filepath.Join(dir, "synth", p.Slug(), "run.arrow"))
	if err != nil {
		t.Fatal(err)
	}
	// The random sample repeats some (task, config) pairs; the loader
	// keeps one row of each.
	ok, all := map[string]bool{}, map[string]bool{}
	for _, r := range rows {
		key := fmt.Sprint(r.Task, r.Config)
		all[key] = true
		if r.Status == record.StatusOK {
			ok[key] = true
		}
	}
	tests := []struct {
		name     string
		opt      LoadOptions
		wantRows int
	}{
		{"ignore", LoadOptions{}, len(ok)},
		{"zeta", LoadOptions{Invalid: InvalidZeta}, len(all)},
	}
	for _, tt := range tests {
		d, err := LoadWith(dir, "synth", tt.opt)
		if err != nil {
			t.Fatal(err)
		}
		if d.Len() != tt.wantRows {
			t.Errorf("%s: %d rows, want %d", tt.name, d.Len(), tt.wantRows)
		}
		if got, want := len(d.Features), len(synthTasks)+len(synthParams)+len(features.PlatformNames()); got != want {
			t.Errorf("%s: %d features, want %d", tt.name, got, want)
		}
		for i, s := range d.Samples() {
			row := d.Row(i)
			if row[0] != float64(s.Task[0]) || row[2] != float64(s.Config[0]) {
				t.Fatalf("%s: row %d = %v, want task %v config %v first", tt.name, i, row, s.Task, s.Config)
			}
			switch {
			case s.Measured() && math.Abs(d.Y[i]-math.Log(s.RefTimeNs/s.TimeNs)) > 1e-12:
				t.Fatalf("%s: row %d: y = %v, want ln(ref/t) = %v", tt.name, i, d.Y[i], math.Log(s.RefTimeNs/s.TimeNs))
			case !s.Measured() && d.Y[i] != DefaultZeta:
				t.Fatalf("%s: invalid row %d: y = %v, want %v", tt.name, i, d.Y[i], DefaultZeta)
			}
		}
	}
}

// TestLoadSpecs checks that a device's unmeasured platform features come
// from its spec, matched by name whatever the case, and measured ones stay.
func TestLoadSpecs(t *testing.T) {
	dir := t.TempDir()
	unmeasured := synthPlatform("Small GPU", 4)
	measured := synthPlatform("Big GPU", 64)
	measured.GlobalBandwidthGBs, measured.LaunchOverheadUs = 700, 6
	writeSynth(t, dir, unmeasured, 1, 100)
	writeSynth(t, dir, measured, 2, 100)
	specs := []features.Platform{
		{Name: "SMALL gpu", GlobalBandwidthGBs: 300, FP32GFLOPs: 9000},
		{Name: "Big GPU", GlobalBandwidthGBs: 900, FP32GFLOPs: 20000, LocalBandwidthGBs: 10000},
	}
	bw := features.PlatformIndex("global_bw_gbs")
	tests := []struct {
		name  string
		specs []features.Platform
		want  map[string][4]float64 // by slug: global, fp32, local, launch
	}{
		{"no specs", nil, map[string][4]float64{"small-gpu": {}, "big-gpu": {700, 0, 0, 6}}},
		{"specs", specs, map[string][4]float64{"small-gpu": {300, 9000, 0, 0}, "big-gpu": {700, 20000, 10000, 6}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := LoadWith(dir, "synth", LoadOptions{Specs: tt.specs})
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range d.Platforms {
				got := [4]float64{p.GlobalBandwidthGBs, p.FP32GFLOPs, p.LocalBandwidthGBs, p.LaunchOverheadUs}
				if want := tt.want[p.Slug()]; got != want {
					t.Errorf("%s: measured features %v, want %v", p.Slug(), got, want)
				}
			}
			at := len(d.Features) - len(features.PlatformNames()) + bw
			if d.Features[at] != "platform.global_bw_gbs" {
				t.Fatalf("column %d is %q, want platform.global_bw_gbs", at, d.Features[at])
			}
			for i, s := range d.Samples() {
				if got, want := d.Row(i)[at], d.Platforms[s.Platform].GlobalBandwidthGBs; got != want {
					t.Fatalf("row %d: global_bw_gbs %v, want its device's %v", i, got, want)
				}
			}
		})
	}
}

func TestLoadMismatch(t *testing.T) {
	tests := []struct {
		name   string
		change func(*record.Meta)
		want   string
	}{
		{"version", func(m *record.Meta) { m.KernelVersion = "v2" }, "kernel version"},
		{"tasks", func(m *record.Meta) { m.TaskNames = []string{"height", "width"} }, "task names"},
		{"params", func(m *record.Meta) {
			m.Params = append([]features.Param{}, synthParams...)
			m.Params[1] = features.Param{Name: "unroll", Values: []int{1, 2}}
		}, "parameters"},
		{"reference", func(m *record.Meta) { m.Reference = features.Config{16, 1, 1} }, "reference"},
		{"kernel", func(m *record.Meta) { m.Kernel = "other" }, "holds kernel"},
	}
	for _, tt := range tests {
		dir := t.TempDir()
		writeSynth(t, dir, synthPlatform("A GPU", 16), 5, 50)
		meta := synthMeta(synthPlatform("B GPU", 16))
		tt.change(&meta)
		sub := filepath.Join(dir, "synth", "b-gpu")
		os.MkdirAll(sub, 0o755)
		w, err := record.NewWriter(filepath.Join(sub, "run.arrow"), meta, 0)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		_, err = Load(dir, "synth")
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "b-gpu") {
			t.Errorf("%s: err = %v, want one naming %q and the file", tt.name, err, tt.want)
		}
	}
}

// A spec kernel's data may hold files collected before the kernel or its
// spec changed: LoadOptions.KernelVersion reads only its own version's.
func TestLoadKernelVersion(t *testing.T) {
	dir := t.TempDir()
	writeSynth(t, dir, synthPlatform("A GPU", 16), 5, 50) // version v1
	meta := synthMeta(synthPlatform("B GPU", 16))
	meta.KernelVersion = "v2"
	sub := filepath.Join(dir, "synth", "b-gpu")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	w, err := record.NewWriter(filepath.Join(sub, "run.arrow"), meta, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		version string
		others  int    // files left out
		err     string // "" when it loads
	}{
		{"", 0, "changed between collections"},
		{"v1", 1, ""},
		{"v3", 2, "none of the 2 files"},
	}
	if _, err := LoadWith(dir, "synth", LoadOptions{KernelVersion: "v1", TaskNames: []string{"n"}}); err == nil || !strings.Contains(err.Error(), "data of another kernel") {
		t.Errorf("files of other task names than the kernel's: err = %v", err)
	}
	for _, tt := range tests {
		d, err := LoadWith(dir, "synth", LoadOptions{KernelVersion: tt.version})
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("version %q: err = %v, want one saying %q", tt.version, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("version %q: %v", tt.version, err)
		}
		if len(d.OtherVersions) != tt.others || d.KernelVersion != tt.version || len(d.Platforms) != 1 {
			t.Errorf("version %q: %d files left out, version %q, %d platforms; want %d, %q, 1",
				tt.version, len(d.OtherVersions), d.KernelVersion, len(d.Platforms), tt.others, tt.version)
		}
	}
}

func TestCrossValidateGroups(t *testing.T) {
	// The same (task, config) on two platforms must land in one fold.
	d := &Data{Features: []string{"x"}}
	for i := 0; i < 40; i++ {
		for p := 0; p < 2; p++ {
			if err := d.Append([]float64{float64(i)}, 0, Sample{Task: features.Task{i % 4}, Config: features.Config{i}, Platform: p}); err != nil {
				t.Fatal(err)
			}
		}
	}
	fold, err := assignFolds(d, 5, 9)
	if err != nil {
		t.Fatal(err)
	}
	count := make([]int, 5)
	for i := 0; i < len(fold); i += 2 {
		if fold[i] != fold[i+1] {
			t.Errorf("rows %d and %d share (task, config) but sit in folds %d and %d", i, i+1, fold[i], fold[i+1])
		}
		count[fold[i]]++
	}
	for k, c := range count {
		if c != 8 {
			t.Errorf("fold %d holds %d groups, want 8", k, c)
		}
	}
	if _, err := CrossValidate(d, 1, GBRTOptions{}, 0); err == nil {
		t.Error("CrossValidate with 1 fold succeeded, want an error")
	}
	if _, err := assignFolds(d, 41, 0); err == nil {
		t.Error("41 folds over 40 groups succeeded, want an error")
	}
}

func TestSpearman(t *testing.T) {
	tests := []struct {
		a, b   []float64
		want   float64
		wantOK bool
	}{
		{[]float64{1, 2, 3, 4}, []float64{10, 20, 30, 40}, 1, true},
		{[]float64{1, 2, 3, 4}, []float64{4, 3, 2, 1}, -1, true},
		{[]float64{1, 1, 1}, []float64{1, 2, 3}, 0, true},
		{[]float64{1, 2, 3}, []float64{5, 5, 5}, 0, false},
		{[]float64{1, 2, 2, 3}, []float64{1, 2, 3, 4}, 0.9486832980505138, true},
	}
	for _, tt := range tests {
		got, ok := spearman(tt.a, tt.b)
		if ok != tt.wantOK || math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("spearman(%v, %v) = %v, %v; want %v, %v", tt.a, tt.b, got, ok, tt.want, tt.wantOK)
		}
	}
}

// TestFitRegressor fits with each learner setting: the learner given, or
// the first candidate of the selection on data of one shape.
func TestFitRegressor(t *testing.T) {
	dir := t.TempDir()
	writeSynth(t, dir, synthPlatform("Only GPU", 16), 3, 400)
	d, err := Load(dir, "synth")
	if err != nil {
		t.Fatal(err)
	}
	// One shape, as the two-stage tuner's first stage has.
	var rows []int
	for i, s := range d.Samples() {
		if s.Task.Key() == d.Sample(0).Task.Key() {
			rows = append(rows, i)
		}
	}
	one := d.Subset(rows)
	// One shape: selected on folds of its configurations (selectOne).
	oneChoice, _, err := Select(one, SelectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		d        *Data
		opt      Options
		wantName string
		wantErr  string
	}{
		{"gbrt", d, Options{Model: "gbrt", GBRT: GBRTOptions{Trees: 7}}, "gbrt", ""},
		{"gbrt by its options", d, Options{GBRT: GBRTOptions{Trees: 7}}, "gbrt", ""},
		{"rf", d, Options{Model: "rf", Forest: ForestOptions{Trees: 5}}, "rf", ""},
		{"auto on one shape", one, Options{Model: "auto"}, oneChoice.Name, ""},
		{"bad learner", d, Options{Model: "svm"}, "", `Options.Model must be`},
		{"bad option", d, Options{Model: "gbrt", GBRT: GBRTOptions{MaxLeaves: 1}}, "", "train:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, name, err := FitRegressor(tc.d, tc.opt)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if name != tc.wantName {
				t.Errorf("learner %q, want %q", name, tc.wantName)
			}
			if p := r.Predict(tc.d.Row(0)); math.IsNaN(p) {
				t.Errorf("prediction NaN")
			}
		})
	}
}

// TestTrainFewConfigurations: data of fewer configurations than the
// default 5 folds (a small import) trains without cross-validation, while
// folds asked for that the data cannot fill are an error.
func TestTrainFewConfigurations(t *testing.T) {
	dir := t.TempDir()
	writeSynth(t, dir, synthPlatform("Only GPU", 16), 3, 200)
	d, err := Load(dir, "synth")
	if err != nil {
		t.Fatal(err)
	}
	var rows []int
	for i, s := range d.Samples() {
		if s.Measured() && len(rows) < 3 {
			rows = append(rows, i)
		}
	}
	small := d.Subset(rows)
	tests := []struct {
		folds, wantFolds int
		wantErr          bool
	}{
		{0, 0, false}, // the default: no cross-validation
		{1, 0, false},
		{3, 3, false},
		{5, 0, true},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.folds), func(t *testing.T) {
			b, rep, err := TrainData(small, Options{Kernel: "synth", Folds: tt.folds, Model: "gbrt", GBRT: GBRTOptions{Trees: 5}})
			if tt.wantErr {
				if !errors.Is(err, errFewPairs) {
					t.Fatalf("err = %v, want errFewPairs", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(b.Models) == 0 || rep.Models[0].CV.Folds != tt.wantFolds {
				t.Errorf("%d models, CV %+v; want a model with %d folds", len(b.Models), rep.Models[0].CV, tt.wantFolds)
			}
		})
	}
}
