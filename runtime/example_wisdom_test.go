package runtime_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/runtime"
)

// A library that may measure a few configurations at a shape's first call
// asks for the model's best candidates, times each once and keeps the
// winner.
func ExampleChooser_Candidates() {
	data, err := os.ReadFile("../testdata/conv2d-pocl.augur")
	if err != nil {
		panic(err)
	}
	chooser, err := runtime.New(data, runtime.Options{})
	if err != nil {
		panic(err)
	}
	shape := features.Task{1920, 1080, 5, 5}
	cands, err := chooser.Candidates(shape, 3)
	if err != nil {
		panic(err)
	}
	pick, _ := chooser.Choose(shape)
	fmt.Println(len(cands), "candidates; the first is Choose's pick:", cands[0].Config.Equal(pick))
	for _, c := range cands {
		// Build with c.Plan.BuildOptions, launch over c.Plan.Global and
		// c.Plan.Local, and time it.
		fmt.Println(c.Source, c.Plan.Dims)
	}
	// Output:
	// 3 candidates; the first is Choose's pick: true
	// model:pocl-cpu-pthread-skylake-avx512-amd-epyc 2
	// model:pocl-cpu-pthread-skylake-avx512-amd-epyc 2
	// model:pocl-cpu-pthread-skylake-avx512-amd-epyc 2
}

// A wisdom file keeps what was measured, for one kernel version and
// device: a Chooser given it answers a measured shape with the fastest
// configuration recorded, here and in every later process.
func ExampleWisdom() {
	data, err := os.ReadFile("../testdata/conv2d-pocl.augur")
	if err != nil {
		panic(err)
	}
	dir, err := os.MkdirTemp("", "wisdom")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	b, err := features.ReadBundle(data)
	if err != nil {
		panic(err)
	}
	wisdom, err := runtime.OpenWisdom(filepath.Join(dir, "conv2d.wisdom"),
		runtime.WisdomOptions{KernelVersion: b.KernelVersion, Device: "my-gpu", Warn: os.Stderr})
	if err != nil {
		panic(err)
	}
	defer wisdom.Close()
	chooser, err := runtime.FromBundle(b, runtime.Options{Wisdom: wisdom})
	if err != nil {
		panic(err)
	}
	shape := features.Task{1920, 1080, 5, 5}
	cands, err := chooser.Candidates(shape, 3)
	if err != nil {
		panic(err)
	}
	for i, c := range cands {
		timeNs := []float64{5.1e6, 4.2e6, 4.8e6}[i] // as measured
		if err := wisdom.Record(shape, c.Config, timeNs); err != nil {
			panic(err)
		}
	}
	p, _ := chooser.ChoosePick(shape)
	fmt.Println(p.Source, "second candidate:", p.Config.Equal(cands[1].Config))
	_, ns, _ := wisdom.Best(shape)
	fmt.Println(len(wisdom.Records()), "records; best", ns, "ns")
	// Output:
	// wisdom second candidate: true
	// 3 records; best 4.2e+06 ns
}
