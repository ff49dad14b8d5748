package datasets_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/augur-tuning/augur/datasets"
)

// TestSpecUnknownFields checks that a misspelt field of a T1 section is
// warned of, one of augur's own "Augur" object refused, a field the T1
// format defines for other tuners passed over, and a parameter without a
// Default named.
func TestSpecUnknownFields(t *testing.T) {
	const base = `{"General": {"FormatVersion": 1}, %TOP%
	"ConfigurationSpace": {"TuningParameters": [{"Name": "WG", "Type": "int", "Values": "[8, 16]", %DEF%}]},
	"KernelSpecification": {"Language": "OpenCL", "KernelName": "k", "KernelFile": "k.cl", "ProblemSize": [100], %KS%
		"GlobalSize": {"X": "ProblemSize[0]"}, "LocalSize": {"X": "WG"},
		"Arguments": [{"Name": "out", "Type": "float", "Size": "ProblemSize[0]", "MemoryType": "Vector", "Output": 1 %ARG%}]}}`
	tests := []struct {
		name     string
		edits    map[string]string
		warn     string // a warning holding this; "" none
		errWants string // an error holding this; "" none
	}{
		{"clean", nil, "", ""},
		{"t1 fields for other tuners", map[string]string{"%TOP%": `"Search": {"Name": "Random"}, "Budget": [],`, "%KS%": `"Device": {"Id": 0}, "Profiling": true,`, "%ARG%": `, "TypeSize": 4`}, "", ""},
		{"misspelt kernel field", map[string]string{"%KS%": `"GlobalSise": {"X": "1"},`}, "KernelSpecification.GlobalSise is not a field", ""},
		{"misspelt argument field", map[string]string{"%ARG%": `, "Outptu": 1`}, "KernelSpecification.Arguments[0].Outptu", ""},
		{"misspelt top section", map[string]string{"%TOP%": `"Augurr": {},`}, "Augurr is not a field", ""},
		{"misspelt Augur field", map[string]string{"%TOP%": `"Augur": {"ProblemSizeName": ["n"]},`}, "", `Augur object has no field "ProblemSizeName"`},
		{"case differs", map[string]string{"%KS%": `"kernelfile": "k.cl",`}, "", ""},
		{"no default", map[string]string{"%DEF%": `"Type": "int"`}, "no Default for WG", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := base
			edits := map[string]string{"%TOP%": "", "%KS%": "", "%ARG%": "", "%DEF%": `"Default": 8`}
			for k, v := range tt.edits {
				edits[k] = v
			}
			for k, v := range edits {
				spec = strings.ReplaceAll(spec, k, v)
			}
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, "k.cl"), []byte("__kernel void k(__global float* out) { out[get_global_id(0)] = WG; }"), 0o644)
			path := filepath.Join(dir, "k.json")
			os.WriteFile(path, []byte(spec), 0o644)
			k, err := datasets.ReadSpec(path)
			if tt.errWants != "" {
				if err == nil || !strings.Contains(err.Error(), tt.errWants) {
					t.Fatalf("err = %v, want one holding %q", err, tt.errWants)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := strings.Join(k.Warnings, "\n")
			if tt.warn == "" && got != "" || !strings.Contains(got, tt.warn) {
				t.Errorf("warnings %q, want one holding %q", got, tt.warn)
			}
		})
	}
}
