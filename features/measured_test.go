package features_test

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/augur-tuning/augur/features"
)

// TestReadBundleMeasured writes a real bundle with a table of measured
// bests: a valid table reads back; each kind of damage is refused.
func TestReadBundleMeasured(t *testing.T) {
	data, err := os.ReadFile(testBundle)
	if err != nil {
		t.Fatal(err)
	}
	b, err := features.ReadBundle(data)
	if err != nil {
		t.Fatal(err)
	}
	good := features.MeasuredBest{Device: "pocl-cpu-x", Task: b.TrainShapes[0], Config: b.Reference, TimeNs: 1000}
	for _, tc := range []struct {
		name string
		edit func(*features.MeasuredBest) []features.MeasuredBest
		want string
	}{
		{"valid", func(e *features.MeasuredBest) []features.MeasuredBest { return []features.MeasuredBest{*e} }, ""},
		{"no device", func(e *features.MeasuredBest) []features.MeasuredBest {
			e.Device = ""
			return []features.MeasuredBest{*e}
		}, "names no device"},
		{"short shape", func(e *features.MeasuredBest) []features.MeasuredBest {
			e.Task = e.Task[:1]
			return []features.MeasuredBest{*e}
		}, "has 1 values"},
		{"config", func(e *features.MeasuredBest) []features.MeasuredBest {
			e.Config = append(features.Config(nil), 12345)
			return []features.MeasuredBest{*e}
		}, "not in the space"},
		{"time", func(e *features.MeasuredBest) []features.MeasuredBest {
			e.TimeNs = 0
			return []features.MeasuredBest{*e}
		}, "want > 0"},
		{"twice", func(e *features.MeasuredBest) []features.MeasuredBest { return []features.MeasuredBest{*e, *e} }, "twice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := good
			e.Task = append(features.Task(nil), good.Task...)
			c := *b
			c.Measured = tc.edit(&e)
			var buf bytes.Buffer
			if err := features.WriteBundle(&buf, &c); err != nil {
				t.Fatal(err)
			}
			got, err := features.ReadBundle(buf.Bytes())
			if tc.want == "" {
				if err != nil || len(got.Measured) != 1 || got.Measured[0].Device != good.Device {
					t.Fatalf("valid table: %v, %+v", err, got)
				}
				return
			}
			if !errors.Is(err, features.ErrSyntax) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want ErrSyntax containing %q", err, tc.want)
			}
		})
	}
}
