package importer_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/augur-tuning/augur/collect/importer"
	"github.com/augur-tuning/augur/collect/record"
)

func ExampleTranslatePython() {
	e, err := importer.TranslatePython("use_padding==0 or (262144 // block_size_x) % 32 != 0")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(e)
	// Output:
	// use_padding == 0 or int(floor(262144 / block_size_x)) % 32 != 0
}

// A live Kernel Tuner cache file lacks its closing braces; the reader
// completes it.
func ExampleReadKernelTuner() {
	live := `{"device_name": "NVIDIA RTX A4000", "problem_size": [64, 64],
"tune_params_keys": ["bx"], "tune_params": {"bx": [16, 32]},
"cache": {
"16": {"bx": 16, "time": 1.5, "times": [1.4, 1.5, 1.6]},
"32": {"bx": 32, "time": "RuntimeFailedConfig"},`
	res, err := importer.ReadKernelTuner(strings.NewReader(live))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, m := range res.Measurements {
		fmt.Println(m.Config, m.Status, m.TimesMs)
	}
	// Output:
	// [16] ok [1.4 1.5 1.6]
	// [32] launch_error []
}

func ExampleImport() {
	dir, err := os.MkdirTemp("", "augur-import")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	in := filepath.Join(dir, "scale_A4000.json")
	os.WriteFile(in, []byte(`{"device_name": "NVIDIA RTX A4000", "problem_size": 1024,
"tune_params_keys": ["wg"], "tune_params": {"wg": [32, 64, 128]},
"cache": {
"32": {"wg": 32, "time": 2.0333335, "times": [2.1, 2.0000004, 2]},
"64": {"wg": 64, "time": 1, "times": [1, 1, 1]},
"128": {"wg": 128, "time": "CompilationFailedConfig"}}}`), 0o644)

	sum, err := importer.Import(context.Background(), importer.Options{From: importer.FromKernelTuner, Files: []string{in},
		Kernel: "scale", Out: filepath.Join(dir, "data")})
	if err != nil {
		fmt.Println(err)
		return
	}
	f := sum.Files[0]
	rel, _ := filepath.Rel(dir, f.Path)
	fmt.Println(filepath.ToSlash(rel))
	fmt.Println(f.Counts, "reference", f.Reference, "best", f.Best)

	// Rows keep the tuner's runs, in whole nanoseconds; the row's
	// median and minimum are theirs.
	_, rows, err := record.ReadFileWith(f.Path, record.ReadOptions{Runs: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range rows {
		fmt.Printf("%v %v %s time_ns=%.0f runs=%v log_speedup=%.3f\n", r.Task, r.Config, r.Status, r.TimeNs, r.Runs, r.LogSpeedup)
	}
	// Output:
	// data/scale/nvidia-rtx-a4000/import-scale_A4000.arrow
	// map[compile_error:1 ok:2] reference wg=32 best wg=64
	// [1024] [32] ok time_ns=2000000 runs=[2100000 2000000 2000000] log_speedup=0.000
	// [1024] [64] ok time_ns=1000000 runs=[1000000 1000000 1000000] log_speedup=0.693
	// [1024] [128] compile_error time_ns=0 runs=[] log_speedup=NaN
}
