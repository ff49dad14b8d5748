package runtime_test

import (
	"bytes"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/runtime"
)

// testPick is the test bundle's Chooser and its pick for a shape inside
// its training shapes.
func testPick(t *testing.T) (*runtime.Chooser, runtime.Pick) {
	t.Helper()
	data, err := os.ReadFile(testBundle)
	if err != nil {
		t.Fatal(err)
	}
	ch, err := runtime.New(data, runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := ch.ChoosePick(features.Task{1024, 768, 5, 5})
	if err != nil {
		t.Fatal(err)
	}
	return ch, p
}

func TestPickReport(t *testing.T) {
	ch, p := testPick(t)
	r := p.Report(1500 * time.Nanosecond)
	if len(r.Config) != len(p.Config) {
		t.Errorf("Report: %d named values, want %d", len(r.Config), len(p.Config))
	}
	for i, name := range ch.ParamNames() {
		if r.Config[name] != any(p.Config[i]) {
			t.Errorf("Report: %s = %v, want %d", name, r.Config[name], p.Config[i])
		}
	}
	if r.PredictedSpeedup != math.Exp(p.LogSpeedup) || r.ChooseNs != 1500 || r.Source != p.Source {
		t.Errorf("Report: got %+v, want speedup %g, 1500 ns, source %s", r, math.Exp(p.LogSpeedup), p.Source)
	}

	var b bytes.Buffer
	if err := ch.WritePick(&b, p, 1500*time.Nanosecond); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"config:            " + ch.Space().Format(p.Config) + "\n",
		"over the reference (" + ch.Space().Format(ch.Reference()) + ")\n",
		"build options:     " + p.Plan.BuildOptions + "\n",
		"choose took:       1.5µs\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("WritePick: got\n%s\nwant a line %q", b.String(), want)
		}
	}
	if strings.Contains(b.String(), "warning:") {
		t.Errorf("WritePick warns of a shape inside the training shapes:\n%s", b.String())
	}
}

// TestPickReportLabels: a kernel spec's string parameter is reported by
// its text, as the kernel gets it, in the pick and in every candidate.
func TestPickReportLabels(t *testing.T) {
	data, err := os.ReadFile("../libaugur/testdata/specmode.augur") // WG, MODE of 'mul', 'add', 'sub'
	if err != nil {
		t.Fatal(err)
	}
	ch, err := runtime.New(data, runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	labels, _ := ch.ParamLabels(1)
	p, err := ch.ChoosePick(features.Task{5000})
	if err != nil {
		t.Fatal(err)
	}
	cands, err := ch.Candidates(features.Task{5000}, 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range append(cands, p) {
		r := p.Report(0)
		if want := labels[p.Config[1]]; r.Config["MODE"] != want {
			t.Errorf("Report of %v: MODE = %#v, want %q", p.Config, r.Config["MODE"], want)
		}
		if r.Config["WG"] != any(p.Config[0]) {
			t.Errorf("Report of %v: WG = %#v, want %d", p.Config, r.Config["WG"], p.Config[0])
		}
	}
}

// TestWritePickExpected: the expected figure is printed with its worst
// shape when one is recorded, and alone when not (never "worst 0.0%").
func TestWritePickExpected(t *testing.T) {
	ch, p := testPick(t)
	for _, tc := range []struct {
		expected, worst float64
		want            string // "" wants no expected line
	}{
		{96.2, 88.2, "expected:          96.2% of the optimum (worst held-out shape 88.2%)\n"},
		{99.5, 0, "expected:          99.5% of the optimum\n"},
		{0, 0, ""},
	} {
		p.ExpectedPct, p.WorstPct = tc.expected, tc.worst
		var b bytes.Buffer
		if err := ch.WritePick(&b, p, time.Microsecond); err != nil {
			t.Fatal(err)
		}
		switch {
		case tc.want == "" && strings.Contains(b.String(), "expected:"):
			t.Errorf("WritePick with no expected figure:\n%s", b.String())
		case tc.want != "" && !strings.Contains(b.String(), tc.want):
			t.Errorf("WritePick: got\n%s\nwant a line %q", b.String(), tc.want)
		}
	}
}

// TestWritePickExtrapolates: the warning that the model extrapolates is
// for a pick the model made, not one measured at the shape.
func TestWritePickExtrapolates(t *testing.T) {
	ch, p := testPick(t)
	p.OutsideOctaves = 2
	for _, tc := range []struct {
		source string
		warn   bool
	}{
		{"model:some-gpu", true},
		{runtime.SourceFleet, true},
		{runtime.SourceWisdom, false},
		{"table", false},
		{runtime.SourceNear, false},
	} {
		p.Source = tc.source
		var b bytes.Buffer
		if err := ch.WritePick(&b, p, time.Microsecond); err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(b.String(), "the model extrapolates"); got != tc.warn {
			t.Errorf("source %s: warns %v, want %v:\n%s", tc.source, got, tc.warn, b.String())
		}
	}
}
