package collect

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/augur-tuning/augur/features"
)

func TestBenchJSON(t *testing.T) {
	for _, tt := range []struct {
		name         string
		failures     map[string]string
		wantFailures bool
	}{
		{"all measured", nil, false},
		{"one failed", map[string]string{"fp32_gflops": "build failed"}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := Bench{Platform: features.Platform{Name: "dev", FP32GFLOPs: 0, GlobalBandwidthGBs: 36}, Failures: tt.failures}
			data, err := json.Marshal(b)
			if err != nil {
				t.Fatal(err)
			}
			var got map[string]any
			if err := json.Unmarshal(data, &got); err != nil {
				t.Fatal(err)
			}
			// The platform's features sit at the top level, as in
			// `augur devices --json`.
			if got["name"] != "dev" || got["global_bandwidth_gbs"] != 36.0 {
				t.Errorf("got %s, want the platform's fields at the top level", data)
			}
			if _, ok := got["bench_failures"]; ok != tt.wantFailures {
				t.Errorf("got %s: bench_failures present %v, want %v", data, ok, tt.wantFailures)
			}
		})
	}
}

func TestWriteDeviceTable(t *testing.T) {
	devs := []Bench{{Platform: features.Platform{Name: "dev", Type: "cpu", DriverVersion: "9.9", GlobalBandwidthGBs: 36.04, FP32GFLOPs: 0}}}
	for _, tt := range []struct {
		bench bool
		want  []string
		not   []string
	}{
		{false, []string{"SLUG", "cpu", "9.9"}, []string{"GLOBAL GB/S", " - "}},
		// A benchmark that failed (0) shows as "-"; three digits else.
		{true, []string{"GLOBAL GB/S", "  36  ", " - "}, []string{"36.04"}},
	} {
		var b bytes.Buffer
		if err := WriteDeviceTable(&b, []int{4}, devs, tt.bench); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(b.String()), "\n")
		if len(lines) != 2 || !strings.HasPrefix(lines[1], "4 ") {
			t.Errorf("bench=%v: got %q, want a header and one row labelled 4", tt.bench, b.String())
		}
		for _, w := range tt.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("bench=%v: got %q, want %q in it", tt.bench, b.String(), w)
			}
		}
		for _, w := range tt.not {
			if strings.Contains(b.String(), w) {
				t.Errorf("bench=%v: got %q, want no %q in it", tt.bench, b.String(), w)
			}
		}
	}
}
