package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/augur-tuning/augur/collect"
	"github.com/augur-tuning/augur/eval"
)

func TestEvalNextShapes(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "shapes.txt")
	os.WriteFile(file, []byte("# sizes our library sees\nwidth=100,height=100,filter_w=5,filter_h=5\n\nwidth=8192,height=8192,filter_w=5,filter_h=5 # the largest\n"), 0o644)
	empty := filepath.Join(dir, "empty.txt")
	os.WriteFile(empty, []byte("# nothing\n"), 0o644)
	for _, tc := range []struct {
		name string
		args []string
		want string // in the text, or in the error when fail
		fail bool
	}{
		{"a list", []string{"--next-shapes", "1", "--from", "width=100,height=100,filter_w=5,filter_h=5;width=2048,height=2048,filter_w=5,filter_h=5"}, "  1  width=100,height=100,filter_w=5,filter_h=5  4.75 doublings from width=1024,height=1024,filter_w=5,filter_h=5\n  augur collect --kernel conv2d --out ../../testdata/h200 --device nvidia-h200 --shapes 'width=100,height=100,filter_w=5,filter_h=5'\n", false},
		{"a file with comments", []string{"--next-shapes", "2", "--from", file}, "--shapes 'width=100,height=100,filter_w=5,filter_h=5;width=8192,height=8192,filter_w=5,filter_h=5'", false},
		{"json", []string{"--next-shapes", "1", "--from", file, "--json"}, `"nearest": "width=1024,height=1024,filter_w=5,filter_h=5"`, false},
		{"fewer left than asked", []string{"--next-shapes", "3", "--from", "width=1024,height=1024,filter_w=5,filter_h=5;width=100,height=100,filter_w=5,filter_h=5"}, "(3 asked: the other shapes to choose from are measured or cannot run)", false},
		{"all measured", []string{"--next-shapes", "1", "--from", "width=1024,height=1024,filter_w=5,filter_h=5"}, "no shape to choose from is left to measure", false},
		{"no --from", []string{"--next-shapes", "3"}, "--next-shapes needs --from", true},
		{"no count", []string{"--from", file}, "--from and --device need --next-shapes N", true},
		{"no such file", []string{"--next-shapes", "1", "--from", filepath.Join(dir, "nope.txt")}, "nope.txt: no such file", true},
		{"empty file", []string{"--next-shapes", "1", "--from", empty}, "holds no shapes", true},
		{"a shape the kernel refuses", []string{"--next-shapes", "1", "--from", "width=100,height=100,filter_w=4,filter_h=5"}, "filter", true},
		{"a device with no data", []string{"--next-shapes", "1", "--from", file, "--device", "gtx-680"}, "gtx-680 (no data of this device; check its name if it should have some)", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			args := append([]string{"eval", "--data", "../../testdata/h200", "--kernel", "conv2d", "--quiet"}, tc.args...)
			err := run(context.Background(), args, &out, &errOut)
			if tc.fail {
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("error = %v, want one with %q", err, tc.want)
				}
				return
			}
			if err != nil || !strings.Contains(out.String(), tc.want) {
				t.Errorf("error %v, output %q; want it to hold %q", err, out.String(), tc.want)
			}
		})
	}
}

func TestReadShapes(t *testing.T) {
	for _, tc := range []struct {
		name, from, stdin, want string
	}{
		{"a list stays as given", "a=1;a=2", "", "a=1;a=2"},
		{"lines, comments and blanks", "-", "# ours\na=1\n\n  a=2 # big\na=3;a=4\n", "a=1;a=2;a=3;a=4"},
		{"no final newline", "-", "a=1", "a=1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := readShapes("test", tc.from, strings.NewReader(tc.stdin))
			if err != nil || strings.Join(got, ";") != tc.want {
				t.Errorf("readShapes = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

// TestReadShapesNeither: a value that is neither shapes nor a file (a
// shape without its names) is a usage error that says both.
func TestReadShapesNeither(t *testing.T) {
	_, err := readShapes("collect: --shapes", "100000", nil)
	var u usageError
	if !errors.As(err, &u) || !strings.Contains(err.Error(), `"100000" is neither shapes (name=value,...;...) nor a file: open 100000: no such file`) {
		t.Errorf("readShapes = %v, want a usage error naming both readings", err)
	}
}

// TestShapesFromFile: collect reads --shapes from a file (what 'eval
// --next-shapes' lists can be kept in one), and refuses '-', which its
// measuring children could not read again.
func TestShapesFromFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "shapes.txt")
	os.WriteFile(file, []byte("# two\nwidth=64,height=32\nproblem_size_0=48,problem_size_1=16 # a spec's own names too\n"), 0o644)
	bad := filepath.Join(dir, "bad.txt")
	os.WriteFile(bad, []byte("width=64\n"), 0o644)
	const spec = "../../examples/transpose/transpose.json"
	for _, tc := range []struct {
		name, shapes, want string
	}{
		{"standard input", "-", "'-' (standard input) is not read here"},
		{"no such file", filepath.Join(dir, "nope.txt"), "nope.txt: no such file"},
		{"a bad shape in the file", bad, "lacks height"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := run(context.Background(), []string{"collect", "--spec", spec, "--out", filepath.Join(dir, "x"), "--shapes", tc.shapes}, io.Discard, io.Discard)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error = %v, want one with %q", err, tc.want)
			}
		})
	}
	if _, err := collect.ListDevices(); err != nil {
		t.Skipf("no OpenCL device: %v", err)
	}
	out := filepath.Join(dir, "data")
	var errb bytes.Buffer
	args := []string{"collect", "--spec", spec, "--out", out, "--shapes", file, "--sample", "random:2", "--repeats", "1", "--programs-per-process", "0"}
	if err := run(context.Background(), args, io.Discard, &errb); err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	var got bytes.Buffer
	if err := run(context.Background(), []string{"eval", "--data", out, "--spec", spec, "--next-shapes", "1", "--from", "width=64,height=32;width=48,height=16", "--quiet"}, &got, io.Discard); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got.String(), "(2 shapes measured): no shape to choose from is left to measure") {
		t.Errorf("the file's two shapes were not both measured:\n%s", got.String())
	}
}

// TestEvalNextShapesStencil: --next-shapes answers for stencil, whose
// default report is Table 3.
func TestEvalNextShapesStencil(t *testing.T) {
	var out bytes.Buffer
	args := []string{"eval", "--data", "../../testdata/stencil-pocl", "--kernel", "stencil", "--quiet",
		"--next-shapes", "1", "--from", "pattern=0,dims=1,radius=1,orient=0,nx=128,ny=128,nz=128"}
	if err := run(context.Background(), args, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "measure next") || strings.Contains(out.String(), "Table 3") {
		t.Errorf("want the next shapes, not Table 3:\n%s", out.String())
	}
}

// TestWriteNextShapesImported: for a kernel imported without its spec the
// suggestions say how to measure them, not a collect command that cannot
// run (collect knows no such kernel).
func TestWriteNextShapesImported(t *testing.T) {
	out := []eval.NextShapes{{Platform: "amd-radeon-pro-w6600", Measured: 1, Shapes: []eval.NextShape{{Shape: "n=4096"}}}}
	for _, tc := range []struct {
		flags, want, not string
	}{
		{"--kernel conv2d --out d", "augur collect --kernel conv2d --out d --device amd-radeon-pro-w6600 --shapes 'n=4096'", "augur import"},
		{"", "add them with augur import", "augur collect --"},
	} {
		var b strings.Builder
		if err := writeNextShapes(&b, out, tc.flags, 1); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), tc.want) || strings.Contains(b.String(), tc.not) {
			t.Errorf("flags %q: output\n%s\nwant %q and not %q", tc.flags, b.String(), tc.want, tc.not)
		}
	}
}
