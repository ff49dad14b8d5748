package importer

import (
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/augur-tuning/augur/collect/record"
	"github.com/augur-tuning/augur/features"
)

const t4Path = "testdata/convolution_milo_A4000.t4.json"

func TestReadT4(t *testing.T) {
	f, err := os.Open(t4Path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res, err := ReadT4(f)
	if err != nil {
		t.Fatal(err)
	}
	if res.Device != "" || res.ProblemSize != nil {
		t.Errorf("Device %q, ProblemSize %v; T4 has neither", res.Device, res.ProblemSize)
	}
	wantParams := []features.Param{
		{Name: "block_size_x", Values: []int{16, 80, 256}},
		{Name: "block_size_y", Values: []int{1, 4, 8, 16}},
		{Name: "tile_size_x", Values: []int{1, 2, 3, 4}},
		{Name: "tile_size_y", Values: []int{1, 4}},
		{Name: "read_only", Values: []int{0}},
		{Name: "use_padding", Values: []int{0, 1}},
		{Name: "use_shmem", Values: []int{0, 1}},
		{Name: "use_cmem", Values: []int{1}},
		{Name: "filter_height", Values: []int{15}},
		{Name: "filter_width", Values: []int{15}},
	}
	if !reflect.DeepEqual(res.Params, wantParams) {
		t.Errorf("Params = %v\nwant %v", res.Params, wantParams)
	}
	want := []struct {
		config features.Config
		status record.Status
		times  int
	}{
		{features.Config{16, 16, 1, 1, 0, 1, 1, 1, 15, 15}, record.StatusOK, 5},
		{features.Config{256, 1, 2, 4, 0, 0, 0, 1, 15, 15}, record.StatusOK, 5},
		{features.Config{256, 4, 4, 4, 0, 0, 0, 1, 15, 15}, record.StatusLaunchError, 0},
		{features.Config{80, 8, 3, 4, 0, 1, 1, 1, 15, 15}, record.StatusCompileError, 0},
		{features.Config{16, 1, 1, 1, 0, 0, 0, 1, 15, 15}, record.StatusOK, 5},
	}
	if len(res.Measurements) != len(want) {
		t.Fatalf("%d measurements, want %d", len(res.Measurements), len(want))
	}
	for i, w := range want {
		m := res.Measurements[i]
		if !m.Config.Equal(w.config) || m.Status != w.status || len(m.TimesMs) != w.times {
			t.Errorf("measurement %d = %v %s %d times, want %v %s %d times", i, m.Config, m.Status, len(m.TimesMs), w.config, w.status, w.times)
		}
	}
	if got := res.Measurements[1].TimesMs[0]; got < 1 || got > 1.1 {
		t.Errorf("best configuration's first run %v ms, want about 1.0 ms", got)
	}
	// The build time comes along (times.compilation_time).
	if got := res.Measurements[0].CompileMs; got != 834.356 {
		t.Errorf("first measurement's CompileMs = %v, want the file's 834.356", got)
	}
}

// TestReadT4Version reads files of schema version 1, or of none.
func TestReadT4Version(t *testing.T) {
	for _, v := range []string{`"schema_version": "1.0.0", `, `"schema_version": "1.2", `, `"schema_version": 1, `, ``} {
		_, err := ReadT4(strings.NewReader(`{` + v + `"results": [{"configuration": {"a": 1}, "invalidity": "compile"}]}`))
		if err != nil {
			t.Errorf("%s: %v", v, err)
		}
	}
}

func TestReadT4Units(t *testing.T) {
	tests := []struct {
		unit string
		want float64
	}{
		{"ms", 2}, {"", 2}, {"s", 2000}, {"us", 0.002}, {"ns", 2e-6},
	}
	for _, tt := range tests {
		text := `{"results": [{"configuration": {"a": 1}, "invalidity": "correct", "times": {"runtimes": [2]},
			"measurements": [{"name": "time", "value": 2, "unit": "` + tt.unit + `"}]}]}`
		res, err := ReadT4(strings.NewReader(text))
		if err != nil {
			t.Fatalf("unit %q: %v", tt.unit, err)
		}
		if got := res.Measurements[0].TimesMs[0]; got != tt.want {
			t.Errorf("unit %q: %v ms, want %v", tt.unit, got, tt.want)
		}
	}
}

func TestReadT4Errors(t *testing.T) {
	tests := []struct {
		name, data, want string
	}{
		{"no results", `{}`, "no results"},
		{"numbers and strings", `{"results": [{"configuration": {"a": 1.5}, "invalidity": "compile"}, {"configuration": {"a": "x"}, "invalidity": "compile"}]}`, "parameter a mixes"},
		{"list parameter", `{"results": [{"configuration": {"a": [1]}, "invalidity": "compile"}]}`, "parameter a is ["},
		{"huge number", `{"results": [{"configuration": {"a": 1e400}, "invalidity": "compile"}]}`, "not a finite number"},
		{"other parameters", `{"results": [{"configuration": {"a": 1}, "invalidity": "compile"}, {"configuration": {"b": 1}, "invalidity": "compile"}]}`, `"b"`},
		{"fewer parameters", `{"results": [{"configuration": {"a": 1, "b": 2}, "invalidity": "compile"}, {"configuration": {"b": 1}, "invalidity": "compile"}]}`, "result 1 has 1"},
		{"correct without runtimes", `{"results": [{"configuration": {"a": 1}, "invalidity": "correct"}]}`, "no runtimes"},
		{"runtime no number", `{"results": [{"configuration": {"a": 1}, "invalidity": "correct", "times": {"runtimes": ["fast"]}}]}`, `"fast" is not a number`},
		{"schema version 2", `{"schema_version": "2.0.0", "results": []}`, `importer: unsupported format version: T4 schema_version "2.0.0"; this importer reads version 1 (1.x.y)`},
		{"schema version after the results", `{"results": [{"configuration": {"a": 1}, "invalidity": "compile"}], "schema_version": "0.9"}`, `schema_version "0.9"`},
		{"schema version no version", `{"schema_version": "one", "results": []}`, `schema_version "one"`},
		{"schema version no string", `{"schema_version": [1], "results": []}`, `schema_version is [`},
		{"unknown unit", `{"results": [{"configuration": {"a": 1}, "invalidity": "correct", "times": {"runtimes": [1]}, "measurements": [{"name": "time", "unit": "h"}]}]}`, `"h"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadT4(strings.NewReader(tt.data))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one mentioning %s", err, tt.want)
			}
		})
	}
}

// TestReadT4Odd reads results that T4 does not define, or no run can
// have, as failed rows (Measurement.Unrecognized), and numbers written as
// strings as numbers.
func TestReadT4Odd(t *testing.T) {
	tests := []struct {
		name, result string
		status       record.Status
		timesMs      []float64
		err          string
		unrecognized bool
	}{
		{"a number as a string", `"invalidity": "correct", "times": {"runtimes": ["5.9", 6.1]}`, record.StatusOK, []float64{5.9, 6.1}, "", false},
		{"a mean as a string", `"invalidity": "correct", "measurements": [{"name": "time", "value": "5.9", "unit": "ms"}]`, record.StatusOK, []float64{5.9}, "", false},
		{"unknown invalidity", `"invalidity": "weird"`, record.StatusLaunchError, nil, "weird", true},
		{"unknown invalidity, out of resources", `"invalidity": "CUDA error: out of resources"`, record.StatusResourceLimit, nil, "CUDA error: out of resources", true},
		{"zero runtime", `"invalidity": "correct", "times": {"runtimes": [1, 0]}`, record.StatusLaunchError, nil, "time 0 ms, want a positive number", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := ReadT4(strings.NewReader(`{"results": [{"configuration": {"a": 1}, ` + tt.result + `}]}`))
			if err != nil {
				t.Fatal(err)
			}
			m := res.Measurements[0]
			if m.Status != tt.status || !slices.Equal(m.TimesMs, tt.timesMs) || !strings.Contains(m.Error, tt.err) || (tt.err == "") != (m.Error == "") || m.Unrecognized != tt.unrecognized {
				t.Errorf("got %s %v error %q unrecognized %v, want %s %v error %q unrecognized %v",
					m.Status, m.TimesMs, m.Error, m.Unrecognized, tt.status, tt.timesMs, tt.err, tt.unrecognized)
			}
		})
	}
}

// TestReadT4Choices checks parameters whose values are not all integers:
// numbered by their values sorted (numbers by value, 1.50 being 1.5;
// strings by text), an integer-valued number written as 2.0 an integer.
func TestReadT4Choices(t *testing.T) {
	text := `{"results": [
		{"configuration": {"mode": "fast", "ratio": 1.50, "bx": 32}, "invalidity": "correct", "times": {"runtimes": [1]}},
		{"configuration": {"mode": "exact", "ratio": 0.5, "bx": 16.0}, "invalidity": "correct", "times": {"runtimes": [2]}},
		{"configuration": {"mode": "fast", "ratio": 1.5, "bx": 16}, "invalidity": "compile"}]}`
	res, err := ReadT4(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	wantLabels := map[string][]string{"mode": {"exact", "fast"}, "ratio": {"0.5", "1.5"}}
	if !reflect.DeepEqual(res.Labels, wantLabels) {
		t.Errorf("Labels = %q, want %q", res.Labels, wantLabels)
	}
	wantParams := []features.Param{{Name: "mode", Values: []int{0, 1}}, {Name: "ratio", Values: []int{0, 1}}, {Name: "bx", Values: []int{16, 32}}}
	if !reflect.DeepEqual(res.Params, wantParams) {
		t.Errorf("Params = %v, want %v", res.Params, wantParams)
	}
	for i, want := range []features.Config{{1, 1, 32}, {0, 0, 16}, {1, 1, 16}} {
		if !res.Measurements[i].Config.Equal(want) {
			t.Errorf("result %d: %v, want %v", i, res.Measurements[i].Config, want)
		}
	}
}
