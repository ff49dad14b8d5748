package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/augur-tuning/augur/features"
)

// flagsOf returns the flags of command name as its --help lists them.
func flagsOf(t *testing.T, name string) map[string]bool {
	t.Helper()
	var out, errOut bytes.Buffer
	run(context.Background(), []string{name, "--help"}, &out, &errOut)
	got := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^\s+-([a-z0-9-]+)`).FindAllStringSubmatch(out.String(), -1) {
		got[m[1]] = true
	}
	if len(got) == 0 {
		t.Fatalf("augur %s --help lists no flags:\n%s", name, out.String())
	}
	return got
}

// fenced returns the lines of the fenced code blocks of md whose info
// string is one of langs ("" for a block with none).
func fenced(md string, langs ...string) [][]string {
	var blocks [][]string
	var cur []string
	in := false
	for _, line := range strings.Split(md, "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case !in && strings.HasPrefix(trimmed, "```"):
			in = true
			if slices.Contains(langs, strings.TrimPrefix(trimmed, "```")) {
				cur = []string{}
			} else {
				cur = nil
			}
		case in && trimmed == "```":
			in = false
			if cur != nil {
				blocks = append(blocks, cur)
			}
		case in && cur != nil:
			cur = append(cur, line)
		}
	}
	return blocks
}

// commandLines joins continued lines ("\\" at the end) and returns the
// commands of augur among them (also "./bin/augur" and the like, and
// after "&&", ";" or "|"), from "augur" on, without a trailing comment.
func commandLines(block []string) []string {
	var out []string
	var cur string
	for _, line := range block {
		line = strings.TrimSpace(line)
		if c, ok := strings.CutSuffix(line, `\`); ok {
			cur += c + " "
			continue
		}
		cur += line
		if i := strings.Index(cur, " #"); i >= 0 {
			cur = cur[:i]
		}
		for _, seg := range regexp.MustCompile(`&&|;|\|`).Split(cur, -1) {
			fields := strings.Fields(seg)
			if len(fields) > 1 && filepath.Base(fields[0]) == "augur" && !strings.HasPrefix(fields[0], "#") {
				out = append(out, "augur "+strings.Join(fields[1:], " "))
			}
		}
		cur = ""
	}
	return out
}

var flagRE = regexp.MustCompile(`(?:^|[\s\[|])--([a-z][a-z0-9-]*)`)

// checkCommand checks that line names a command of augur and only flags
// that command has.
func checkCommand(t *testing.T, where, line string) {
	t.Helper()
	fields := strings.Fields(line)
	if len(fields) < 2 || fields[0] != "augur" {
		return
	}
	name := fields[1]
	if name == "--version" || name == "--help" {
		return
	}
	if !slices.ContainsFunc(commands(), func(c command) bool { return c.name == name }) {
		t.Errorf("%s: %q: augur has no command %q", where, line, name)
		return
	}
	have := flagsOf(t, name)
	for _, m := range flagRE.FindAllStringSubmatch(line, -1) {
		if !have[m[1]] {
			t.Errorf("%s: augur %s has no flag --%s", where, name, m[1])
		}
	}
}

// TestReadmeSynopsis checks the README's command-line synopsis against the
// commands and their flags: every command it lists exists, every flag it
// gives a command is one of that command's, and every command is listed.
func TestReadmeSynopsis(t *testing.T) {
	md, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(md), "\n## Command line\n")
	if !ok {
		t.Fatal(`README.md has no "## Command line" section`)
	}
	blocks := fenced(after, "")
	if len(blocks) == 0 {
		t.Fatal("README.md's command line section has no synopsis block")
	}
	listed := map[string]bool{}
	for _, line := range blocks[0] {
		if strings.HasPrefix(line, "augur ") {
			checkCommand(t, "README synopsis", line)
			listed[strings.Fields(line)[1]] = true
		}
	}
	for _, c := range commands() {
		if !listed[c.name] {
			t.Errorf("README synopsis lacks augur %s", c.name)
		}
	}
	if n := bytes.Count(md, []byte("\n")); n > 200 {
		t.Errorf("README.md has %d lines; keep it to 200 and move the rest to docs/ or bench/RESULTS.md", n)
	}
}

// docsOwned are the guides whose commands and Go code TestDocs checks;
// the others are checked where they are written.
var docsOwned = []string{"embedding.md", "fleets.md", "data-format.md", "new-device.md", "releasing.md", "own-kernel.md"}

// TestDocsCommands checks that every augur command in the guides' shell
// blocks, and in the README's, names a real command and its real flags.
func TestDocsCommands(t *testing.T) {
	files := []string{"../../README.md"}
	for _, f := range docsOwned {
		files = append(files, filepath.Join("../../docs", f))
	}
	for _, f := range files {
		md, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range fenced(string(md), "sh") {
			for _, line := range commandLines(b) {
				checkCommand(t, filepath.Base(f), line)
			}
		}
	}
}

// TestDocsGo compiles every Go block of the guides, each a whole program,
// with the bundles it embeds copied beside it. It needs the go command.
func TestDocsGo(t *testing.T) {
	if testing.Short() {
		t.Skip("builds programs")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	bundle, err := os.ReadFile("../../testdata/conv2d-pocl.augur")
	if err != nil {
		t.Fatal(err)
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range docsOwned {
		md, err := os.ReadFile(filepath.Join(root, "docs", f))
		if err != nil {
			t.Fatal(err)
		}
		for i, b := range fenced(string(md), "go") {
			t.Run(f+"/"+string(rune('0'+i)), func(t *testing.T) {
				// An overlay adds the program to the module without
				// writing into the checkout.
				tmp := t.TempDir()
				src := filepath.Join(tmp, "main.go")
				if err := os.WriteFile(src, []byte(strings.Join(b, "\n")), 0o644); err != nil {
					t.Fatal(err)
				}
				replace := map[string]string{filepath.Join(root, "cmd/augur/internal/doctest/main.go"): src}
				for _, m := range regexp.MustCompile(`//go:embed (\S+)`).FindAllStringSubmatch(strings.Join(b, "\n"), -1) {
					p := filepath.Join(tmp, m[1])
					// A bundle testdata holds under that name, else the conv2d one.
					data, err := os.ReadFile(filepath.Join(root, "testdata", m[1]))
					if err != nil {
						data = bundle
					}
					if err := os.WriteFile(p, data, 0o644); err != nil {
						t.Fatal(err)
					}
					replace[filepath.Join(root, "cmd/augur/internal/doctest", m[1])] = p
				}
				overlay, _ := json.Marshal(map[string]any{"Replace": replace})
				if err := os.WriteFile(filepath.Join(tmp, "overlay.json"), overlay, 0o644); err != nil {
					t.Fatal(err)
				}
				cmd := exec.Command(gobin, "build", "-overlay", filepath.Join(tmp, "overlay.json"), "-o", filepath.Join(tmp, "prog"), "./cmd/augur/internal/doctest")
				cmd.Dir = root
				cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("docs/%s, Go block %d does not build: %v\n%s", f, i, err, out)
				}
				// It runs, too: the bundle loads and chooses.
				run := exec.Command(filepath.Join(tmp, "prog"))
				if out, err := run.CombinedOutput(); err != nil {
					t.Fatalf("docs/%s, Go block %d fails: %v\n%s", f, i, err, out)
				}
			})
		}
	}
}

func TestCommandLines(t *testing.T) {
	tests := []struct {
		block []string
		want  []string
	}{
		{[]string{"augur devices   # list them"}, []string{"augur devices"}},
		{[]string{"augur collect --kernel conv2d \\", "    --out data"}, []string{"augur collect --kernel conv2d --out data"}},
		{[]string{"go build -o bin/augur ./cmd/augur && ./bin/augur version"}, []string{"augur version"}},
		{[]string{"# augur train is next", "make test"}, nil},
	}
	for _, tt := range tests {
		if got := commandLines(tt.block); !slices.Equal(got, tt.want) {
			t.Errorf("commandLines(%q) = %q, want %q", tt.block, got, tt.want)
		}
	}
}

// TestDataFormatPlatformKeys checks that docs/data-format.md names the
// measured platform features by the keys the platform JSON gives them.
func TestDataFormatPlatformKeys(t *testing.T) {
	md, err := os.ReadFile("../../docs/data-format.md")
	if err != nil {
		t.Fatal(err)
	}
	var zero, measured map[string]any
	js, _ := json.Marshal(features.Platform{})
	json.Unmarshal(js, &zero)
	js, _ = json.Marshal(features.Platform{GlobalBandwidthGBs: 1, FP32GFLOPs: 1, LocalBandwidthGBs: 1, LaunchOverheadUs: 1})
	json.Unmarshal(js, &measured)
	for key := range measured {
		if _, ok := zero[key]; !ok && !bytes.Contains(md, []byte("`"+key+"`")) {
			t.Errorf("docs/data-format.md does not name the platform JSON's key %s", key)
		}
	}
}
