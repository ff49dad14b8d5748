package runtime_test

import (
	"fmt"
	"os"

	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/runtime"
)

func Example() {
	// A library would go:embed the bundle instead.
	data, err := os.ReadFile("../testdata/conv2d-pocl.augur")
	if err != nil {
		panic(err)
	}
	chooser, err := runtime.New(data, runtime.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Println(chooser.TaskNames())
	cfg, err := chooser.Choose(features.Task{1024, 768, 5, 5})
	if err != nil {
		panic(err)
	}
	fmt.Println(len(cfg) == len(chooser.Space().Params), chooser.Space().Valid(cfg))
	// Output:
	// [width height filter_w filter_h]
	// true true
}
