package runtime_test

import (
	"bytes"
	"os"
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
	tests := []struct {
		name        string
		lo, hi      float64
		wantClamped bool
		wantLog     float64
	}{
		{"wide range", -10, 10, false, want.LogSpeedup},
		{"below the pick", -10, want.LogSpeedup / 2, true, want.LogSpeedup / 2},
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
			if p.Clamped != tt.wantClamped || p.LogSpeedup != tt.wantLog {
				t.Errorf("Clamped, LogSpeedup = %v, %g, want %v, %g", p.Clamped, p.LogSpeedup, tt.wantClamped, tt.wantLog)
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
				if c.LogSpeedup > tt.hi {
					t.Errorf("candidate %d LogSpeedup %g above the range's %g", i, c.LogSpeedup, tt.hi)
				}
			}
		})
	}
}
