package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// TestRun trains one small GBRT on the H200 rows cut and repeated to a
// given count, writing the CSV, and checks the reported rows.
func TestRun(t *testing.T) {
	csv := filepath.Join(t.TempDir(), "rows.csv")
	for _, rows := range []string{"300", "30000"} {
		var out, errOut bytes.Buffer
		args := []string{"--data", "../../testdata/h200", "--kernel", "conv2d", "--rows", rows,
			"--learner", "gbrt", "--trees", "2", "--depth", "2", "--csv", csv}
		if err := run(args, &out, &errOut); err != nil {
			t.Fatalf("%v: %v: %s", args, err, errOut.String())
		}
		if !strings.HasPrefix(out.String(), "rows "+rows+" features ") {
			t.Errorf("--rows %s: output %q", rows, out.String())
		}
	}
	var none bytes.Buffer
	if err := run([]string{"--data", "../../testdata/h200", "--learner", "none"}, &none, &none); err != nil || strings.Contains(none.String(), "train_s") {
		t.Errorf("--learner none: %v, output %q, want loading alone", err, none.String())
	}
	var out, errOut bytes.Buffer
	if err := run([]string{"--data", "../../testdata/h200", "--learner", "svm"}, &out, &errOut); err == nil {
		t.Errorf("--learner svm accepted")
	}
}
