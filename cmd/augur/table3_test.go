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
		{"no roles", []string{"--kernel", "median", "--table3"}, `no roles for the grouped heuristics: "median"`, true},
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
