package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/augur-tuning/augur/collect"
	"github.com/augur-tuning/augur/collect/record"
)

// TestCollectPrefilled runs deploy/collect-prefilled.sh with this test
// binary as augur: over a directory that already holds part of the run, the
// fill shards and the timing process leave every pair of the run recorded
// once, the files already there unchanged, and no fill rows behind; a fill
// that fails stops the script with its log, before any timing.
func TestCollectPrefilled(t *testing.T) {
	if _, err := collect.ListDevices(); err != nil {
		t.Skipf("no OpenCL device: %v", err)
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	script, err := filepath.Abs("../../deploy/collect-prefilled.sh")
	if err != nil {
		t.Fatal(err)
	}
	shapes := "width=64,height=64,filter_w=3,filter_h=3;width=96,height=64,filter_w=3,filter_h=3;width=64,height=64,filter_w=5,filter_h=5"
	fill := "width=64,height=64,filter_w=3,filter_h=3;width=64,height=64,filter_w=5,filter_h=5"
	flags := []string{"--kernel", "conv2d", "--repeats", "1", "--sample", "random:6", "--seed", "4",
		"--programs-per-process", "0", "--shapes", shapes}
	dir := t.TempDir()
	// Part of the run first: its first shape.
	first := append(append([]string{"collect", "--out", dir}, flags...), "--shapes", strings.SplitN(shapes, ";", 2)[0])
	if out, err := exec.Command(exe, first...).CombinedOutput(); err != nil {
		t.Fatalf("first part: %v\n%s", err, out)
	}
	before, err := record.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}

	cmd := exec.Command("bash", append([]string{script, "2", fill, dir}, flags...)...)
	cmd.Env = append(os.Environ(), "AUGUR="+exe)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("collect-prefilled: %v\n%s", err, out)
	}
	after, pairs := recordedPairs(t, dir)
	if want := 3 * 7; len(pairs) != want {
		t.Errorf("%d pairs recorded, want %d (6 sampled and the reference on 3 shapes)", len(pairs), want)
	}
	for _, b := range before {
		found := false
		for _, a := range after {
			if a.Path == b.Path {
				found = len(a.Rows) == len(b.Rows)
			}
		}
		if !found {
			t.Errorf("%s changed or went missing", b.Path)
		}
	}
	if len(after) != len(before)+1 {
		t.Errorf("%d files after, %d before: want the timing's one file more (the fill's are thrown away)", len(after), len(before))
	}

	badN := exec.Command("bash", script, "two", fill, t.TempDir(), "--kernel", "conv2d")
	badN.Env = append(os.Environ(), "AUGUR="+exe)
	if out, err := badN.CombinedOutput(); err == nil || !strings.Contains(string(out), "positive integer") {
		t.Errorf("N = two: err %v, output %q; want a failure naming N", err, out)
	}
	bad := exec.Command("bash", script, "2", fill, t.TempDir(), "--kernel", "no-such-kernel")
	bad.Env = append(os.Environ(), "AUGUR="+exe)
	out, err := bad.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "fill shard") || !strings.Contains(string(out), "no-such-kernel") {
		t.Errorf("a failing fill: err %v, output %q; want a failure naming the shard and the kernel", err, out)
	}
}
