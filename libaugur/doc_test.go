package main

import (
	"cmp"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// kerneltunerDir holds the benchmark hub's Kernel Tuner cache files:
// $AUGUR_KERNELTUNER_DIR, or shared/datasets/kerneltuner beside the
// repository (its README.md says where they come from). The doc test skips
// without them.
var kerneltunerDir = cmp.Or(os.Getenv("AUGUR_KERNELTUNER_DIR"), "../../shared/datasets/kerneltuner")

// TestDocPython runs docs/python.md: its augur commands on the Kernel Tuner
// cache, then its Python program, whose output must equal the doc's.
func TestDocPython(t *testing.T) {
	if _, err := os.Stat(filepath.Join(kerneltunerDir, "convolution_milo_A4000.json.gz")); err != nil {
		t.Skipf("no Kernel Tuner cache files in %s: docs/python.md's commands are not run", kerneltunerDir)
	}
	py, env := pythonEnv(t)
	doc, err := os.ReadFile("../docs/python.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := map[string]string{}
	for _, m := range regexp.MustCompile("(?s)```(sh|python|text)\n(.*?)```").FindAllSubmatch(doc, -1) {
		if _, ok := blocks[string(m[1])]; !ok {
			blocks[string(m[1])] = string(m[2])
		}
	}
	if len(blocks) != 3 {
		t.Fatalf("docs/python.md has blocks %v, want sh, python and text", blocks)
	}
	bin := t.TempDir()
	if b, err := exec.Command("go", "build", "-o", filepath.Join(bin, "augur"), "../cmd/augur").CombinedOutput(); err != nil {
		t.Fatalf("go build ../cmd/augur: %v\n%s", err, b)
	}
	work := t.TempDir()
	dir, err := filepath.Abs(kerneltunerDir) // the links are read from work
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"convolution_milo_A4000.json.gz", "convolution_milo.T1.json"} {
		if err := os.Symlink(filepath.Join(dir, name), filepath.Join(work, name)); err != nil {
			t.Fatal(err)
		}
	}
	env = append(env, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	lines := 0
	for _, line := range strings.Split(strings.TrimSpace(blocks["sh"]), "\n") {
		lines++
		cmd := exec.Command("sh", "-ec", line)
		cmd.Dir, cmd.Env = work, env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", line, err, out)
		}
	}
	lines += strings.Count(strings.TrimSpace(blocks["python"]), "\n") + 1
	if lines >= 10 {
		t.Errorf("the doc's path takes %d lines, the promise is under 10", lines)
	}
	cmd := exec.Command(py, "-c", blocks["python"])
	cmd.Dir, cmd.Env = work, env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the doc's Python: %v\n%s", err, out)
	}
	if string(out) != blocks["text"] {
		t.Errorf("the doc's Python printed\n%s\nthe doc says\n%s", out, blocks["text"])
	}
}
