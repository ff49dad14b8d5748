package main

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/augur-tuning/augur/features"
)

// headerABI returns AUGUR_ABI as include/augur_types.h defines it.
func headerABI(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../include/augur_types.h")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^#define AUGUR_ABI (\d+)`).FindSubmatch(b)
	if m == nil {
		t.Fatal("include/augur_types.h defines no AUGUR_ABI")
	}
	return string(m[1])
}

// canMake skips a test that runs the Makefile's library targets where
// they cannot run (no C compiler, cgo off, no make) or take too long
// (-short).
func canMake(t *testing.T) {
	t.Helper()
	compiler(t, false)
	cgoOn(t)
	if testing.Short() {
		t.Skip("-short: building the libraries takes a while")
	}
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make on PATH")
	}
}

func runMake(t *testing.T, args ...string) {
	t.Helper()
	if b, err := exec.Command("make", append([]string{"-s", "-C", ".."}, args...)...).CombinedOutput(); err != nil {
		t.Fatalf("make %s: %v\n%s", strings.Join(args, " "), err, b)
	}
}

// TestInstall stages `make lib` and `make install-files` under a
// temporary DESTDIR and builds the C example as a user of the installed
// library would: with pkg-config's flags alone. The executable must need
// the library by its soname (libaugur.so.ABI), and `make uninstall` must
// leave no file behind.
func TestInstall(t *testing.T) {
	canMake(t)
	abi := headerABI(t)
	built := t.TempDir()
	// The command is installed as it is; this test is about the library.
	if err := os.WriteFile(filepath.Join(built, "augur"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	runMake(t, "lib", "BUILT="+built)
	dest := t.TempDir()
	runMake(t, "install-files", "BUILT="+built, "DESTDIR="+dest, "PREFIX=/opt/augur")

	lib := filepath.Join(dest, "opt/augur/lib")
	so := filepath.Join(lib, "libaugur.so."+abi)
	f, err := elf.Open(so)
	if err != nil {
		t.Fatal(err)
	}
	soname, err := f.DynString(elf.DT_SONAME)
	f.Close()
	if err != nil || !slices.Equal(soname, []string{"libaugur.so." + abi}) {
		t.Errorf("%s: soname %q (%v), want libaugur.so.%s", so, soname, err, abi)
	}
	if link, err := os.Readlink(filepath.Join(lib, "libaugur.so")); err != nil || link != "libaugur.so."+abi {
		t.Errorf("libaugur.so links to %q (%v), want libaugur.so.%s", link, err, abi)
	}
	for _, h := range []string{"augur.h", "augur_types.h", "augur.hpp"} {
		if _, err := os.Stat(filepath.Join(dest, "opt/augur/include", h)); err != nil {
			t.Error(err)
		}
	}
	pc, err := os.ReadFile(filepath.Join(lib, "pkgconfig/augur.pc"))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"prefix=/opt/augur\n", "libdir=/opt/augur/lib\n", "Version: " + features.Version + "\n", "Libs: -L${libdir} -laugur\n"} {
		if !strings.Contains(string(pc), w) {
			t.Errorf("augur.pc lacks %q:\n%s", w, pc)
		}
	}

	if _, err := exec.LookPath("pkg-config"); err != nil {
		t.Log("no pkg-config on PATH: the example is not built from the installed files")
	} else {
		pkg := exec.Command("pkg-config", "--cflags", "--libs", "augur")
		pkg.Env = append(os.Environ(), "PKG_CONFIG_PATH="+filepath.Join(lib, "pkgconfig"), "PKG_CONFIG_SYSROOT_DIR="+dest)
		flags, err := pkg.Output()
		if err != nil {
			t.Fatalf("pkg-config --cflags --libs augur: %v", err)
		}
		cc := strings.Fields(compiler(t, false))
		exe := filepath.Join(t.TempDir(), "choose")
		args := append(cc[1:], "../examples/c/choose.c")
		args = append(args, strings.Fields(string(flags))...)
		args = append(args, "-lm", "-Wl,-rpath,"+lib, "-o", exe)
		if b, err := exec.Command(cc[0], args...).CombinedOutput(); err != nil {
			t.Fatalf("%s %s: %v\n%s", cc[0], strings.Join(args, " "), err, b)
		}
		e, err := elf.Open(exe)
		if err != nil {
			t.Fatal(err)
		}
		needed, _ := e.DynString(elf.DT_NEEDED)
		e.Close()
		if !slices.Contains(needed, "libaugur.so."+abi) {
			t.Errorf("the example needs %q, not libaugur.so.%s", needed, abi)
		}
		if out := run(t, exe, poclBundle, "1920", "1080", "5", "5"); !strings.Contains(out, wantPick[0]) {
			t.Errorf("output lacks %q:\n%s", wantPick[0], out)
		}
	}

	installedPython(t, lib, abi)

	runMake(t, "uninstall", "DESTDIR="+dest, "PREFIX=/opt/augur")
	filepath.WalkDir(dest, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			t.Errorf("left after make uninstall: %s", path)
		}
		return nil
	})
}

// installedPython loads the Python package from outside any checkout,
// without AUGUR_LIB: it must find the installed library by its soname
// where the dynamic loader looks (LD_LIBRARY_PATH here, the loader's
// cache after ldconfig), and say how to install it when it is not there.
func installedPython(t *testing.T, lib, abi string) {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Log("no python3 on PATH: the package is not loaded from the installed files")
		return
	}
	pkg := filepath.Join(t.TempDir(), "augur")
	src, err := os.ReadFile("../python/augur/__init__.py")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(pkg, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(pkg, "__init__.py"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	var env []string
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "AUGUR_LIB=") && !strings.HasPrefix(e, "LD_LIBRARY_PATH=") {
			env = append(env, e)
		}
	}
	env = append(env, "PYTHONPATH="+filepath.Dir(pkg), "PYTHONDONTWRITEBYTECODE=1")
	script := "import augur; print(augur.library_path()); print(augur.version())"
	cmd := exec.Command(py, "-c", script)
	cmd.Env = append(env, "LD_LIBRARY_PATH="+lib)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "libaugur.so."+abi+"\n") {
		t.Errorf("the package did not load the installed library: %v\n%s", err, out)
	}
	cmd = exec.Command(py, "-c", script)
	cmd.Env = env
	out, err = cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "make install") {
		t.Errorf("without the library the package should say how to install it: %v\n%s", err, out)
	}
}

// TestExampleCommands builds each example with the command its first
// comment gives, in a checkout laid out as `make lib` leaves it (bin/
// holding the libraries), and runs it: the command must work as written,
// the executable finding the library by its soname through the rpath.
func TestExampleCommands(t *testing.T) {
	canMake(t)
	for _, src := range []string{"examples/c/choose.c", "examples/cpp/choose.cpp"} {
		t.Run(filepath.Base(filepath.Dir(src)), func(t *testing.T) {
			compiler(t, strings.HasSuffix(src, ".cpp"))
			text, err := os.ReadFile(filepath.Join("..", src))
			if err != nil {
				t.Fatal(err)
			}
			var build string
			for _, line := range strings.Split(string(text), "\n") {
				if l := strings.TrimPrefix(line, "//\t"); l != line && strings.Contains(l, " -o choose") {
					build = l
					break
				}
			}
			if build == "" {
				t.Fatalf("%s: no build command in its comment", src)
			}
			root := t.TempDir()
			runMake(t, "lib", "BUILT="+filepath.Join(root, "bin"))
			for _, d := range []string{"include", "examples"} {
				abs, err := filepath.Abs(filepath.Join("..", d))
				if err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(abs, filepath.Join(root, d)); err != nil {
					t.Fatal(err)
				}
			}
			cmd := exec.Command("sh", "-c", build)
			cmd.Dir = root
			if b, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("%s: %v\n%s", build, err, b)
			}
			bundle, err := filepath.Abs(poclBundle)
			if err != nil {
				t.Fatal(err)
			}
			if out := run(t, filepath.Join(root, "choose"), bundle, "1920", "1080", "5", "5"); !strings.Contains(out, wantPick[0]) {
				t.Errorf("output lacks %q:\n%s", wantPick[0], out)
			}
		})
	}
}
