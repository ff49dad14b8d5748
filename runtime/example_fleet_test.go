package runtime_test

import (
	"fmt"
	"os"

	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/runtime"
)

// A fleet bundle holds a model per measured device and a fleet model whose
// inputs include the platform features. A library gives the runtime the
// device's features as collect queries them (opencl Device.Platform); a
// device the bundle measured gets its own model. Any other device gets
// another device's best measured configuration of the nearest shape, from
// the device whose copies the fleet model predicts fastest on it over
// every measured shape, unless the bundle's
// leave-one-device-out chose the fleet model's search (Bundle.Unseen;
// this bundle predates it); Options.Unseen forces either.
func Example_fleet() {
	data, err := os.ReadFile("../testdata/conv2d-fleet.augur")
	if err != nil {
		panic(err)
	}
	b, err := features.ReadBundle(data)
	if err != nil {
		panic(err)
	}
	var h100 features.Platform
	for _, m := range b.Models {
		if m.Name == "nvidia-h100-80gb-hbm3" {
			h100 = *m.Platform
		}
	}
	// A device the bundle never measured: an RTX A6000's queried features.
	a6000 := features.Platform{PlatformName: "NVIDIA CUDA", Vendor: "NVIDIA Corporation", Name: "NVIDIA RTX A6000",
		Type: "gpu", ComputeUnits: 84, ClockMHz: 1800, MaxWorkGroupSize: 1024, MaxWorkItemSizes: [3]int{1024, 1024, 64},
		LocalMemBytes: 48 << 10, GlobalMemBytes: 48 << 30, ConstantMemBytes: 64 << 10, GlobalCacheBytes: 84 * 128 << 10,
		CacheLineBytes: 128, ImageSupport: true}
	shape := features.Task{1920, 1080, 5, 5}
	for _, p := range []features.Platform{h100, a6000} {
		ch, err := runtime.New(data, runtime.Options{Platform: &p})
		if err != nil {
			panic(err)
		}
		pick, err := ch.ChoosePick(shape)
		if err != nil {
			panic(err)
		}
		fmt.Printf("%s: %s, valid %v\n", p.Name, pick.Source, ch.Space().Valid(pick.Config))
	}
	ch, err := runtime.New(data, runtime.Options{Platform: &a6000, Unseen: features.UnseenFleet})
	if err != nil {
		panic(err)
	}
	pick, err := ch.ChoosePick(shape)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s, fleet forced: %s\n", a6000.Name, pick.Source)
	// Output:
	// NVIDIA H100 80GB HBM3: model:nvidia-h100-80gb-hbm3, valid true
	// NVIDIA RTX A6000: copy:nvidia-h100-80gb-hbm3, valid true
	// NVIDIA RTX A6000, fleet forced: fleet
}
