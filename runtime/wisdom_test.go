package runtime_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/runtime"
)

// The multi-process test re-executes the test binary with these set: the
// child appends its records to the file and exits.
const (
	envWisdomFile  = "AUGUR_WISDOM_CHILD_FILE"
	envWisdomProc  = "AUGUR_WISDOM_CHILD_PROC"
	wisdomVersion  = "v-test"
	wisdomWriters  = 16 // goroutines a process
	wisdomProcs    = 4  // child processes, besides the test's own
	wisdomPerGorou = 25 // records a goroutine
)

// appendRecords records wisdomPerGorou records from each of wisdomWriters
// goroutines; each record's shape names its process, goroutine and index.
func appendRecords(path string, proc int) error {
	w, err := runtime.OpenWisdom(path, runtime.WisdomOptions{KernelVersion: wisdomVersion, Device: "dev"})
	if err != nil {
		return err
	}
	defer w.Close()
	var wg sync.WaitGroup
	errs := make(chan error, wisdomWriters)
	for g := range wisdomWriters {
		wg.Go(func() {
			for i := range wisdomPerGorou {
				if err := w.Record(features.Task{proc, g, i, 1}, features.Config{g, i}, float64(1+proc*1000+g*10+i)); err != nil {
					errs <- err
					return
				}
				w.Best(features.Task{proc, g, i, 1})
			}
		})
	}
	wg.Wait()
	close(errs)
	return <-errs
}

func TestMain(m *testing.M) {
	if path := os.Getenv(envWisdomFile); path != "" {
		proc, _ := strconv.Atoi(os.Getenv(envWisdomProc))
		if err := appendRecords(path, proc); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestWisdomConcurrent appends from 16 goroutines in each of 5 processes
// (4 children and the test) at once, then reads every record back.
func TestWisdomConcurrent(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	path := filepath.Join(t.TempDir(), "conv2d.wisdom")
	var children []*exec.Cmd
	var outs []*bytes.Buffer
	for p := 1; p <= wisdomProcs; p++ {
		cmd := exec.Command(exe, "-test.run=^$")
		cmd.Env = append(os.Environ(), envWisdomFile+"="+path, envWisdomProc+"="+strconv.Itoa(p))
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		children, outs = append(children, cmd), append(outs, &out)
	}
	if err := appendRecords(path, 0); err != nil {
		t.Error(err)
	}
	for i, cmd := range children {
		if err := cmd.Wait(); err != nil {
			t.Errorf("child %d: %v: %s", i+1, err, outs[i])
		}
	}
	var warn bytes.Buffer
	w, err := runtime.OpenWisdom(path, runtime.WisdomOptions{KernelVersion: wisdomVersion, Device: "dev", Warn: &warn})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if warn.Len() > 0 {
		t.Errorf("warnings reading the file: %s", warn.String())
	}
	recs := w.Records()
	if want := (wisdomProcs + 1) * wisdomWriters * wisdomPerGorou; len(recs) != want {
		t.Errorf("read %d records, want %d", len(recs), want)
	}
	seen := map[features.TaskKey]bool{}
	for _, r := range recs {
		if seen[r.Shape.Key()] {
			t.Errorf("record %v twice", r.Shape)
		}
		seen[r.Shape.Key()] = true
		if want := float64(1 + r.Shape[0]*1000 + r.Shape[1]*10 + r.Shape[2]); r.TimeNs != want || r.Device != "dev" {
			t.Errorf("record %v: time %g, device %q, want %g, dev", r.Shape, r.TimeNs, r.Device, want)
		}
	}
	for p := range wisdomProcs + 1 {
		for g := range wisdomWriters {
			for i := range wisdomPerGorou {
				if cfg, _, ok := w.Best(features.Task{p, g, i, 1}); !ok || !cfg.Equal(features.Config{g, i}) {
					t.Fatalf("Best(%d,%d,%d) = %v, %v", p, g, i, cfg, ok)
				}
			}
		}
	}
}

// TestWisdomFile reads files with damaged lines and others' records.
func TestWisdomFile(t *testing.T) {
	good := `{"kernel_version":"v-test","device":"dev","shape":[64,64,3,3],"config":[1,2],"time_ns":50}`
	faster := `{"kernel_version":"v-test","device":"dev","shape":[64,64,3,3],"config":[3,4],"time_ns":20}`
	for _, tc := range []struct {
		name, text string
		records    int
		warnings   []string // substrings, one a warning line
		best       features.Config
	}{
		{"empty", "", 0, nil, nil},
		{"one", good + "\n", 1, nil, features.Config{1, 2}},
		{"fastest wins", good + "\n" + faster + "\n", 2, nil, features.Config{3, 4}},
		{"blank lines", "\n\n" + good + "\n\n", 1, nil, features.Config{1, 2}},
		{"torn tail", good + "\n" + faster[:30], 1, []string{"damaged line"}, features.Config{1, 2}},
		{"garbage", "not json\n" + good + "\n", 1, []string{"byte 0: skipped a damaged line"}, features.Config{1, 2}},
		{"bad time", strings.Replace(good, `"time_ns":50`, `"time_ns":-1`, 1) + "\n", 0, []string{"time_ns"}, nil},
		{"unknown field", strings.Replace(good, `"device"`, `"devise"`, 1) + "\n", 0, []string{"unknown field"}, nil},
		{"other version", strings.Replace(faster, "v-test", "v-old", 1) + "\n" + good + "\n", 1, []string{"1 records of another kernel, or another version of it"}, features.Config{1, 2}},
		{"other device", strings.Replace(faster, `"dev"`, `"gpu2"`, 1) + "\n" + good + "\n", 1, []string{"1 records of other devices"}, features.Config{1, 2}},
		{"no device", strings.Replace(faster, `"device":"dev",`, ``, 1) + "\n", 1, nil, features.Config{3, 4}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "w.jsonl")
			if err := os.WriteFile(path, []byte(tc.text), 0o644); err != nil {
				t.Fatal(err)
			}
			var warn bytes.Buffer
			w, err := runtime.OpenWisdom(path, runtime.WisdomOptions{KernelVersion: "v-test", Device: "dev", Warn: &warn})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			if got := len(w.Records()); got != tc.records {
				t.Errorf("got %d records, want %d", got, tc.records)
			}
			lines := strings.Split(strings.TrimSpace(warn.String()), "\n")
			if warn.Len() == 0 {
				lines = nil
			}
			if len(lines) != len(tc.warnings) {
				t.Errorf("warnings %q, want %d", lines, len(tc.warnings))
			}
			for i, want := range tc.warnings {
				if i < len(lines) && !strings.Contains(lines[i], want) {
					t.Errorf("warning %q, want it to say %q", lines[i], want)
				}
			}
			cfg, _, ok := w.Best(features.Task{64, 64, 3, 3})
			if ok != (tc.best != nil) || !cfg.Equal(tc.best) {
				t.Errorf("Best = %v, %v, want %v", cfg, ok, tc.best)
			}
			// A record after a torn line starts a line of its own.
			if err := w.Record(features.Task{128, 128, 5, 5}, features.Config{7, 7}, 10); err != nil {
				t.Fatal(err)
			}
			again, err := runtime.OpenWisdom(path, runtime.WisdomOptions{KernelVersion: "v-test", Device: "dev"})
			if err != nil {
				t.Fatal(err)
			}
			defer again.Close()
			if cfg, ns, ok := again.Best(features.Task{128, 128, 5, 5}); !ok || !cfg.Equal(features.Config{7, 7}) || ns != 10 {
				t.Errorf("reopened: Best = %v, %g, %v", cfg, ns, ok)
			}
			if got := len(again.Records()); got != tc.records+1 {
				t.Errorf("reopened: %d records, want %d", got, tc.records+1)
			}
		})
	}
}

// TestWisdomNotAWisdomFile: a file of several lines none of which is a
// record (a bundle or a CSV given by mistake) is refused, and left as it
// was.
func TestWisdomNotAWisdomFile(t *testing.T) {
	for _, text := range []string{
		"shape,config,time\n1,2,3\n",
		"hello\n", // one whole line, no JSON: no torn record either
		strings.Repeat("not a record\n", 3000),
	} {
		path := filepath.Join(t.TempDir(), "rows.csv")
		os.WriteFile(path, []byte(text), 0o644)
		var warn bytes.Buffer
		if _, err := runtime.OpenWisdom(path, runtime.WisdomOptions{KernelVersion: "v", Warn: &warn}); err == nil || !strings.Contains(err.Error(), "not a wisdom file") {
			t.Errorf("%.20q: err = %v, want one saying it is not a wisdom file", text, err)
		}
		if warn.Len() != 0 {
			t.Errorf("%.20q: %d bytes of warnings beside the error, want none", text, warn.Len())
		}
		if got, _ := os.ReadFile(path); string(got) != text {
			t.Errorf("the file changed: %.40q", got)
		}
	}
}

func TestWisdomErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := runtime.OpenWisdom(filepath.Join(dir, "w"), runtime.WisdomOptions{}); err == nil {
		t.Error("OpenWisdom accepted an empty KernelVersion")
	}
	if _, err := runtime.OpenWisdom(filepath.Join(dir, "no", "such", "dir"), runtime.WisdomOptions{KernelVersion: "v"}); err == nil {
		t.Error("OpenWisdom accepted a path in a missing directory")
	}
	w, err := runtime.OpenWisdom(filepath.Join(dir, "w"), runtime.WisdomOptions{KernelVersion: "v"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		shape features.Task
		cfg   features.Config
		ns    float64
	}{
		{"zero time", features.Task{1}, features.Config{1}, 0},
		{"NaN time", features.Task{1}, features.Config{1}, nan()},
		{"no shape", nil, features.Config{1}, 1},
		{"long shape", make(features.Task, features.MaxTaskLen+1), features.Config{1}, 1},
		{"no config", features.Task{1}, nil, 1},
	} {
		if err := w.Record(tc.shape, tc.cfg, tc.ns); err == nil {
			t.Errorf("%s: Record accepted it", tc.name)
		}
	}
	w.Close()
	if err := w.Record(features.Task{1}, features.Config{1}, 1); err == nil {
		t.Error("Record after Close succeeded")
	}
	// A store of another kernel version than the bundle's is refused.
	data, _ := os.ReadFile(testBundle)
	// Its own error: the bundle is fine, the wisdom file is not.
	if _, err := runtime.New(data, runtime.Options{Wisdom: w}); !errors.Is(err, runtime.ErrWisdomVersion) || errors.Is(err, runtime.ErrKernelVersion) {
		t.Errorf("New with another version's wisdom: %v, want ErrWisdomVersion alone", err)
	}
}

func nan() float64 { z := 0.0; return z / z }

// wiseChooser opens the test bundle plain and with a new wisdom file at
// path, which the test's end closes.
func wiseChooser(t *testing.T) (plain, wise *runtime.Chooser, w *runtime.Wisdom, path string) {
	t.Helper()
	data, _ := os.ReadFile(testBundle)
	plain, err := runtime.New(data, runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	path = filepath.Join(t.TempDir(), "w")
	if w, err = runtime.OpenWisdom(path, runtime.WisdomOptions{KernelVersion: plain.KernelVersion()}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	if wise, err = runtime.New(data, runtime.Options{Wisdom: w}); err != nil {
		t.Fatal(err)
	}
	return plain, wise, w, path
}

// TestChooseWisdom checks that Choose answers from the wisdom, and that a
// record of a shape replaces that shape's cached pick, also under
// concurrent Choose calls.
func TestChooseWisdom(t *testing.T) {
	plain, ch, w, path := wiseChooser(t)
	shape, other := features.Task{1024, 768, 5, 5}, features.Task{640, 480, 3, 3}
	before, _ := ch.ChoosePick(shape)
	otherBefore, _ := ch.ChoosePick(other)
	if before.Source == runtime.SourceWisdom {
		t.Fatalf("source %q before any record", before.Source)
	}
	cands, err := ch.Candidates(shape, 3)
	if err != nil {
		t.Fatal(err)
	}
	// Measure the candidates: the third is the fastest.
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 4 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := ch.Choose(shape); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	for i, c := range cands {
		if err := ch.Record(shape, c.Config, float64(300-100*i)); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	wg.Wait()
	after, _ := ch.ChoosePick(shape)
	if after.Source != runtime.SourceWisdom || !after.Config.Equal(cands[2].Config) {
		t.Errorf("after the records: %v from %q, want %v from wisdom", after.Config, after.Source, cands[2].Config)
	}
	// The pick carries its recorded time, and the reference's once the
	// wisdom holds one.
	if after.MeasuredNs != 100 || after.RefMeasuredNs != 0 {
		t.Errorf("measured %g, reference %g; want 100 and none", after.MeasuredNs, after.RefMeasuredNs)
	}
	if err := ch.Record(shape, ch.Reference(), 400); err != nil {
		t.Fatal(err)
	}
	if p, _ := ch.ChoosePick(shape); p.MeasuredNs != 100 || p.RefMeasuredNs != 400 {
		t.Errorf("measured %g, reference %g; want 100 and 400", p.MeasuredNs, p.RefMeasuredNs)
	}
	if p, _ := ch.ChoosePick(other); p.Source != otherBefore.Source || !p.Config.Equal(otherBefore.Config) {
		t.Errorf("another shape's pick changed: %v from %q", p.Config, p.Source)
	}
	if err := ch.Record(shape, features.Config{1, 2}, 1); err == nil {
		t.Error("Record accepted a configuration outside the space")
	}
	if err := ch.Record(features.Task{1024, 768, 4, 4}, before.Config, 1); !errors.Is(err, runtime.ErrShape) {
		t.Errorf("Record of an even filter: %v, want ErrShape", err)
	}
	if err := plain.Record(shape, before.Config, 1); err == nil {
		t.Error("Record without wisdom succeeded")
	}
	// Another process's record reaches a Chooser after Refresh.
	other2, err := runtime.OpenWisdom(path, runtime.WisdomOptions{KernelVersion: plain.KernelVersion()})
	if err != nil {
		t.Fatal(err)
	}
	defer other2.Close()
	if err := other2.Record(other, cands[1].Config, 5); err != nil {
		t.Fatal(err)
	}
	if p, _ := ch.ChoosePick(other); p.Source == runtime.SourceWisdom {
		t.Error("another store's record seen before Refresh")
	}
	if err := w.Refresh(); err != nil {
		t.Fatal(err)
	}
	if p, _ := ch.ChoosePick(other); p.Source != runtime.SourceWisdom || !p.Config.Equal(cands[1].Config) {
		t.Errorf("after Refresh: %v from %q, want %v from wisdom", p.Config, p.Source, cands[1].Config)
	}
}

// TestChooseWisdomSkipsInvalid records, straight into the store, a faster
// configuration outside the bundle's space beside a valid one: the pick is
// the valid one, not the model's.
func TestChooseWisdomSkipsInvalid(t *testing.T) {
	_, ch, w, _ := wiseChooser(t)
	shape := features.Task{1000, 1000, 5, 5}
	cands, err := ch.Candidates(shape, 2)
	if err != nil || len(cands) < 2 {
		t.Fatalf("candidates: %v, %v", cands, err)
	}
	valid := cands[1].Config
	invalid := valid.Clone()
	invalid[0] = 17 // no parameter value of the space
	for _, r := range []struct {
		cfg features.Config
		ns  float64
	}{{valid, 5000}, {invalid, 1}} {
		if err := w.Record(shape, r.cfg, r.ns); err != nil {
			t.Fatal(err)
		}
	}
	if p, _ := ch.ChoosePick(shape); p.Source != runtime.SourceWisdom || !p.Config.Equal(valid) {
		t.Errorf("pick %v from %q, want the valid recorded %v from wisdom", p.Config, p.Source, valid)
	}
}
