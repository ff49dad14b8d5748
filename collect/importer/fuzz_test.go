package importer

import (
	"bytes"
	"math"
	"slices"
	"testing"

	"github.com/augur-tuning/augur/collect/record"
	"github.com/augur-tuning/augur/features"

	"github.com/expr-lang/expr/parser"
)

// FuzzKernelTunerCache checks that no input makes the cache reader panic,
// and that what it accepts is consistent: one value per parameter,
// positive times exactly on the ok rows, and runs and a summary that
// agree once rounded to whole nanoseconds (checkTiming).
func FuzzKernelTunerCache(f *testing.F) {
	f.Add([]byte(cacheHead))
	f.Add([]byte(cacheHead + "}\n}"))
	f.Add([]byte(cacheHead + ",\n"))
	f.Add(gzipped(f, cacheHead))
	f.Add([]byte(`{"tune_params_keys": [], "tune_params": {}, "cache": {"": {"time": 1}}}`))
	f.Add([]byte(`{"tune_params_keys": [], "tune_params": {}, "cache": {"": {"time": 1, "times": [0.0000001, 0.0012345, 1e7]}}}`))
	f.Add([]byte(`{"tune_params_keys": ["m"], "tune_params": {"m": ["a", "b"]}, "cache": {"b": {"m": "b", "time": 1, "times": [1]}}}`))
	f.Add([]byte(`{"tune_params_keys": ["r"], "tune_params": {"r": [0.5, 1.50]}, "cache": {"1.5": {"r": 1.5, "time": 1, "times": [1]}}}`))
	f.Add([]byte(`{"tune_params_keys": [], "tune_params": {}, "cache": {"": {"time": "5.9", "times": ["5.9", 6]}}}`))
	f.Add([]byte(`{"tune_params_keys": [], "tune_params": {}, "cache": {"": {"time": "CUDA error: out of resources"}, "0": {"time": 0}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := ReadKernelTuner(bytes.NewReader(data))
		if err != nil {
			return
		}
		for _, m := range res.Measurements {
			if len(m.Config) != len(res.Params) {
				t.Fatalf("configuration %v for %d parameters", m.Config, len(res.Params))
			}
			for i, p := range res.Params {
				if l, ok := res.Labels[p.Name]; ok && (m.Config[i] < 0 || m.Config[i] >= len(l)) {
					t.Fatalf("string parameter %s numbered %d of %d values", p.Name, m.Config[i], len(l))
				}
			}
			if (m.Status == "ok") != (len(m.TimesMs) > 0) {
				t.Fatalf("status %s with %d times", m.Status, len(m.TimesMs))
			}
			if checkTimes(m.TimesMs) != nil {
				t.Fatalf("accepted times %v", m.TimesMs)
			}
			checkTiming(t, &m)
		}
	})
}

// checkTiming checks what Import would write of an accepted measurement:
// runs exactly when the file listed them, each within 0.5 ns of the
// tuner's time (or 1 ns for a time below that), and a summary that is the
// rounded runs' own, with a positive median, as record requires of an ok
// row.
func checkTiming(t *testing.T, m *Measurement) {
	t.Helper()
	if m.Status != record.StatusOK {
		return
	}
	if m.MeanOnly && len(m.TimesMs) != 1 {
		t.Fatalf("mean only with %d times", len(m.TimesMs))
	}
	tm := timingOf(m)
	if (tm.runs == nil) != m.MeanOnly || tm.repeats != len(m.TimesMs) {
		t.Fatalf("times %v (mean only %v) became runs %v, repeats %d", m.TimesMs, m.MeanOnly, tm.runs, tm.repeats)
	}
	xs := make([]float64, len(m.TimesMs))
	for i, ms := range m.TimesMs {
		xs[i] = max(1, math.Round(ms*1e6))
		if d := math.Abs(xs[i] - ms*1e6); d > 0.5 && xs[i] != 1 {
			t.Fatalf("time %v ms rounded to %v ns", ms, xs[i])
		}
		if tm.runs != nil && float64(tm.runs[i]) != xs[i] {
			t.Fatalf("run %d is %d ns, want %v", i, tm.runs[i], xs[i])
		}
	}
	median, minimum, cv := record.Summarize(xs)
	if tm.median != median || tm.minimum != minimum || tm.cv != cv || !(median > 0) || median > 1e13 {
		t.Fatalf("summary %v %v %v, the runs' %v %v %v", tm.median, tm.minimum, tm.cv, median, minimum, cv)
	}
}

// FuzzT1 checks that the T1 reader never panics and that what it accepts
// holds one default per parameter (or none) and one translated constraint,
// valid expr syntax, per condition.
func FuzzT1(f *testing.F) {
	// Small seeds only (not the benchmark hub's file), so that Go's
	// minimization of new inputs keeps up.
	f.Add([]byte(`{"ConfigurationSpace": {"TuningParameters": [{"Name": "a", "Values": "[1, 2]", "Default": 1}], "Conditions": [{"Expression": "a // 2 < 1"}]}}`))
	f.Add([]byte(`{"ConfigurationSpace": {"TuningParameters": [{"Name": "a", "Values": "[1, 2]", "Default": 1}], "Conditions": [{"Expression": "(a & (a - 1)) == 0 if a > 1 else ~a << 2 != 0"}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ReadT1(bytes.NewReader(data))
		if err != nil {
			return
		}
		if s.Default != nil && len(s.Default) != len(s.Params) {
			t.Fatalf("%d defaults for %d parameters", len(s.Default), len(s.Params))
		}
		if len(s.Constraints) != len(s.Conditions) {
			t.Fatalf("%d constraints for %d conditions", len(s.Constraints), len(s.Conditions))
		}
		for _, c := range s.Constraints {
			if _, err := parser.Parse(c); err != nil {
				t.Fatalf("translation %q does not parse: %v", c, err)
			}
		}
	})
}

// FuzzTranslatePython checks that every translation is valid expr syntax
// and that translating never panics.
func FuzzTranslatePython(f *testing.F) {
	for _, s := range []string{
		"use_padding==0 or block_size_x % 32 != 0",
		"a // b ** -c < 3 <= d",
		"not a not in (1, 2,) and min(a, b) > -2.5e3",
		"[1, [2]] == x",
		"a & b | ~c << 2 ^ d >> 1 == 0",
		"x if a < b else y if c else z",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		out, err := TranslatePython(src)
		if err != nil {
			return
		}
		if _, err := parser.Parse(out); err != nil {
			t.Fatalf("TranslatePython(%q) = %q, which does not parse: %v", src, out, err)
		}
	})
}

// FuzzT4 checks that the T4 reader never panics, that every
// configuration it accepts takes values its parameters list, and that its
// times round as FuzzKernelTunerCache's do.
func FuzzT4(f *testing.F) {
	// Small seeds only, as FuzzT1's.
	f.Add([]byte(`{"results": [{"configuration": {"a": 1}, "invalidity": "correct", "times": {"runtimes": [1]}}]}`))
	f.Add([]byte(`{"schema_version": "1.0.0", "results": [{"configuration": {"a": 1}, "invalidity": "correct", "times": {"runtimes": ["1", 0]}}, {"configuration": {"a": 2}, "invalidity": "oom"}]}`))
	f.Add([]byte(`{"results": [{"configuration": {"a": 1}, "invalidity": "correct", "measurements": [{"name": "time", "value": 2.5, "unit": "us"}]}]}`))
	f.Add([]byte(`{"results": [{"configuration": {"a": "x", "b": 0.5}, "invalidity": "correct", "times": {"runtimes": [1]}}, {"configuration": {"b": 1.50, "a": "y"}, "invalidity": "compile"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := ReadT4(bytes.NewReader(data))
		if err != nil {
			return
		}
		for _, m := range res.Measurements {
			checkTiming(t, &m)
			for k, v := range m.Config {
				found := false
				for _, x := range res.Params[k].Values {
					found = found || x == v
				}
				if !found {
					t.Fatalf("%s=%d is not among %v", res.Params[k].Name, v, res.Params[k].Values)
				}
				if l, ok := res.Labels[res.Params[k].Name]; ok && v >= len(l) {
					t.Fatalf("%s=%d numbers none of %q", res.Params[k].Name, v, l)
				}
			}
		}
	})
}

// FuzzShape checks that no Shape text makes parseShape panic, and that a
// shape it accepts reads back the same once written (features.FormatTask).
func FuzzShape(f *testing.F) {
	f.Add("n=1000")
	f.Add("width=4096, height=2048")
	f.Add("a=1,a=2")
	f.Add("problem_size_0=5")
	f.Fuzz(func(t *testing.T, text string) {
		for _, spec := range []*Spec{nil, {ProblemSizeNames: []string{"n", "m"}}} {
			g, err := parseShape(text, spec)
			if err != nil || g == nil {
				continue
			}
			again, err := parseShape(features.FormatTask(g.names, g.sizes), spec)
			if err != nil || !slices.Equal(again.names, g.names) || !slices.Equal(again.sizes, g.sizes) {
				t.Fatalf("%q read as %v %v, written and read again as %+v, %v", text, g.names, g.sizes, again, err)
			}
		}
	})
}
