package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

const (
	poclBundle  = "../testdata/conv2d-pocl.augur"
	fleetBundle = "../testdata/conv2d-fleet.augur"
	// valuesBundle is a spec kernel whose configuration sets two arguments
	// (collect/testdata/specscale: the scalar wg = WG, the local buffer
	// scratch of WG floats), trained on PoCL.
	valuesBundle = "testdata/specscale.augur"
	// labelsBundle is a spec kernel with a string parameter
	// (collect/testdata/specmode: WG, MODE of 'mul', 'add', 'sub'),
	// trained on PoCL.
	labelsBundle = "testdata/specmode.augur"
)

var shape = []int64{1920, 1080, 5, 5}

func TestOpenErrors(t *testing.T) {
	pocl, err := os.ReadFile(poclBundle)
	if err != nil {
		t.Fatal(err)
	}
	damaged := append([]byte(nil), pocl...)
	copy(damaged[len(damaged)/2:], strings.Repeat("x", 64))
	tests := []struct {
		name string
		opt  openOptions
		want status
		msg  string
	}{
		{"nothing", openOptions{}, statusArg, "no bundle"},
		{"both", openOptions{Path: poclBundle, Bundle: pocl}, statusArg, "both"},
		{"missing file", openOptions{Path: "/nonexistent.augur"}, statusIO, "no such file"},
		{"not a bundle", openOptions{Bundle: []byte("hello")}, statusBundle, "features:"},
		{"damaged", openOptions{Bundle: damaged}, statusBundle, "features:"},
		{"cut", openOptions{Bundle: pocl[:len(pocl)/3]}, statusBundle, "features:"},
		{"bad platform", openOptions{Path: poclBundle, PlatformJSON: "{"}, statusArg, "platform_json"},
		{"two platforms", openOptions{Path: poclBundle, PlatformJSON: `[{"name":"a"},{"name":"b"}]`}, statusArg, "2 devices"},
		{"nameless platform", openOptions{Path: poclBundle, PlatformJSON: `{"type":"gpu"}`}, statusArg, "no device name"},
		// The case: a device the fleet bundle has no model of must
		// not get the reference silently; one the device table lacks too
		// has no features for the fleet model.
		{"unknown device", openOptions{Path: fleetBundle, Device: "Some Future GPU"}, statusDevice, `no device "Some Future GPU"`},
		{"wisdom dir", openOptions{Path: poclBundle, WisdomPath: t.TempDir()}, statusIO, "wisdom"},
		// A CPU's only model is not served to a GPU in silence.
		{"another device's model", openOptions{Path: poclBundle, Device: "nvidia-h200"}, statusDevice, "its only model is of pocl-cpu"},
		{"another device's model, described", openOptions{Path: "../testdata/conv2d-h200.augur", PlatformJSON: `{"name":"NVIDIA H100 80GB HBM3","type":"gpu"}`}, statusDevice, "open with no device"},
		// The fleet model with no device named: whose records?
		{"fleet wisdom, no device", openOptions{Path: fleetBundle, WisdomPath: filepath.Join(t.TempDir(), "w.jsonl")}, statusDevice, "name the device"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := newLibrary()
			h, err := l.open(tt.opt)
			if got := codeOf(err); got != tt.want || err == nil || !strings.Contains(err.Error(), tt.msg) {
				t.Fatalf("open = %d, %v; want code %d and a message with %q", h, err, tt.want, tt.msg)
			}
			if len(l.handles) != 0 {
				t.Errorf("a failed open left %d handles", len(l.handles))
			}
		})
	}
}

// TestOpenTableDevice: a device named that the bundle has no model of but
// the shipped device table knows is served with the table's features, by
// the fleet bundle's policy for such a device (as 'augur choose --device'
// serves it), not refused.
func TestOpenTableDevice(t *testing.T) {
	for _, name := range []string{"NVIDIA A100-PCIE-40GB", "nvidia-a100-pcie-40gb"} {
		l := newLibrary()
		h, err := l.open(openOptions{Path: fleetBundle, Device: name})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		c, _ := l.get(h)
		if src := c.chooser.Source(); src != "fleet" && src != "copy" {
			t.Errorf("%s: source %q, want the fleet model's policy (fleet or copy)", name, src)
		}
	}
}

func TestOpenPlatformForms(t *testing.T) {
	const dev = `{"platform_name":"Portable Computing Language","name":"pthread-skylake-avx512-AMD EPYC","type":"cpu","compute_units":2}`
	for _, js := range []string{dev, "[" + dev + "]", `{"Platform":` + dev + `,"Failures":null}`} {
		l := newLibrary()
		h, err := l.open(openOptions{Path: poclBundle, PlatformJSON: js})
		if err != nil {
			t.Fatalf("%s: %v", js, err)
		}
		c, _ := l.get(h)
		if src := c.chooser.Source(); !strings.HasPrefix(src, "model:pocl") {
			t.Errorf("%s: source %q, want the PoCL model", js, src)
		}
	}
}

func TestChooseErrors(t *testing.T) {
	l := newLibrary()
	h, err := l.open(openOptions{Path: poclBundle})
	if err != nil {
		t.Fatal(err)
	}
	c, err := l.get(h)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		shape []int64
		want  status
	}{
		{"ok", shape, statusOK},
		{"short", shape[:3], statusShape},
		{"empty", nil, statusShape},
		{"long", append(append([]int64(nil), shape...), 1), statusShape},
		{"even filter", []int64{1920, 1080, 4, 5}, statusShape},
		{"huge", []int64{1 << 40, 1080, 5, 5}, statusShape},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := c.choose(tt.shape)
			if got := codeOf(err); got != tt.want {
				t.Fatalf("choose(%v) = %v, code %d; want %d", tt.shape, err, got, tt.want)
			}
			if err == nil && (len(p.Config) != 8 || p.Plan.Dims != 2) {
				t.Errorf("pick %+v", p)
			}
		})
	}
	if _, err := l.get(h + 1); codeOf(err) != statusHandle {
		t.Errorf("get of an unknown handle: %v", err)
	}
	if err := l.close(h); err != nil {
		t.Fatal(err)
	}
	if err := l.close(h); codeOf(err) != statusHandle {
		t.Errorf("second close: %v, want code %d", err, statusHandle)
	}
}

func TestRecord(t *testing.T) {
	path := filepath.Join(t.TempDir(), "w.jsonl")
	l := newLibrary()
	h, err := l.open(openOptions{Path: poclBundle, WisdomPath: path})
	if err != nil {
		t.Fatal(err)
	}
	c, _ := l.get(h)
	ref := []int64{8, 8, 1, 1, 0, 1, 0, 0}
	tests := []struct {
		name   string
		shape  []int64
		config []int64
		timeNs float64
		want   status
	}{
		{"short config", shape, ref[:7], 1000, statusConfig},
		{"outside the space", shape, []int64{8, 8, 1, 1, 0, 2, 0, 0}, 1000, statusConfig},
		{"bad shape", []int64{1920, 1080, 4, 4}, ref, 1000, statusShape},
		{"zero time", shape, ref, 0, statusArg},
		{"ok", shape, ref, 1000, statusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := c.record(tt.shape, tt.config, tt.timeNs); codeOf(err) != tt.want {
				t.Fatalf("record = %v, want code %d", err, tt.want)
			}
		})
	}
	p, err := c.choose(shape)
	if err != nil || p.Source != "wisdom" || fmt.Sprint(p.Config) != "[8 8 1 1 0 1 0 0]" {
		t.Errorf("after record: %v %+v", err, p)
	}
	l2 := newLibrary()
	h2, err := l2.open(openOptions{Path: poclBundle})
	if err != nil {
		t.Fatal(err)
	}
	c2, _ := l2.get(h2)
	if err := c2.record(shape, ref, 1000); codeOf(err) != statusNoWisdom {
		t.Errorf("record without wisdom: %v", err)
	}
}

// TestRecordDeviceNames: a record carries the device's slug whatever name
// the chooser was opened with, so that choosers opened by the device's
// name, its slug, or none (the bundle's only model) share the records.
func TestRecordDeviceNames(t *testing.T) {
	const bundle = "../testdata/conv2d-h200.augur"
	path := filepath.Join(t.TempDir(), "w.jsonl")
	ref := []int64{8, 8, 1, 1, 0, 1, 0, 0}
	l := newLibrary()
	h, err := l.open(openOptions{Path: bundle, Device: "NVIDIA H200", WisdomPath: path})
	if err != nil {
		t.Fatal(err)
	}
	c, _ := l.get(h)
	if err := c.record(shape, ref, 1000); err != nil {
		t.Fatal(err)
	}
	text, err := os.ReadFile(path)
	if err != nil || !strings.Contains(string(text), `"device":"nvidia-h200"`) {
		t.Errorf("record %s (%v), want the device's slug nvidia-h200", text, err)
	}
	for _, device := range []string{"nvidia-h200", "NVIDIA H200", ""} {
		h, err := l.open(openOptions{Path: bundle, Device: device, WisdomPath: path})
		if err != nil {
			t.Fatalf("%q: %v", device, err)
		}
		c, _ := l.get(h)
		if p, err := c.choose(shape); err != nil || p.Source != "wisdom" {
			t.Errorf("opened as %q: %v, source %q; want the record (wisdom)", device, err, p.Source)
		}
	}
}

func TestCandidates(t *testing.T) {
	l := newLibrary()
	h, _ := l.open(openOptions{Path: poclBundle})
	c, _ := l.get(h)
	if _, err := c.candidates(shape, 0); codeOf(err) != statusArg {
		t.Errorf("k=0: %v", err)
	}
	ps, err := c.candidates(shape, 5)
	if err != nil || len(ps) != 5 {
		t.Fatalf("candidates = %d, %v", len(ps), err)
	}
	p, _ := c.choose(shape)
	if fmt.Sprint(ps[0].Config) != fmt.Sprint(p.Config) {
		t.Errorf("first candidate %v, pick %v", ps[0].Config, p.Config)
	}
}

// TestConcurrent opens, chooses and closes from many goroutines at once
// (run with -race).
func TestConcurrent(t *testing.T) {
	l := newLibrary()
	shared, err := l.open(openOptions{Path: poclBundle})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 20 {
				c, err := l.get(shared)
				if err != nil {
					t.Error(err)
					return
				}
				if _, err := c.choose([]int64{int64(256 + 16*g), int64(256 + 32*i), 3, 5}); err != nil {
					t.Error(err)
				}
			}
			h, err := l.open(openOptions{Path: poclBundle})
			if err != nil {
				t.Error(err)
				return
			}
			if err := l.close(h); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if len(l.handles) != 1 {
		t.Errorf("%d handles left, want 1", len(l.handles))
	}
}

func TestJoinNames(t *testing.T) {
	buf := make([]byte, 8)
	if err := joinNames([]string{"ab", "cd"}, buf); err != nil || string(buf[:6]) != "ab,cd\x00" {
		t.Errorf("joinNames = %q, %v", buf, err)
	}
	if err := joinNames([]string{"abcd", "efgh"}, buf); codeOf(err) != statusTruncated {
		t.Errorf("joinNames of 10 bytes into 8: %v", err)
	}
}

// TestCutSource checks the cut of a source label that the struct cannot
// hold (a long device slug): it fits, with its end marked, and a label
// that fits is kept whole.
func TestCutSource(t *testing.T) {
	long := "model:pocl-cpu-pthread-sapphirerapids-intel-r-xeon-r-platinum-8480c"
	for _, tt := range []struct {
		in   string
		n    int
		want string
	}{
		{"fleet", 63, "fleet"},
		{long[:63], 63, long[:63]},
		{long, 63, long[:60] + "..."},
	} {
		if got := cut(tt.in, tt.n); got != tt.want || len(got) > tt.n {
			t.Errorf("cut(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
}

// TestOpenTrusted opens a signed bundle with the signer's key, and refuses
// it with another key, without a signature, and when changed.
func TestOpenTrusted(t *testing.T) {
	const bundle = "../testdata/conv2d-pocl.augur"
	signer, err := os.ReadFile("../python/tests/testdata/signer.pub")
	if err != nil {
		t.Fatal(err)
	}
	other, _ := os.ReadFile("../python/tests/testdata/other.pub")
	sig := "../python/tests/testdata/conv2d-pocl.augur.sig"
	data, _ := os.ReadFile(bundle)
	changed := append([]byte(nil), data...)
	changed[len(changed)-200] ^= 1
	tests := []struct {
		name string
		opt  openOptions
		want status
	}{
		{"signer", openOptions{Path: bundle, TrustedKeysPEM: string(signer), SignaturePath: sig}, statusOK},
		{"both keys", openOptions{Path: bundle, TrustedKeysPEM: string(other) + string(signer), SignaturePath: sig}, statusOK},
		// Files joined with no newline between them (the first lacks its
		// final one): the signer's key, second, must still be read.
		{"both keys, no newline between", openOptions{Path: bundle, TrustedKeysPEM: strings.TrimRight(string(other), "\n") + string(signer), SignaturePath: sig}, statusOK},
		{"other key", openOptions{Path: bundle, TrustedKeysPEM: string(other), SignaturePath: sig}, statusUntrusted},
		{"no signature", openOptions{Path: bundle, TrustedKeysPEM: string(signer)}, statusUntrusted},
		{"changed", openOptions{Bundle: changed, TrustedKeysPEM: string(signer), SignaturePath: sig}, statusUntrusted},
		{"not a key", openOptions{Path: bundle, TrustedKeysPEM: "hello", SignaturePath: sig}, statusArg},
		{"no keys, unsigned", openOptions{Path: bundle}, statusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := newLibrary()
			_, err := l.open(tt.opt)
			if got := codeOf(err); got != tt.want {
				t.Errorf("code %d (%v), want %d", got, err, tt.want)
			}
		})
	}
}

// TestPlanValue checks the arguments a configuration sets, as libaugur
// gives them: their names, each value, and the errors.
func TestPlanValue(t *testing.T) {
	l := newLibrary()
	h, err := l.open(openOptions{Path: valuesBundle})
	if err != nil {
		t.Fatal(err)
	}
	c, _ := l.get(h)
	if got := strings.Join(c.valueNames, ","); got != "wg,scratch" {
		t.Fatalf("value names %q, want wg,scratch", got)
	}
	shape := []int64{3000}
	tests := []struct {
		name   string
		config []int64
		arg    string
		want   float64
		code   status
	}{
		{"scalar", []int64{16, 0, 0}, "wg", 16, statusOK},
		{"local buffer bytes", []int64{32, 1, 0}, "scratch", 128, statusOK},
		{"an argument the configuration does not set", []int64{16, 0, 0}, "in", 0, statusArg},
		{"short configuration", []int64{16, 0}, "wg", 0, statusConfig},
		{"outside the space", []int64{16, 1, 1}, "wg", 0, statusConfig}, // BROKEN 1 needs VAR 0
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := c.planValue(shape, tt.config, tt.arg)
			if codeOf(err) != tt.code || tt.code == statusOK && v != tt.want {
				t.Errorf("planValue = %g, %v; want %g, code %d", v, err, tt.want, tt.code)
			}
		})
	}
	if _, err := c.planValue([]int64{1, 2}, []int64{16, 0, 0}, "wg"); codeOf(err) != statusShape {
		t.Errorf("a shape of two values: %v, want a shape error", err)
	}
	p, _ := l.open(openOptions{Path: poclBundle})
	conv, _ := l.get(p)
	if len(conv.valueNames) != 0 {
		t.Errorf("conv2d's value names %q, want none", conv.valueNames)
	}
}
