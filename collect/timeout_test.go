package collect

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/augur-tuning/augur/collect/record"
	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/features"
)

// spinSource spins SPIN iterations a work-item before it writes its
// output, so that one configuration outlasts a short timeout.
const spinSource = `
__kernel void spin(__global const float *in, __global float *out, int n) {
	int i = get_global_id(0);
	float x = in[i % n];
	for (long k = 0; k < SPIN; k++) {
		x = x * 0.999999f + 0.000001f;
	}
	if (i < n) {
		out[i] = 2.0f * in[i] + (x > 1e30f ? 1.0f : 0.0f);
	}
}
`

func spinKernel(t testing.TB) *datasets.Kernel {
	t.Helper()
	space, err := features.NewSpace([]features.Param{
		{Name: "WG", Values: []int{16, 32}},
		{Name: "SPIN", Values: []int{1, 10000000}},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return datasets.Define(datasets.Kernel{
		Name: "spin", Source: spinSource, Entry: "spin", Space: space,
		TaskNames: []string{"n"}, Tasks: []features.Task{{256}, {512}},
		Reference: features.Config{16, 1}, Tolerance: 1e-6,
	}, datasets.Funcs{
		Options: func(_ features.Task, c features.Config) string {
			return fmt.Sprintf("-D WG=%d -D SPIN=%d", c[0], c[1])
		},
		Geometry: func(t features.Task, c features.Config) (datasets.Launch, error) {
			return datasets.Launch{Dims: 1, Global: [3]int{t[0], 1, 1}, Local: [3]int{c[0], 1, 1}}, nil
		},
		Args: func(t features.Task, rng *rand.Rand) []datasets.Arg {
			in := make([]float32, t[0])
			for i := range in {
				in[i] = rng.Float32()
			}
			return []datasets.Arg{
				{Name: "in", Kind: datasets.Input, Data: in},
				{Name: "out", Kind: datasets.Output, Len: t[0]},
				{Name: "n", Kind: datasets.Int32, Int: int32(t[0])},
			}
		},
		Want: func(_ features.Task, args []datasets.Arg) []float32 {
			out := make([]float32, len(args[0].Data))
			for i, v := range args[0].Data {
				out[i] = 2 * v
			}
			return out
		},
	})
}

// TestRunTimeout times configurations that outlast the timeout: each is a
// timeout row, the session is replaced while the abandoned kernel may still
// run, and the configurations after it are measured in the new session.
// The timeout, 500 ms, lies far from both kinds of run: a plain one takes
// under a millisecond on PoCL, a spinning one seconds (20 ms was too close
// on a machine loaded by the other packages' tests).
func TestRunTimeout(t *testing.T) {
	skipWithoutDevice(t)
	k := spinKernel(t)
	// The fast configurations first, without the tight timeout: PoCL builds
	// a kernel for each work-group size at its first launch, which on a
	// cold cache and a busy 2-core machine can itself take 500 ms. The
	// run below then finds them in PoCL's cache and times only the runs.
	if _, err := Run(context.Background(), k, t.TempDir(), Options{Sample: "all", Where: "SPIN == 1", Repeats: 1, Workers: 1, NoBench: true, Timeout: 30 * time.Second}); err != nil {
		t.Fatal(err)
	}
	sum, err := Run(context.Background(), k, t.TempDir(), Options{Sample: "all", Repeats: 2, Workers: 1, NoBench: true, Timeout: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	_, rows, err := record.ReadFile(sum.Path)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		want := record.StatusOK
		if r.Config[1] > 1 {
			want = record.StatusTimeout
		}
		if r.Status != want {
			t.Errorf("task %v config %v: status %s (%s), want %s", r.Task, r.Config, r.Status, r.Error, want)
		}
	}
	if len(rows) != len(k.Tasks)*k.Space.Len() {
		t.Errorf("%d rows, want %d", len(rows), len(k.Tasks)*k.Space.Len())
	}
}
