package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
)

func TestEvalTable3(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string // in the text, or in the error when fail
		fail bool
	}{
		{"text", []string{"--kernel", "conv2d", "--table3"}, "compile time (s)", false},
		{"small sample", []string{"--kernel", "conv2d", "--table3", "--random", "5"}, "random sampling of 5 configurations", false},
		{"no roles", []string{"--kernel", "median", "--table3"}, "stencil and conv2d only, not median", true},
		{"negative sample", []string{"--kernel", "conv2d", "--table3", "--random", "-1"}, "RandomSample", true},
		{"held technique", []string{"--kernel", "conv2d", "--table3", "--technique", "2"}, "heuristics hold LS at 2 on every shape", false},
		{"technique not a value", []string{"--kernel", "conv2d", "--table3", "--technique", "local"}, "--technique must be best or an integer", true},
		{"technique out of range", []string{"--kernel", "conv2d", "--table3", "--technique", "9"}, "LS=9", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			err := run(context.Background(), append([]string{"eval", "--data", "../../testdata/pocl"}, tc.args...), &out, &errOut)
			if tc.fail {
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("error = %v, want one with %q", err, tc.want)
				}
				return
			}
			if err != nil || !strings.Contains(out.String(), tc.want) {
				t.Errorf("error %v, output %q; want it to mention %q", err, out.String(), tc.want)
			}
		})
	}
	var out bytes.Buffer
	if err := run(context.Background(), []string{"eval", "--data", "../../testdata/pocl", "--kernel", "conv2d", "--table3", "--json"}, &out, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Devices []struct {
			Rows []struct {
				Strategy  string  `json:"strategy"`
				Speedup   float64 `json:"speedup"`
				BestCount *int    `json:"best_count"`
			} `json:"rows"`
		} `json:"devices"`
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil || len(rep.Devices) != 1 || len(rep.Devices[0].Rows) != 7 || rep.Devices[0].Rows[0].BestCount == nil {
		t.Errorf("--json: %v, %+v; want one object, one device of 7 rows with best counts", err, rep)
	}
}

// TestEvalTable3Classifier replays Table 3 on the Xeon's whole stencil
// spaces with the technique from a classifier trained on the device's
// other kernels: global_vec is fastest on all six, so every heuristic
// must hold it.
func TestEvalTable3Classifier(t *testing.T) {
	data := "../../testdata/stencil-xeon-full"
	var out bytes.Buffer
	args := []string{"eval", "--data", data, "--kernel", "stencil", "--table3", "--classifier", data, "--json"}
	if err := run(context.Background(), args, &out, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	var rep struct {
		TechniqueBy string `json:"technique_by"`
		Devices     []struct {
			Shapes []struct {
				Shape      string         `json:"shape"`
				Techniques map[string]int `json:"techniques"`
			} `json:"shapes"`
		} `json:"devices"`
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(rep.TechniqueBy, "forest classifier") || len(rep.Devices) != 1 || len(rep.Devices[0].Shapes) != 6 {
		t.Fatalf("report %+v, want the classifier's picks on six shapes", rep)
	}
	for _, s := range rep.Devices[0].Shapes {
		for h, v := range s.Techniques {
			if v != 1 {
				t.Errorf("%s: %s holds technique %d, want 1 (global_vec)", s.Shape, h, v)
			}
		}
	}
	err := run(context.Background(), []string{"eval", "--data", data, "--kernel", "stencil", "--table3", "--classifier", t.TempDir()}, &bytes.Buffer{}, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "no dataset files") {
		t.Errorf("--classifier of an empty directory: error %v, want one saying it holds no data", err)
	}
}
