package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/augur-tuning/augur/collect/record"
	"github.com/augur-tuning/augur/features"
)

// writeVerifyData writes one good dataset file under dir and returns it.
func writeVerifyData(t *testing.T, dir string) string {
	t.Helper()
	meta := record.Meta{Kernel: "imported", Created: time.Unix(0, 0).UTC(), TaskNames: []string{"n"},
		Params: []features.Param{{Name: "p", Values: []int{1, 2}}}, Source: "test"}
	path := filepath.Join(dir, "run.arrow")
	w, err := record.Create(path, meta, record.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []record.Row{
		{Task: features.Task{8}, Config: features.Config{1}, Status: record.StatusOK, TimeNs: 10, Repeats: 3},
		{Task: features.Task{8}, Config: features.Config{2}, Status: record.StatusCompileError},
		{Task: features.Task{8}, Config: features.Config{2}, Status: record.StatusCompileError},
	} {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestVerifyCommand(t *testing.T) {
	dir := t.TempDir()
	good := writeVerifyData(t, dir)
	var out, errOut bytes.Buffer
	if err := run(context.Background(), []string{"verify", "--data", dir}, &out, &errOut); err != nil {
		t.Fatalf("verify of a good directory: %v\n%s", err, out.String())
	}
	if s := out.String(); !strings.Contains(s, "3 rows, 1 batches, 1 duplicates, 0 bad rows, checksums ok: ok") || !strings.Contains(s, "1 files, 0 bad") {
		t.Errorf("verify printed %q", s)
	}
	// A file cut short: a bad file, exit status 1.
	b, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.arrow")
	if err := os.WriteFile(bad, b[:len(b)-20], 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	err = run(context.Background(), []string{"verify", "--data", dir, "--json"}, &out, &errOut)
	if !errors.Is(err, errBadData) || exitStatus(err) != exitFailure {
		t.Fatalf("verify of a damaged file: err = %v, want errBadData and status 1", err)
	}
	if s := out.String(); !strings.Contains(s, `"bad_files": 1`) || !strings.Contains(s, "bad.arrow") {
		t.Errorf("verify --json printed %q", s)
	}
	if err := run(context.Background(), []string{"verify"}, &out, &errOut); exitStatus(err) != exitUsage {
		t.Errorf("verify without --data: err = %v, want a usage error", err)
	}
}

// TestImportLeftovers names the temporary files of an import that was
// stopped, in verify and in recover, which otherwise nothing reports.
func TestImportLeftovers(t *testing.T) {
	dir := t.TempDir()
	writeVerifyData(t, dir)
	temp := filepath.Join(dir, ".import-cache.arrow.tmp-123.partial")
	os.WriteFile(temp, []byte("half a file"), 0o644)

	var out, errOut bytes.Buffer
	if err := run(context.Background(), []string{"verify", "--data", dir}, &out, &errOut); err != nil {
		t.Fatalf("verify: %v\n%s", err, out.String())
	}
	if s := errOut.String(); !strings.Contains(s, "1 temporary files of an import stopped before it finished") || !strings.Contains(s, temp) {
		t.Errorf("verify's stderr %q does not name %s", s, temp)
	}
	out.Reset()
	if err := run(context.Background(), []string{"verify", "--data", dir, "--json"}, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `"import_leftovers"`) {
		t.Errorf("verify --json printed %q, without import_leftovers", out.String())
	}
	out.Reset()
	if err := run(context.Background(), []string{"recover", "--data", dir}, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	if s := out.String(); !strings.Contains(s, temp+": left by an import stopped before it finished") {
		t.Errorf("recover printed %q, not naming %s", s, temp)
	}
	if _, err := os.Stat(temp); err != nil {
		t.Errorf("recover removed %s: %v", temp, err)
	}
}
