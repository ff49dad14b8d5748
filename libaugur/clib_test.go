package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
)

// built holds the libraries the tests build once, into a directory
// TestMain removes.
var built struct {
	dir                string
	sharedOnce, arOnce sync.Once
	sharedErr, arErr   error
	sharedLog, arLog   []byte
}

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "libaugur-test-")
	if err != nil {
		panic(err)
	}
	built.dir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// sharedLib builds libaugur.so (go build -buildmode=c-shared) and returns
// its directory.
func sharedLib(t *testing.T) string {
	t.Helper()
	cgoOn(t)
	built.sharedOnce.Do(func() {
		built.sharedLog, built.sharedErr = exec.Command("go", "build", "-buildmode=c-shared",
			"-o", filepath.Join(built.dir, "libaugur.so"), ".").CombinedOutput()
	})
	if built.sharedErr != nil {
		t.Fatalf("go build -buildmode=c-shared: %v\n%s", built.sharedErr, built.sharedLog)
	}
	return built.dir
}

// archiveLib builds libaugur.a (c-archive) and returns its path.
func archiveLib(t *testing.T) string {
	t.Helper()
	cgoOn(t)
	built.arOnce.Do(func() {
		built.arLog, built.arErr = exec.Command("go", "build", "-buildmode=c-archive",
			"-o", filepath.Join(built.dir, "static", "libaugur.a"), ".").CombinedOutput()
	})
	if built.arErr != nil {
		t.Fatalf("go build -buildmode=c-archive: %v\n%s", built.arErr, built.arLog)
	}
	return filepath.Join(built.dir, "static", "libaugur.a")
}

// cgoOn skips the test when cgo is off: Go turns it off where it finds no
// C compiler, and libaugur is then an empty program.
func cgoOn(t *testing.T) {
	t.Helper()
	out, err := exec.Command("go", "env", "CGO_ENABLED").Output()
	if err != nil || strings.TrimSpace(string(out)) != "1" {
		t.Skipf("cgo is off (go env CGO_ENABLED = %q, %v): libaugur cannot be built; install a C compiler", strings.TrimSpace(string(out)), err)
	}
}

// compiler returns the C (or C++) compiler, or skips the test.
func compiler(t *testing.T, cxx bool) string {
	t.Helper()
	env, def := "CC", "cc"
	if cxx {
		env, def = "CXX", "c++"
	}
	name := os.Getenv(env)
	if name == "" {
		name = def
	}
	fields := strings.Fields(name)
	if len(fields) == 0 {
		fields = []string{def}
	}
	if _, err := exec.LookPath(fields[0]); err != nil {
		t.Skipf("no %s compiler found (%s=%q, or %s on PATH): the C/C++ examples are not built; install one (apt-get install build-essential) to run them", map[bool]string{false: "C", true: "C++"}[cxx], env, os.Getenv(env), def)
	}
	return name
}

// buildC compiles sources against the shared library into an executable
// and returns its path.
func buildC(t *testing.T, cxx bool, out string, args ...string) string {
	t.Helper()
	cc := compiler(t, cxx)
	lib := sharedLib(t)
	exe := filepath.Join(t.TempDir(), out)
	fields := strings.Fields(cc)
	cmdArgs := append(fields[1:], "-Wall", "-Wextra", "-Werror", "-I../include")
	cmdArgs = append(cmdArgs, args...)
	cmdArgs = append(cmdArgs, "-L"+lib, "-laugur", "-Wl,-rpath,"+lib, "-lpthread", "-lm", "-o", exe)
	if b, err := exec.Command(fields[0], cmdArgs...).CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", cc, strings.Join(cmdArgs, " "), err, b)
	}
	return exe
}

func run(t *testing.T, exe string, args ...string) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(exe, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\nstdout:\n%s\nstderr:\n%s", exe, strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return stdout.String()
}

// TestCABI runs testdata/abi_test.c: every error path of the C API, from
// C, and eight threads on one handle.
func TestCABI(t *testing.T) {
	exe := buildC(t, false, "abi_test", "testdata/abi_test.c")
	if out := run(t, exe, poclBundle, filepath.Join(t.TempDir(), "w.jsonl"), valuesBundle, labelsBundle); out != "ok\n" {
		t.Errorf("abi_test printed %q", out)
	}
}

// wantPick is what both examples print for 1920x1080 5x5 on the PoCL
// bundle.
var wantPick = []string{
	"source: model:pocl-cpu-pthread-skylake-avx512-amd-epyc",
	"build options: -D FW=5 -D FH=5 -D Xwg=",
}

func TestExampleC(t *testing.T) {
	exe := buildC(t, false, "choose", "../examples/c/choose.c")
	out := run(t, exe, poclBundle, "1920", "1080", "5", "5")
	for _, w := range append(wantPick, "shape: width,height,filter_w,filter_h", "plan: dims=2 global=") {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
	t.Logf("examples/c/choose:\n%s", out)
}

func TestExampleCPP(t *testing.T) {
	exe := buildC(t, true, "choose", "-std=c++11", "../examples/cpp/choose.cpp")
	out := run(t, exe, poclBundle, "1920", "1080", "5", "5")
	for _, w := range append(wantPick, "candidate 2:") {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
	t.Logf("examples/cpp/choose:\n%s", out)
	// A string parameter prints as its text, as the build options give it.
	out = run(t, exe, labelsBundle, "4096")
	m := regexp.MustCompile(`config: WG=(8|16) MODE=(\w+)\n`).FindStringSubmatch(out)
	if m == nil || !strings.Contains(out, "-DMODE="+m[2]) || !slices.Contains([]string{"mul", "add", "sub"}, m[2]) ||
		!strings.Contains(out, "MODE as the kernel gets it: "+m[2]+" (labels: 3)") {
		t.Errorf("the string parameter did not print as its text, or not as the build options give it:\n%s", out)
	}
}

// TestCArchive links the C example with the static library.
func TestCArchive(t *testing.T) {
	cc := compiler(t, false)
	if testing.Short() {
		t.Skip("-short: the c-archive build takes a while")
	}
	ar := archiveLib(t)
	exe := filepath.Join(t.TempDir(), "choose-static")
	fields := strings.Fields(cc)
	args := append(fields[1:], "-I../include", "../examples/c/choose.c", ar, "-lpthread", "-ldl", "-lm", "-o", exe)
	if b, err := exec.Command(fields[0], args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", cc, strings.Join(args, " "), err, b)
	}
	out := run(t, exe, poclBundle, "1920", "1080", "5", "5")
	if !strings.Contains(out, wantPick[0]) {
		t.Errorf("output lacks %q:\n%s", wantPick[0], out)
	}
}

// pythonEnv returns python3 and the environment its tests run in, or skips.
func pythonEnv(t *testing.T) (string, []string) {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3 on PATH: the Python package's tests are not run")
	}
	lib := sharedLib(t)
	testdata, _ := filepath.Abs("../testdata")
	pkg, _ := filepath.Abs("../python")
	env := append(os.Environ(), "AUGUR_LIB="+filepath.Join(lib, "libaugur.so"), "AUGUR_TESTDATA="+testdata,
		"PYTHONPATH="+pkg, "PYTHONDONTWRITEBYTECODE=1")
	return py, env
}

// TestPython runs the Python package's unittest suite (python/tests).
func TestPython(t *testing.T) {
	py, env := pythonEnv(t)
	cmd := exec.Command(py, "-m", "unittest", "discover", "-s", "tests", "-v")
	cmd.Dir, cmd.Env = "../python", env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("python3 -m unittest: %v\n%s", err, out)
	}
	t.Logf("%s", out)
}

// TestLatencyPrograms runs the latency programs of bench/RESULTS.md with a
// few calls, so that they keep building; the figures come from running
// them by hand with more.
func TestLatencyPrograms(t *testing.T) {
	exe := buildC(t, false, "latency", "testdata/latency.c")
	if out := run(t, exe, poclBundle, "20"); !strings.Contains(out, "cached") {
		t.Errorf("latency printed %q", out)
	}
	if out, err := exec.Command("go", "run", "./testdata/latency_go", poclBundle, "20").CombinedOutput(); err != nil || !strings.Contains(string(out), "cached") {
		t.Errorf("latency_go: %v\n%s", err, out)
	}
	py, env := pythonEnv(t)
	cmd := exec.Command(py, "testdata/latency.py", poclBundle, "20")
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "cached") {
		t.Errorf("latency.py: %v\n%s", err, out)
	}
}
