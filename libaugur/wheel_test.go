package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// wheelPython returns a Python that can build wheels offline (setuptools,
// wheel and pip importable): python3 on PATH, else the system's.
func wheelPython(t *testing.T) string {
	t.Helper()
	var tried []string
	for _, name := range []string{"python3", "/usr/bin/python3"} {
		py, err := exec.LookPath(name)
		if err != nil {
			continue
		}
		if exec.Command(py, "-c", "import setuptools, wheel, pip").Run() == nil {
			return py
		}
		tried = append(tried, py)
	}
	t.Skipf("no Python with setuptools, wheel and pip (tried %v): the wheel is not built", tried)
	return ""
}

// TestWheel builds the Python wheel (make wheel), installs it into a
// directory of its own and uses it from elsewhere without AUGUR_LIB: the
// library must come from inside the installed package, and the wheel must
// be tagged for the platform, not as pure Python.
func TestWheel(t *testing.T) {
	canMake(t)
	py := wheelPython(t)
	built := t.TempDir()
	runMake(t, "wheel", "BUILT="+built, "PYTHON="+py)
	wheels, _ := filepath.Glob(filepath.Join(built, "dist", "augur-*.whl"))
	if len(wheels) != 1 {
		t.Fatalf("make wheel wrote %v, want one augur wheel", wheels)
	}
	if name := filepath.Base(wheels[0]); !strings.Contains(name, "-py3-none-") || strings.HasSuffix(name, "-any.whl") {
		t.Errorf("wheel %s: want py3-none-PLATFORM (it holds a native library)", name)
	}
	site := t.TempDir()
	if b, err := exec.Command(py, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index", "--target", site, wheels[0]).CombinedOutput(); err != nil {
		t.Fatalf("pip install: %v\n%s", err, b)
	}
	bundle, err := filepath.Abs(poclBundle)
	if err != nil {
		t.Fatal(err)
	}
	var env []string
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "AUGUR_LIB=") && !strings.HasPrefix(e, "PYTHONPATH=") {
			env = append(env, e)
		}
	}
	cmd := exec.Command(py, "-c", `import sys, augur
print(augur.library_path())
with augur.Chooser(sys.argv[1]) as ch:
    print(ch.choose(width=1920, height=1080, filter_w=5, filter_h=5)["source"])`, bundle)
	cmd.Env = append(env, "PYTHONPATH="+site, "PYTHONDONTWRITEBYTECODE=1")
	cmd.Dir = t.TempDir()
	out, err := cmd.CombinedOutput()
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if err != nil || len(lines) != 2 || lines[0] != filepath.Join(site, "augur", "libaugur.so") || !strings.HasPrefix(lines[1], "model:") {
		t.Errorf("the installed wheel: %v\n%s", err, out)
	}
}
