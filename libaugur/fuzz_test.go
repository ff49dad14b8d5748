package main

import "testing"

// FuzzParsePlatform checks that no platform_json makes parsePlatform
// panic, and that what it accepts names a device.
func FuzzParsePlatform(f *testing.F) {
	for _, s := range []string{
		`{"name":"NVIDIA H200","type":"gpu","compute_units":132}`,
		`[{"name":"x"}]`,
		`{"Platform":{"name":"x"},"Failures":null}`,
		`[]`, `{`, `null`, `{"Platform":null}`, `[{"name":"a"},{"name":"b"}]`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := parsePlatform(s)
		if err == nil && p.Name == "" {
			t.Errorf("parsePlatform(%q) accepted a device with no name", s)
		}
		if err != nil && codeOf(err) != statusArg {
			t.Errorf("parsePlatform(%q): code %d, want %d", s, codeOf(err), statusArg)
		}
	})
}
