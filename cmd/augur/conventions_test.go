package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"strings"
	"testing"
	"time"

	"github.com/augur-tuning/augur/features"
)

// TestExitStatus checks that a usage error exits with 2 and any other
// failure with 1.
func TestExitStatus(t *testing.T) {
	tests := []struct {
		args []string
		want int
	}{
		{nil, exitUsage},
		{[]string{"frobnicate"}, exitUsage},
		{[]string{"choose", "--shape", "width=1"}, exitUsage},                          // missing required flag
		{[]string{"kernels", "--bogus"}, exitUsage},                                    // unknown flag
		{[]string{"devices", "--device", "x"}, exitUsage},                              // bad value
		{[]string{"inspect", "--model", bundle, "extra"}, exitUsage},                   // stray argument
		{[]string{"import", "--from", "t4", "--kernel", "k", "--out", "d"}, exitUsage}, // no files
		{[]string{"eval", "--data", "d", "--kernel", "conv2d", "--holdout", "x"}, exitUsage},
		{[]string{"choose", "--model", bundle, "--shape", "100000"}, exitUsage}, // a shape without names
		{[]string{"choose", "--model", "nope.augur", "--shape", "width=1"}, exitFailure},
		{[]string{"inspect", "--model", "main.go"}, exitFailure},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var out, errOut bytes.Buffer
			err := run(context.Background(), tt.args, &out, &errOut)
			if err == nil {
				t.Fatal("no error")
			}
			if got := exitStatus(err); got != tt.want {
				t.Errorf("exit status %d for %q, want %d", got, err, tt.want)
			}
		})
	}
}

func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}} {
		var out, errOut bytes.Buffer
		if err := run(context.Background(), args, &out, &errOut); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		if want := "augur " + features.Version + " ("; !strings.HasPrefix(out.String(), want) {
			t.Errorf("%v = %q, want it to start with %q", args, out.String(), want)
		}
	}
	var out, errOut bytes.Buffer
	if err := run(context.Background(), []string{"version", "--json"}, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	var v versionInfo
	if err := json.Unmarshal(out.Bytes(), &v); err != nil {
		t.Fatalf("version --json = %q: %v", out.String(), err)
	}
	if v.Version != features.Version || v.BundleFormat != features.BundleFormat || !strings.HasPrefix(v.Go, "go") {
		t.Errorf("version --json = %+v", v)
	}
}

// TestDeprecatedAlias checks that eval's old --sample still sets the
// two-stage sample and says it is deprecated, once.
func TestDeprecatedAlias(t *testing.T) {
	var out, errOut bytes.Buffer
	err := run(context.Background(), []string{"eval", "--sample", "0.05", "--help"}, &out, &errOut)
	if !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("error = %v, want flag.ErrHelp", err)
	}
	if got := strings.Count(errOut.String(), "--sample is deprecated"); got != 1 || !strings.Contains(errOut.String(), "--two-stage-sample") {
		t.Errorf("stderr %q: want one deprecation line naming --two-stage-sample", errOut.String())
	}
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	v := fs.Float64("new", 0.02, "")
	var warn bytes.Buffer
	deprecatedAlias(fs, "old", "new", &warn)
	if err := fs.Parse([]string{"--old", "0.5"}); err != nil || *v != 0.5 {
		t.Errorf("--old 0.5: err %v, --new = %g", err, *v)
	}
}

// TestReporter checks the log form of progress: nothing for a short run,
// then a line a period with the step, and stage lines passed through.
func TestReporter(t *testing.T) {
	var buf bytes.Buffer
	now := time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC)
	r := &reporter{w: &buf, name: "train", every: 10 * time.Second, now: func() time.Time { return now }, stop: make(chan struct{})}
	r.start, r.lastLine = now, now
	r.Step(1, 4, "model h200: fitting")
	now = now.Add(time.Second)
	r.tick()
	if buf.Len() != 0 {
		t.Fatalf("after 1 s: %q, want nothing", buf.String())
	}
	now = now.Add(10 * time.Second)
	r.tick()
	if got, want := buf.String(), "train: 1/4 model h200: fitting (11s)\n"; got != want {
		t.Errorf("after 11 s: %q, want %q", got, want)
	}
	buf.Reset()
	r.Write([]byte("learning curve on 735 rows\nstrat"))
	r.Write([]byte("egies\n"))
	if got, want := buf.String(), "learning curve on 735 rows\nstrategies\n"; got != want {
		t.Errorf("stage lines: %q, want %q", got, want)
	}
	r.Close()
	r.Close()

	quiet := newReporter(nil, "eval")
	quiet.Write([]byte("nothing\n"))
	quiet.Step(1, 2, "x")
	quiet.Close()
}
