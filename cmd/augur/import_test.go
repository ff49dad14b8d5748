package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/augur-tuning/augur/collect/record"
)

const (
	t1Spec    = "../../collect/importer/testdata/convolution_milo.T1.json"
	t4Results = "../../collect/importer/testdata/convolution_milo_A4000.t4.json"
)

// TestImport runs the subcommand with flags before and after the file.
func TestImport(t *testing.T) {
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	args := []string{"import", "--from", "t4", "--kernel", "convolution", t4Results,
		"--out", out, "--spec", t1Spec, "--device", "NVIDIA RTX A4000", "--task-params", "filter_width,filter_height"}
	if err := run(context.Background(), args, &stdout, &stderr); err != nil {
		t.Fatalf("%v\nstderr: %s", err, stderr.String())
	}
	path := filepath.Join(out, "convolution", "nvidia-rtx-a4000", "import-convolution_milo_A4000.t4.arrow")
	if _, err := os.Stat(path); err != nil {
		t.Fatal(err)
	}
	if got := stdout.String(); !strings.Contains(got, path) || !strings.Contains(got, "ok 3") {
		t.Errorf("stdout %q does not report %s with 3 ok rows", got, path)
	}
	err := run(context.Background(), args, &stdout, &stderr)
	if err == nil || !strings.Contains(oneLine(err), path) {
		t.Errorf("second import: error %v, want one naming %s", err, path)
	}
}

func TestImportErrors(t *testing.T) {
	dir := t.TempDir()
	usage := []string{"import", "--kernel", "k", "--out", dir, "--spec", t1Spec}
	tests := []struct {
		args   []string
		want   string
		status int
	}{
		{[]string{"import", "--kernel", "k", "--out", dir, t4Results}, "--from is required", exitUsage},
		{[]string{"import", "--from", "t4", "--kernel", "k", "--out", dir}, "no input files", exitUsage},
		{[]string{"import", "--from", "t4", "--kernel", "k", "--out", dir, t4Results}, "--from t4 needs --device NAME", exitUsage},
		{[]string{"import", "--from", "csv", "--kernel", "k", "--out", dir, t4Results}, `--from must be kerneltuner or t4, got "csv"`, exitUsage},
		{append(usage, "--from", "kt", t4Results), `--from must be kerneltuner or t4, got "kt"`, exitUsage},
		{[]string{"import", "--from", "t4", t4Results, "--bogus"}, "flag provided but not defined", exitUsage},
		{[]string{"import", "--from", "t4", "--kernel", "k", "--out", dir, "--device", "x", "--platforms", filepath.Join(dir, "nope.csv"), t4Results}, "nope.csv", exitFailure},
		{[]string{"import", "--from", "t4", "--kernel", "k", "--out", dir, "--device", "x", "--set", "bz", t4Results}, `--set "bz", want name=integer`, exitUsage},
		{append(usage, "--from", "t4", "--device", "x", "--set", "use_cmem=x", t4Results), `--set "use_cmem=x", want name=integer`, exitUsage},
		{[]string{"import", "--from", "t4", "--kernel", "k", "--out", dir, "--device", "x", "--set", "bz=1", t4Results}, "--set needs --spec", exitUsage},
		{append(usage, "--from", "t4", "--device", "x", "--compression", "lz4", t4Results), `--compression must be zstd or none, got "lz4"`, exitUsage},
		{append(usage, "--from", "t4", "--device", "x", "--max-input-gib", "0", t4Results), "--max-input-gib must be >= 1", exitUsage},
		{append(usage, "--from", "t4", "--device", "x", "--task-params", "filter_width,", t4Results), "names an empty parameter", exitUsage},
		{[]string{"import", "--from", "t4", "--kernel", "../k", "--out", dir, "--device", "x", t4Results}, "--kernel must be a plain name", exitUsage},
		// Another tuner's kernel under a family's name would be read with
		// the family's shapes and derived features.
		{[]string{"import", "--from", "t4", "--kernel", "conv2d", "--out", dir, "--device", "x", t4Results}, "--kernel conv2d is one of augur's kernel families", exitUsage},
		// Mistakes that show only against the files: failures, naming
		// the flag.
		{append(usage, "--from", "t4", "--device", "x", "--task-params", "filter_size", t4Results), "TaskParams (--task-params) names", exitFailure},
		{append(usage, "--from", "t4", "--device", "x", "--task-params", "filter_width,filter_height", "--shape", "w=1", t4Results), "Shape (--shape)", exitFailure},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var out, errOut bytes.Buffer
			err := run(context.Background(), tt.args, &out, &errOut)
			if err == nil || !strings.Contains(oneLine(err), tt.want) || !strings.HasPrefix(oneLine(err), "import: ") {
				t.Errorf("error %v, want one starting with import: and mentioning %q", err, tt.want)
			}
			if got := exitStatus(err); got != tt.status {
				t.Errorf("exit status %d, want %d", got, tt.status)
			}
		})
	}
}

// TestImportPlatforms looks the device up in a table given with
// --platforms, case-insensitively, and stores its features.
func TestImportPlatforms(t *testing.T) {
	out := t.TempDir()
	table := filepath.Join(out, "devices.csv")
	os.WriteFile(table, []byte("name,vendor,platform_name,type,compute_units,clock_mhz,max_work_group_size,max_work_item_sizes,"+
		"local_mem_bytes,global_mem_bytes,constant_mem_bytes,global_cache_bytes,cache_line_bytes,image_support,source\n"+
		"Lab GPU,Lab,Lab CL,gpu,7,1000,512,512x512x64,32768,1073741824,65536,1048576,64,false,lab sheet\n"), 0o644)
	var stdout, stderr bytes.Buffer
	args := []string{"import", "--from", "t4", "--kernel", "convolution", t4Results, "--out", out, "--spec", t1Spec,
		"--device", "LAB GPU", "--platforms", table, "--task-params", "filter_width,filter_height"}
	if err := run(context.Background(), args, &stdout, &stderr); err != nil {
		t.Fatalf("%v\nstderr: %s", err, stderr.String())
	}
	meta, _, err := record.ReadFile(filepath.Join(out, "convolution", "lab-gpu", "import-convolution_milo_A4000.t4.arrow"))
	if err != nil {
		t.Fatal(err)
	}
	if meta.Platform.Name != "Lab GPU" || meta.Platform.ComputeUnits != 7 || meta.Platform.MaxWorkGroupSize != 512 {
		t.Errorf("platform %+v, want the table's Lab GPU", meta.Platform)
	}
}

func TestParseFiles(t *testing.T) {
	tests := []struct {
		args  []string
		files string
		out   string
	}{
		{[]string{"--out", "d", "a", "b"}, "a,b", "d"},
		{[]string{"a", "--out", "d", "b"}, "a,b", "d"},
		{[]string{"a", "b", "--out=d"}, "a,b", "d"},
		{[]string{"--out", "d", "--", "-a", "--out"}, "-a,--out", "d"},
		{[]string{"-", "--out", "d"}, "-", "d"},
	}
	for _, tt := range tests {
		fs := flags("import", "", &bytes.Buffer{})
		out := fs.String("out", "", "")
		files, err := parseFiles(fs, tt.args, io.Discard)
		if err != nil || strings.Join(files, ",") != tt.files || *out != tt.out {
			t.Errorf("parseFiles(%q) = %q, --out %q, %v; want %q, %q", tt.args, files, *out, err, tt.files, tt.out)
		}
	}
}

// TestImportShape gives a T4 file its shape and prints it in the summary.
func TestImportShape(t *testing.T) {
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	args := []string{"import", "--from", "t4", "--kernel", "convolution", t4Results, "--out", out, "--spec", t1Spec,
		"--device", "NVIDIA RTX A4000", "--task-params", "filter_width,filter_height", "--shape", "width=1024,height=768"}
	if err := run(context.Background(), args, &stdout, &stderr); err != nil {
		t.Fatalf("%v\nstderr: %s", err, stderr.String())
	}
	if want := "shape width=1024,height=768,filter_width=15,filter_height=15 (given)"; !strings.Contains(stdout.String(), want) {
		t.Errorf("stdout %q lacks %q", stdout.String(), want)
	}
}
