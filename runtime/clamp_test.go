package runtime_test

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/predict/lightgbm"
	"github.com/augur-tuning/augur/runtime"
)

// rangedBundle returns testBundle with its model recording [lo, hi] as the
// range of its training targets.
func rangedBundle(t testing.TB, lo, hi float64) []byte {
	t.Helper()
	data, err := os.ReadFile(testBundle)
	if err != nil {
		t.Fatal(err)
	}
	b, err := features.ReadBundle(data)
	if err != nil {
		t.Fatal(err)
	}
	lgm, err := lightgbm.Parse(b.Models[0].LightGBM)
	if err != nil {
		t.Fatal(err)
	}
	if err := lgm.SetTargetRange(lo, hi); err != nil {
		t.Fatal(err)
	}
	var sb strings.Builder
	if err := lgm.Write(&sb); err != nil {
		t.Fatal(err)
	}
	b.Models[0].LightGBM = sb.String()
	var buf bytes.Buffer
	if err := features.WriteBundle(&buf, b); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestPickClamped(t *testing.T) {
	shape := features.Task{800, 600, 7, 7}
	plain := load(t, runtime.Options{})
	want, err := plain.ChoosePick(shape)
	if err != nil {
		t.Fatal(err)
	}
	if want.Clamped {
		t.Fatal("a model without a range clamped its pick")
	}
	plainRef, err := plain.Predict(shape, plain.Reference())
	if err != nil {
		t.Fatal(err)
	}
	pred := want.LogSpeedup + plainRef // the model's own prediction for the pick
	if pred <= 0 {
		t.Fatalf("the model predicts its pick at %g; the test needs a positive prediction", pred)
	}
	tests := []struct {
		name        string
		lo, hi      float64
		wantClamped bool
		wantLog     float64 // the model's prediction for the pick, clamped
	}{
		{"wide range", -10, 10, false, pred},
		{"below the pick", -10, pred / 2, true, pred / 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ch, err := runtime.New(rangedBundle(t, tt.lo, tt.hi), runtime.Options{})
			if err != nil {
				t.Fatal(err)
			}
			p, err := ch.ChoosePick(shape)
			if err != nil {
				t.Fatal(err)
			}
			if !p.Config.Equal(want.Config) {
				t.Errorf("pick %v, want %v: the clamp must not change the search", p.Config, want.Config)
			}
			// LogSpeedup is the pick's prediction less the reference's.
			ref, err := ch.Predict(shape, ch.Reference())
			if err != nil {
				t.Fatal(err)
			}
			if p.Clamped != tt.wantClamped || p.LogSpeedup+ref != tt.wantLog {
				t.Errorf("Clamped, LogSpeedup + the reference's = %v, %g, want %v, %g", p.Clamped, p.LogSpeedup+ref, tt.wantClamped, tt.wantLog)
			}
			if r := p.Report(0); r.Clamped != tt.wantClamped {
				t.Errorf("Report().Clamped = %v, want %v", r.Clamped, tt.wantClamped)
			}
			var out bytes.Buffer
			if err := ch.WritePick(&out, p, time.Microsecond); err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(out.String(), "clamped"); got != tt.wantClamped {
				t.Errorf("WritePick mentions clamping: %v, want %v\n%s", got, tt.wantClamped, out.String())
			}
			cands, err := ch.Candidates(shape, 3)
			if err != nil {
				t.Fatal(err)
			}
			for i, c := range cands {
				if c.LogSpeedup+ref > tt.hi {
					t.Errorf("candidate %d predicted %g, above the range's %g", i, c.LogSpeedup+ref, tt.hi)
				}
			}
		})
	}
}

// TestLogSpeedupOverReference: a pick's LogSpeedup is the model's
// prediction for it less the model's prediction for the reference at the
// same shape, inside the training shapes and far outside them, so that
// the reference itself (a wisdom record here) is at 0.
func TestLogSpeedupOverReference(t *testing.T) {
	b, err := features.ReadBundleFile(testBundle)
	if err != nil {
		t.Fatal(err)
	}
	w, err := runtime.OpenWisdom(filepath.Join(t.TempDir(), "w"), runtime.WisdomOptions{KernelVersion: b.KernelVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	ch, err := runtime.FromBundle(b, runtime.Options{Wisdom: w})
	if err != nil {
		t.Fatal(err)
	}
	for _, shape := range []features.Task{{1920, 1080, 5, 5}, {800, 600, 7, 7}, {64, 64, 3, 3}, {16384, 16384, 11, 11}} {
		p, err := ch.ChoosePick(shape)
		if err != nil {
			t.Fatal(err)
		}
		pick, _ := ch.Predict(shape, p.Config)
		ref, _ := ch.Predict(shape, ch.Reference())
		if math.Abs(p.LogSpeedup-(pick-ref)) > 1e-9 {
			t.Errorf("%v: LogSpeedup %g, want the pick's prediction %g less the reference's %g", shape, p.LogSpeedup, pick, ref)
		}
		if err := w.Record(shape, ch.Reference(), 1e6); err != nil {
			t.Fatal(err)
		}
		if p, err := ch.ChoosePick(shape); err != nil || p.Source != runtime.SourceWisdom || p.LogSpeedup != 0 {
			t.Errorf("%v: the recorded reference: source %q, LogSpeedup %g (%v); want %q at 0", shape, p.Source, p.LogSpeedup, err, runtime.SourceWisdom)
		}
	}
}
