package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/augur-tuning/augur/collect"
)

// TestKernelsDevice checks the device-limit report on the first device:
// every kernel's valid configurations are either runnable or pruned for a
// reason, and gemm's space is CLTune's.
func TestKernelsDevice(t *testing.T) {
	var out, errOut bytes.Buffer
	if err := run(context.Background(), []string{"kernels", "--device", "1000"}, &out, &errOut); err == nil || !strings.Contains(err.Error(), "--device") {
		t.Errorf("kernels --device 1000: got %v, want an error naming --device", err)
	}
	if devs, err := collect.ListDevices(); err != nil || len(devs) == 0 {
		t.Skipf("no OpenCL device: %v", err)
	}
	out.Reset()
	if err := run(context.Background(), []string{"kernels", "--device", "0", "--json"}, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	var rows []struct {
		Name      string         `json:"name"`
		RawSize   int            `json:"raw_size"`
		ValidSize int            `json:"valid_size"`
		Runnable  *int           `json:"runnable"`
		Pruned    map[string]int `json:"pruned"`
	}
	if err := json.Unmarshal(out.Bytes(), &rows); err != nil {
		t.Fatalf("output %q: %v", out.String(), err)
	}
	gemm := false
	for _, r := range rows {
		if r.Runnable == nil {
			t.Errorf("%s: no device count", r.Name)
			continue
		}
		n := *r.Runnable
		for _, v := range r.Pruned {
			n += v
		}
		if n != r.ValidSize {
			t.Errorf("%s: %d runnable and %v pruned, want %d in all", r.Name, *r.Runnable, r.Pruned, r.ValidSize)
		}
		if r.Name == "gemm" {
			gemm = r.RawSize == 1327104 && r.ValidSize == 241600
		}
	}
	if !gemm {
		t.Errorf("kernels --device 0 --json: no gemm row with CLTune's 1327104 raw and 241600 valid configurations:\n%s", out.String())
	}
}
