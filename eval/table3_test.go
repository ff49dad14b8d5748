package eval

import (
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/augur-tuning/augur/datasets"
	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/search"
)

func conv2dTable3(t *testing.T, dir string, opt Table3Options) (rep *Table3Report) {
	return table3Of(t, "conv2d", dir, opt)
}

func table3Of(t *testing.T, kernel, dir string, opt Table3Options) (rep *Table3Report) {
	t.Helper()
	roles, err := KernelRoles(kernel)
	if err != nil {
		t.Fatal(err)
	}
	opt.Kernel, opt.Technique, opt.Dims = kernel, roles.Technique, roles.Dims
	rep, err = Table3(dir, opt)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// rowsByName indexes a device's rows by group and strategy.
func rowsByName(d Table3Device) map[string]Table3Row {
	out := map[string]Table3Row{}
	for _, r := range d.Rows {
		out[r.Group+" "+r.Strategy] = r
	}
	return out
}

// TestTable3Invariants checks, on real recorded data, what holds by
// construction: random sampling is the unit of speedup, an oracle visits a
// superset of its heuristic's configurations and so finds at least as
// fast a one, as often the best; a full-space recording leaves nothing
// unrecorded, a sampled one does.
func TestTable3Invariants(t *testing.T) {
	for _, tc := range []struct {
		kernel, dir string
		kernels     int
		sampled     bool
	}{
		{"conv2d", "../testdata/h200", 6, false},
		{"conv2d", "../testdata/pocl", 2, false},
		{"conv2d", "../testdata/h200-train", 21, true},
		// 12 configurations measured a kernel: most heuristics find
		// none, and count at the reference's time.
		{"stencil", "../testdata/stencil-pocl", 104, true},
	} {
		t.Run(tc.dir, func(t *testing.T) {
			rep := table3Of(t, tc.kernel, tc.dir, Table3Options{Seed: 1})
			if len(rep.Devices) != 1 || rep.Devices[0].Kernels != tc.kernels || len(rep.Devices[0].Rows) != 7 {
				t.Fatalf("devices %+v, want one of %d kernels and 7 rows", rep.Devices, tc.kernels)
			}
			rows := rowsByName(rep.Devices[0])
			if r := rows["baseline random"]; r.Speedup != 1 || r.Unrecorded != 0 || r.Configs == 0 {
				t.Errorf("random = %+v, want speedup 1, configurations, none unrecorded", r)
			}
			var heurUnrecorded float64
			for _, h := range []string{"dimensions", "optimizations", "hybrid"} {
				o, hr := rows["oracle "+h], rows["heuristic "+h]
				if !(o.Speedup >= hr.Speedup && o.BestCount >= hr.BestCount && o.Configs >= hr.Configs &&
					o.CompileS >= hr.CompileS && o.RunS >= hr.RunS && o.Failed <= hr.Failed) || !(hr.Speedup > 0) {
					t.Errorf("%s: oracle %+v, heuristic %+v; want the oracle at least as good and as costly", h, o, hr)
				}
				heurUnrecorded += hr.Unrecorded
			}
			if (heurUnrecorded > 0) != tc.sampled {
				t.Errorf("heuristics visited %.1f unrecorded configurations a kernel; sampled data: %v", heurUnrecorded, tc.sampled)
			}
			// The best counts agree with the per-shape best times.
			dev := rep.Devices[0]
			counts := make([]int, len(dev.Rows))
			for _, sh := range dev.Shapes {
				best := math.Inf(1)
				for _, ns := range sh.BestNs {
					if ns > 0 {
						best = min(best, ns)
					}
				}
				for i, ns := range sh.BestNs {
					if ns == best {
						counts[i]++
					}
				}
				if len(sh.Techniques) != 3 {
					t.Errorf("%s: techniques %v, want one for each heuristic", sh.Shape, sh.Techniques)
				}
			}
			for i, r := range dev.Rows {
				if r.BestCount != counts[i] {
					t.Errorf("%s %s: best count %d, per-shape times say %d", r.Group, r.Strategy, r.BestCount, counts[i])
				}
			}
			if len(dev.Shapes) != tc.kernels || slices.Max(counts) == 0 {
				t.Errorf("%d shapes, best counts %v; want %d shapes and some best", len(dev.Shapes), counts, tc.kernels)
			}
		})
	}
}

// TestTable3Classifier checks that the classifier's pick is what the
// heuristics hold, and that the random sample's size is honoured.
func TestTable3Classifier(t *testing.T) {
	var calls int
	pick := ClassifierFunc(func(h string, p features.Platform, task features.Task) (int, error) {
		calls++
		return 2, nil
	})
	rep := conv2dTable3(t, "../testdata/pocl", Table3Options{Classifier: pick, RandomSample: 10})
	if calls != 2*3 || rep.TechniqueBy != "the classifier's pick" {
		t.Errorf("classifier called %d times (%s), want once per kernel and heuristic, 6", calls, rep.TechniqueBy)
	}
	rows := rowsByName(rep.Devices[0])
	if r := rows["baseline random"]; r.Configs > 10 {
		t.Errorf("random sampling compiled %.0f configurations a kernel, want at most 10", r.Configs)
	}
	// A fixed technique changes what the heuristics visit, not the
	// oracles.
	def := rowsByName(conv2dTable3(t, "../testdata/pocl", Table3Options{RandomSample: 10}).Devices[0])
	if rows["oracle hybrid"] != def["oracle hybrid"] {
		t.Errorf("oracle hybrid: %+v with a classifier, %+v without; want the same", rows["oracle hybrid"], def["oracle hybrid"])
	}
}

func TestTable3Errors(t *testing.T) {
	roles, _ := KernelRoles("conv2d")
	bad := errors.New("no model")
	for _, tc := range []struct {
		name string
		dir  string
		opt  Table3Options
		want string
	}{
		{"no kernel", "../testdata/pocl", Table3Options{}, "Kernel is empty"},
		{"negative sample", "../testdata/pocl", Table3Options{Kernel: "conv2d", RandomSample: -1}, "RandomSample"},
		{"no data", t.TempDir(), Table3Options{Kernel: "conv2d"}, "no dataset files"},
		{"unknown technique", "../testdata/pocl", Table3Options{Kernel: "conv2d", Technique: "loads", Dims: roles.Dims}, `technique "loads"`},
		{"unknown role", "../testdata/pocl", Table3Options{Kernel: "conv2d", Dims: search.Dims{WorkGroup: []string{"WX"}}}, `"WX"`},
		{"classifier error", "../testdata/pocl", Table3Options{Kernel: "conv2d", Technique: "LS", Dims: roles.Dims,
			Classifier: ClassifierFunc(func(string, features.Platform, features.Task) (int, error) { return 0, bad })}, "no model"},
		{"classifier out of range", "../testdata/pocl", Table3Options{Kernel: "conv2d", Technique: "LS", Dims: roles.Dims,
			Classifier: ClassifierFunc(func(string, features.Platform, features.Task) (int, error) { return 7, nil })}, "LS=7"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Table3(tc.dir, tc.opt)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "eval: ") {
				t.Errorf("error = %v, want one with %q", err, tc.want)
			}
		})
	}
}

// TestTable3Output checks that the report has the paper's groups and
// heuristics, and that its JSON round-trips with every row.
func TestTable3Output(t *testing.T) {
	rep := conv2dTable3(t, "../testdata/pocl", Table3Options{})
	groups, names := map[string]bool{}, map[string]bool{}
	for _, row := range rep.Devices[0].Rows {
		groups[row.Group], names[row.Strategy] = true, true
	}
	for _, want := range []string{"baseline", "oracle", "heuristic"} {
		if !groups[want] {
			t.Errorf("no %s row in %+v", want, rep.Devices[0].Rows)
		}
	}
	if !names["hybrid"] {
		t.Errorf("no hybrid row in %+v", rep.Devices[0].Rows)
	}
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var back Table3Report
	if err := json.Unmarshal(b, &back); err != nil || len(back.Devices) != 1 || len(back.Devices[0].Rows) != 7 {
		t.Errorf("JSON round trip: %v, %+v", err, back)
	}
}

func TestKernelRoles(t *testing.T) {
	for _, tc := range []struct {
		kernel string
		err    error
	}{{"conv2d", nil}, {"stencil", nil}, {"median", ErrNoRoles}} {
		r, err := KernelRoles(tc.kernel)
		if !errors.Is(err, tc.err) {
			t.Errorf("KernelRoles(%q) error = %v, want %v", tc.kernel, err, tc.err)
		}
		if err != nil {
			continue
		}
		// The roles name parameters of the family's space.
		k, err := datasets.Lookup(tc.kernel)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := PaperHeuristics(k.Space, r.Dims); err != nil || k.Space.Param(r.Technique) < 0 {
			t.Errorf("%s: roles %+v do not fit the space: %v", tc.kernel, r, err)
		}
	}
}
