package importer

import (
	"bytes"
	"testing"

	"github.com/expr-lang/expr/parser"
)

// FuzzKernelTunerCache checks that no input makes the cache reader panic,
// and that what it accepts is consistent: one value per parameter, and
// positive times exactly on the ok rows.
func FuzzKernelTunerCache(f *testing.F) {
	f.Add([]byte(cacheHead))
	f.Add([]byte(cacheHead + "}\n}"))
	f.Add([]byte(cacheHead + ",\n"))
	f.Add(gzipped(f, cacheHead))
	f.Add([]byte(`{"tune_params_keys": [], "tune_params": {}, "cache": {"": {"time": 1}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := ReadKernelTuner(bytes.NewReader(data))
		if err != nil {
			return
		}
		for _, m := range res.Measurements {
			if len(m.Config) != len(res.Params) {
				t.Fatalf("configuration %v for %d parameters", m.Config, len(res.Params))
			}
			if (m.Status == "ok") != (len(m.TimesMs) > 0) {
				t.Fatalf("status %s with %d times", m.Status, len(m.TimesMs))
			}
			if checkTimes(m.TimesMs) != nil {
				t.Fatalf("accepted times %v", m.TimesMs)
			}
		}
	})
}

// FuzzT1 checks that the T1 reader never panics and that what it accepts
// holds one default per parameter (or none) and one translated constraint,
// valid expr syntax, per condition.
func FuzzT1(f *testing.F) {
	// Small seeds only (not the benchmark hub's file), so that Go's
	// minimization of new inputs keeps up.
	f.Add([]byte(`{"ConfigurationSpace": {"TuningParameters": [{"Name": "a", "Values": "[1, 2]", "Default": 1}], "Conditions": [{"Expression": "a // 2 < 1"}]}}`))
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

// FuzzT4 checks that the T4 reader never panics and that every
// configuration it accepts takes values its parameters list.
func FuzzT4(f *testing.F) {
	// Small seeds only, as FuzzT1's.
	f.Add([]byte(`{"results": [{"configuration": {"a": 1}, "invalidity": "correct", "times": {"runtimes": [1]}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := ReadT4(bytes.NewReader(data))
		if err != nil {
			return
		}
		for _, m := range res.Measurements {
			for k, v := range m.Config {
				found := false
				for _, x := range res.Params[k].Values {
					found = found || x == v
				}
				if !found {
					t.Fatalf("%s=%d is not among %v", res.Params[k].Name, v, res.Params[k].Values)
				}
			}
		}
	})
}
