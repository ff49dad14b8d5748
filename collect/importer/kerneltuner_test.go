package importer

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/augur-tuning/augur/collect/record"
	"github.com/augur-tuning/augur/features"
)

// cacheHead is a Kernel Tuner cache file up to its first entry, as Kernel
// Tuner writes it when tuning starts.
const cacheHead = `{
"device_name": "NVIDIA RTX A4000",
"kernel_name": "convolution_kernel",
"problem_size": [4096, 4096],
"tune_params_keys": ["bx", "by"],
"tune_params": {"bx": [16, 32], "by": [1, 2]},
"objective": "time",
"cache": {
"16,1": {"bx": 16, "by": 1, "time": 2.5, "times": [3, 2, 2.5], "compile_time": 800},
"32,1": {"bx": 32, "by": 1, "time": "RuntimeFailedConfig"},
"16,2": {"bx": 16, "by": 2, "time": "CompilationFailedConfig"},
"32,2": {"bx": 32, "by": 2, "time": "InvalidConfig"}`

func gzipped(t testing.TB, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(s))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestReadKernelTuner(t *testing.T) {
	want := &Results{
		Device:      "NVIDIA RTX A4000",
		Kernel:      "convolution_kernel",
		ProblemSize: []int{4096, 4096},
		Params:      []features.Param{{Name: "bx", Values: []int{16, 32}}, {Name: "by", Values: []int{1, 2}}},
		Measurements: []Measurement{
			{Config: features.Config{16, 1}, Status: record.StatusOK, TimesMs: []float64{3, 2, 2.5}, CompileMs: 800},
			{Config: features.Config{32, 1}, Status: record.StatusLaunchError, Error: "RuntimeFailedConfig"},
			{Config: features.Config{16, 2}, Status: record.StatusCompileError, Error: "CompilationFailedConfig"},
			{Config: features.Config{32, 2}, Status: record.StatusPruned, Error: "InvalidConfig"},
		},
	}
	tests := []struct {
		name string
		data []byte
	}{
		{"closed", []byte(cacheHead + "}\n}\n")},
		{"live, no closing braces", []byte(cacheHead)},
		{"live, trailing comma", []byte(cacheHead + ",\n")},
		{"live, one brace missing", []byte(cacheHead + "}")},
		{"gzip", gzipped(t, cacheHead+"}\n}")},
		{"gzip, live", gzipped(t, cacheHead)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ReadKernelTuner(bytes.NewReader(tt.data))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got  %+v\nwant %+v", got, want)
			}
		})
	}
}

func TestReadKernelTunerErrors(t *testing.T) {
	tests := []struct {
		name, data, want string
	}{
		{"entry outside a float parameter's values", strings.Replace(cacheHead, `"by": [1, 2]`, `"by": [1, 2.5]`, 1), `parameter by is 2, want one of ["1" "2.5"]`},
		{"string parameter", strings.Replace(cacheHead, `"by": [1, 2]`, `"by": [1, "x"]`, 1), "parameter by"},
		{"entry value", strings.Replace(cacheHead, `"bx": 32, "by": 2`, `"bx": 32, "by": "2"`, 1), `"32,2": parameter by`},
		{"entry lacks parameter", strings.Replace(cacheHead, `"bx": 32, "by": 2,`, `"bx": 32,`, 1), "lacks parameter by"},
		{"no time", strings.Replace(cacheHead, `, "time": "InvalidConfig"`, ``, 1), "lacks time"},
		{"time of another type", strings.Replace(cacheHead, `"time": "InvalidConfig"`, `"time": [1]`, 1), "time is a list"},
		{"a run no number", strings.Replace(cacheHead, `[3, 2, 2.5]`, `[3, "fast"]`, 1), "fast is not a number"},
		{"cut inside a string", cacheHead + `, "1`, "inside a string"},
		{"cut after a key", cacheHead + `, "16,4": `, "malformed"},
		{"no keys", `{"cache": {}}`, "tune_params_keys"},
		{"not an object", `[1, 2]`, "malformed"},
		{"trailing data", cacheHead + "}}{}", "after the end"},
		{"duplicate key", `{"cache": {}, "cache": {}}`, "twice"},
		{"bad gzip", "\x1f\x8bxx", "gzip"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadKernelTuner(strings.NewReader(tt.data))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one mentioning %q", err, tt.want)
			}
			if err != nil && !strings.HasPrefix(err.Error(), "importer: ") {
				t.Errorf("error %q lacks the package prefix", err)
			}
		})
	}
}

// TestReadKernelTunerOdd reads time values that Kernel Tuner does not
// define, or that no run can take, as failed rows (Measurement.Unrecognized)
// rather than refuse the file, and numbers written as strings as numbers.
func TestReadKernelTunerOdd(t *testing.T) {
	tests := []struct {
		name, entry  string
		status       record.Status
		timesMs      []float64
		err          string
		unrecognized bool
	}{
		{"a mean as a string", `"time": "5.9"`, record.StatusOK, []float64{5.9}, "", false},
		{"runs as strings", `"time": 5.9, "times": ["5.9", " 6"]`, record.StatusOK, []float64{5.9, 6}, "", false},
		{"out of resources", `"time": "CUDA error: out of resources"`, record.StatusResourceLimit, nil, "CUDA error: out of resources", true},
		{"a build failure", `"time": "nvrtc: error: identifier undefined"`, record.StatusCompileError, nil, "nvrtc: error: identifier undefined", true},
		{"another failure", `"time": "Bogus"`, record.StatusLaunchError, nil, "Bogus", true},
		{"time 0", `"time": 0`, record.StatusLaunchError, nil, "time 0 ms, want a positive number", true},
		{"time 0 as a string", `"time": "0"`, record.StatusLaunchError, nil, "time 0 ms, want a positive number", true},
		{"a negative run", `"time": 2.5, "times": [3, -2]`, record.StatusLaunchError, nil, "time -2 ms, want a positive number", true},
		{"a run over record's bound", `"time": 2.5, "times": [3, 1.5e7]`, record.StatusLaunchError, nil, "at most 1e+07", true},
		{"a mean over record's bound", `"time": 2e7`, record.StatusLaunchError, nil, "at most 1e+07", true},
		{"a mean out of float64's range", `"time": 1e999`, record.StatusLaunchError, nil, "at most 1e+07", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := `{"tune_params_keys": ["bx"], "tune_params": {"bx": [16]}, "cache": {"16": {"bx": 16, ` + tt.entry + `}}}`
			res, err := ReadKernelTuner(strings.NewReader(data))
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

func TestRepair(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"a": 1}`, `{"a": 1}`},
		{`{"a": {"b": [1, 2`, "{\"a\": {\"b\": [1, 2\n]}}"},
		{"{\"a\": {\"b\": 1},\n  ", "{\"a\": {\"b\": 1}\n}"},
		{`{"a": "}{", "b": {`, "{\"a\": \"}{\", \"b\": {\n}}"},
		{`{"a": "\"{"`, "{\"a\": \"\\\"{\"\n}"},
	}
	for _, tt := range tests {
		got, err := repair([]byte(tt.in))
		if err != nil || string(got) != tt.want {
			t.Errorf("repair(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	if _, err := repair([]byte(`{"a": "b`)); !errors.Is(err, ErrFormat) {
		t.Errorf("repair of a cut string: error %v, want ErrFormat", err)
	}
}

func BenchmarkReadKernelTuner(b *testing.B) {
	data := readTestFile(b, a4000)
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := ReadKernelTuner(bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
}

// TestReadKernelTunerLimits checks that each part of a cache file that
// could make the reader hold much is refused at its limit, as the file is
// read.
func TestReadKernelTunerLimits(t *testing.T) {
	head := `{"tune_params_keys": ["a"], "tune_params": {"a": [1]}, `
	tests := []struct {
		name, data, want string
	}{
		{"long string", head + `"kernel_name": "` + strings.Repeat("x", maxToken+1) + `"}`, "string or number over"},
		{"long number", head + `"objective": ` + strings.Repeat("1", maxToken+1) + `}`, "string or number over"},
		{"deep nesting", head + `"x": ` + strings.Repeat("[", maxDepth+1) + strings.Repeat("]", maxDepth+1) + `}`, "nested over"},
		{"entry fields", head + `"cache": {"1": {` + strings.Repeat(`"f": 1, `, maxEntryFields+1) + `"a": 1, "time": 1}}}`, "fields"},
		{"times", head + `"cache": {"1": {"a": 1, "time": 1, "times": [` + strings.Repeat("1,", maxTimes) + `1]}}}`, "times"},
		{"problem size", head + `"problem_size": [` + strings.Repeat("1,", features.MaxTaskLen) + `1]}`, "dimensions"},
		{"keys", `{"tune_params_keys": [` + strings.Repeat(`"k",`, features.MaxParams) + `"k"]}`, "tune_params_keys"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadKernelTuner(strings.NewReader(tt.data))
			if !errors.Is(err, features.ErrLimit) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want ErrLimit mentioning %q", err, tt.want)
			}
		})
	}
}

// TestReadKernelTunerOrder reads a cache whose entries come before its
// parameters, which the reader holds until it knows them, and one whose
// parameters come after entries already handed on, which it refuses.
func TestReadKernelTunerOrder(t *testing.T) {
	late := `{"cache": {"1": {"a": 1, "time": 2}}, "tune_params_keys": ["a"], "tune_params": {"a": [1]}}`
	res, err := ReadKernelTuner(strings.NewReader(late))
	if err != nil || len(res.Measurements) != 1 || res.Measurements[0].Config[0] != 1 {
		t.Fatalf("entries before the keys: %+v, %v", res, err)
	}
	// An entry without times (an old cache) has its mean as its one time.
	if m := res.Measurements[0]; !m.MeanOnly || !slices.Equal(m.TimesMs, []float64{2}) {
		t.Errorf("entry without times: times %v, mean only %v; want [2], true", m.TimesMs, m.MeanOnly)
	}
	after := `{"tune_params_keys": ["a"], "tune_params": {"a": [1]}, "cache": {"1": {"a": 1, "time": 2}}, "tune_params": {"a": [2]}}`
	if _, err := ReadKernelTuner(strings.NewReader(after)); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("tune_params again after the cache: error %v", err)
	}
}

// repair appends the closing brackets that data lacks, as repairReader
// does while reading.
func repair(data []byte) ([]byte, error) {
	return io.ReadAll(newRepairReader(bytes.NewReader(data)))
}

// TestInputLimitAnywhere refuses an input cut by the limit at any byte as
// over the limit, whatever the reader was reading then (never as
// malformed input).
func TestInputLimitAnywhere(t *testing.T) {
	for _, data := range [][]byte{[]byte(cacheHead + "}}"), gzipped(t, cacheHead)} {
		for lim := int64(1); lim < int64(len(cacheHead)); lim++ {
			_, err := scanKernelTuner(bytes.NewReader(data), lim, nil, nil, func(m *Measurement) error { return nil })
			if !errors.Is(err, features.ErrLimit) {
				t.Errorf("limit %d: %v", lim, err)
			}
		}
	}
	t4 := []byte(`{"schema_version": "1.0.0", "results": [{"configuration": {"a": 1}, "invalidity": "correct", "times": {"runtimes": [1]}}, {"configuration": {"a": 2}, "invalidity": "compile"}]}`)
	for lim := int64(1); lim < int64(len(t4)); lim++ {
		err := scanT4(bytes.NewReader(t4), lim, func(i int, r *t4Result) error { return nil })
		if !errors.Is(err, features.ErrLimit) {
			t.Errorf("t4 limit %d: %v", lim, err)
		}
	}
}
