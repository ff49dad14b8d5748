package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/augur-tuning/augur/collect"
	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/runtime"
)

const fleetBundle = "../../testdata/conv2d-fleet.augur"

func TestChooseCLI(t *testing.T) {
	const shape = "width=1920,height=1080,filter_w=5,filter_h=5"
	tests := []struct {
		name  string
		args  []string
		lines int    // JSON lines wanted
		err   string // "" for success
		check func(t *testing.T, got []pickJSON)
	}{
		{"fleet device from the table", []string{"--model", fleetBundle, "--device", "nvidia-a100-pcie-40gb", "--shape", shape, "--json"}, 1, "",
			func(t *testing.T, got []pickJSON) {
				if s := got[0].Source; s == "reference" || !(s == "fleet" || strings.HasPrefix(s, "copy:")) {
					t.Errorf("source %q, want the fleet policy's", s)
				}
			}},
		{"table device by its name", []string{"--model", fleetBundle, "--device", "NVIDIA A100-PCIE-40GB", "--shape", shape, "--json"}, 1, "", nil},
		{"bundle device", []string{"--model", fleetBundle, "--device", "nvidia-h200", "--shape", shape, "--json"}, 1, "",
			func(t *testing.T, got []pickJSON) {
				if got[0].Source != "model:nvidia-h200" && got[0].Source != "table" {
					t.Errorf("source %q, want the H200's model", got[0].Source)
				}
			}},
		{"unknown device", []string{"--model", fleetBundle, "--device", "nvidia-a1000", "--shape", shape}, 0, "closest: ", nil},
		{"plan and shapes", []string{"--model", bundle, "--shapes", shape + ";width=640,height=480,filter_w=3,filter_h=3"}, 2, "",
			func(t *testing.T, got []pickJSON) {
				for _, p := range got {
					if p.Plan == nil || p.Plan.Dims != 2 || !strings.Contains(p.Plan.BuildOptions, "-D Xwg=") || len(p.Plan.Global) != 2 {
						t.Errorf("%s: plan %+v", p.Shape, p.Plan)
					}
				}
				if got[1].Shape != "width=640,height=480,filter_w=3,filter_h=3" {
					t.Errorf("second answer for %q", got[1].Shape)
				}
			}},
		{"top", []string{"--model", bundle, "--shape", shape, "--top", "4", "--json"}, 1, "",
			func(t *testing.T, got []pickJSON) {
				if len(got[0].Candidates) != 4 || got[0].Candidates[0].Config["Xwg"] != got[0].Config["Xwg"] {
					t.Errorf("candidates %+v", got[0].Candidates)
				}
			}},
		{"a spec's string parameter by its text", []string{"--model", "../../libaugur/testdata/specmode.augur", "--shape", "problem_size_0=5000", "--top", "3", "--json"}, 1, "",
			func(t *testing.T, got []pickJSON) {
				for _, p := range append(got[0].Candidates, got[0]) {
					mode, ok := p.Config["MODE"].(string)
					if !ok || !strings.Contains(p.Plan.BuildOptions, "-DMODE="+mode) {
						t.Errorf("MODE %#v, build options %q: want the text the kernel gets", p.Config["MODE"], p.Plan.BuildOptions)
					}
				}
			}},
		{"a bad shape among good", []string{"--model", bundle, "--shapes", shape + ";width=64,height=64,filter_w=4,filter_h=3"}, 2, "1 of 2 shapes failed", nil},
		{"shape and shapes", []string{"--model", bundle, "--shape", shape, "--shapes", shape}, 0, "one of --shape and --shapes", nil},
		{"no shape", []string{"--model", bundle}, 0, "one of --shape and --shapes", nil},
		{"negative top", []string{"--model", bundle, "--shape", shape, "--top", "-1"}, 0, "--top must be >= 1", nil},
		{"empty shapes", []string{"--model", bundle, "--shapes", " ; "}, 0, "no shapes", nil},
		{"bad platforms file", []string{"--model", fleetBundle, "--device", "x", "--platforms", "nope.csv", "--shape", shape}, 0, "nope.csv", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			err := run(context.Background(), append([]string{"choose"}, tc.args...), &out, &errOut)
			if tc.err == "" && err != nil {
				t.Fatalf("error %v", err)
			}
			if tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
				t.Fatalf("error %v, want one saying %q", err, tc.err)
			}
			var got []pickJSON
			for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
				if line == "" {
					continue
				}
				var p pickJSON
				if err := json.Unmarshal([]byte(line), &p); err != nil {
					t.Fatalf("line %q: %v", line, err)
				}
				got = append(got, p)
			}
			if len(got) != tc.lines {
				t.Fatalf("%d JSON lines, want %d: %s", len(got), tc.lines, out.String())
			}
			if tc.check != nil {
				tc.check(t, got)
			}
		})
	}
}

// TestChooseOtherDeviceWarning: choose warns when another device's only
// model answers, and only then: the device's own model named by its
// name, its slug or in another case is no other device.
func TestChooseOtherDeviceWarning(t *testing.T) {
	const shape = "width=1920,height=1080,filter_w=5,filter_h=5"
	for _, tt := range []struct {
		device string
		warn   bool
	}{
		{"nvidia-h200", false},
		{"NVIDIA H200", false},
		{"nvidia H200", false},
		{"NVIDIA H100 80GB HBM3", true},
	} {
		var stdout, stderr bytes.Buffer
		if err := run(context.Background(), []string{"choose", "--model", "../../testdata/conv2d-h200.augur", "--device", tt.device, "--shape", shape}, &stdout, &stderr); err != nil {
			t.Fatalf("%s: %v\n%s", tt.device, err, stderr.String())
		}
		if got := strings.Contains(stderr.String(), "its model of nvidia-h200 answers"); got != tt.warn {
			t.Errorf("--device %q: warned %v, want %v:\n%s", tt.device, got, tt.warn, stderr.String())
		}
	}
}

func TestChooseMany(t *testing.T) {
	data := "width=1920,height=1080,filter_w=5,filter_h=5\n# a comment\n\nwidth=640,height=480,filter_w=3,filter_h=3\n"
	var out bytes.Buffer
	ch := loadChooser(t)
	if err := chooseMany(&out, strings.NewReader(data), ch, "-", 0); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out.String(), "\n"); n != 2 {
		t.Errorf("%d lines for 2 shapes on stdin: %s", n, out.String())
	}
}

func loadChooser(t *testing.T) *runtime.Chooser {
	t.Helper()
	data, err := os.ReadFile(bundle)
	if err != nil {
		t.Fatal(err)
	}
	ch, err := runtime.New(data, runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return ch
}

// TestTuneTop measures the PoCL bundle's top 2 candidates of a tiny shape
// on the first OpenCL device, twice, and checks that choose answers from
// the wisdom file that results.
func TestTuneTop(t *testing.T) {
	if _, err := collect.ListDevices(); err != nil {
		t.Skipf("no OpenCL device: %v", err)
	}
	wisdom := filepath.Join(t.TempDir(), "conv2d.wisdom")
	args := []string{"tune", "--kernel", "conv2d", "--shape", "width=32,height=32,filter_w=3,filter_h=3", "--top", "2",
		"--model", bundle, "--wisdom", wisdom, "--repeats", "2", "--quiet"}
	for range 2 {
		var out, errOut bytes.Buffer
		if err := run(context.Background(), args, &out, &errOut); err != nil {
			t.Fatalf("%v: %s", err, errOut.String())
		}
		if !strings.Contains(out.String(), "3 records written to the wisdom") {
			t.Errorf("output %q", out.String())
		}
	}
	b, err := features.ReadBundleFile(bundle)
	if err != nil {
		t.Fatal(err)
	}
	w, err := runtime.OpenWisdom(wisdom, runtime.WisdomOptions{KernelVersion: b.KernelVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if n := len(w.Records()); n != 6 {
		t.Errorf("%d records after two runs, want 6", n)
	}
	ch, err := runtime.FromBundle(b, runtime.Options{Wisdom: w})
	if err != nil {
		t.Fatal(err)
	}
	p, err := ch.ChoosePick(features.Task{32, 32, 3, 3})
	if err != nil || p.Source != runtime.SourceWisdom {
		t.Errorf("pick from %q (%v), want wisdom", p.Source, err)
	}
	for _, bad := range [][]string{{"--top", "2"}, {"--top", "0", "--model", bundle, "--wisdom", wisdom},
		{"--wisdom", wisdom, "--max", "2"}, {"--top", "2", "--model", bundle, "--wisdom", wisdom, "--max", "3", "--out", t.TempDir()}} {
		err := run(context.Background(), append([]string{"tune", "--kernel", "conv2d", "--shape", "width=32,height=32,filter_w=3,filter_h=3"}, bad...), io.Discard, io.Discard)
		if exitStatus(err) != exitUsage {
			t.Errorf("tune %v: %v, want a usage error", bad, err)
		}
	}
}

// TestChooseWisdom checks that choose --wisdom answers a shape the file
// has measured on the device with its fastest record, ignores another
// device's records, and refuses a missing file or a fleet model with no
// device.
func TestChooseWisdom(t *testing.T) {
	const shape = "width=1920,height=1080,filter_w=5,filter_h=5"
	ch := loadChooser(t)
	task := features.Task{1920, 1080, 5, 5}
	cands, err := ch.Candidates(task, 4)
	if err != nil {
		t.Fatal(err)
	}
	slow, fast := cands[1].Config, cands[3].Config // not the model's pick
	dir := t.TempDir()
	write := func(name, device string, recs ...features.Config) string {
		path := filepath.Join(dir, name)
		w, err := runtime.OpenWisdom(path, runtime.WisdomOptions{KernelVersion: ch.KernelVersion(), Device: device})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		for i, c := range recs {
			if err := w.Record(task, c, float64(1000*(len(recs)-i))); err != nil {
				t.Fatal(err)
			}
		}
		return path
	}
	device := strings.TrimPrefix(ch.Source(), "model:")
	own := write("own.wisdom", device, slow, fast) // fast is recorded faster
	other := write("other.wisdom", "nvidia-h200", fast)
	for _, tc := range []struct {
		name, path, source string
		want               features.Config
		args               []string
		err                string
	}{
		{"own device", own, runtime.SourceWisdom, fast, nil, ""},
		{"another device's records", other, ch.Source(), nil, nil, ""},
		{"missing file", filepath.Join(dir, "none.wisdom"), "", nil, nil, "none.wisdom"},
		{"fleet model with no device", own, "", nil, []string{"--use", "fleet"}, "fleet"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			model := bundle
			if tc.args != nil {
				model = fleetBundle
			}
			var out bytes.Buffer
			err := run(context.Background(), append([]string{"choose", "--model", model, "--shape", shape, "--wisdom", tc.path, "--json"}, tc.args...), &out, io.Discard)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one saying %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got pickJSON
			if err := json.Unmarshal(out.Bytes(), &got); err != nil {
				t.Fatalf("%v: %s", err, out.String())
			}
			if got.Source != tc.source {
				t.Errorf("source %q, want %q", got.Source, tc.source)
			}
			if tc.want != nil {
				for i, name := range ch.ParamNames() {
					if got.Config[name] != float64(tc.want[i]) { // a JSON number

						t.Errorf("config %v, want %v", got.Config, tc.want)
						break
					}
				}
			}
		})
	}
}
