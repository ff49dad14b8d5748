package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/augur-tuning/augur/collect"
)

func TestDevicesBenchJSON(t *testing.T) {
	if testing.Short() {
		t.Skip("the benchmarks take a few seconds")
	}
	if _, err := collect.ListDevices(); err != nil {
		t.Skipf("no OpenCL device: %v", err)
	}
	var out, errOut bytes.Buffer
	if err := run(context.Background(), []string{"devices", "--bench", "--device", "0", "--json"}, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	var got []map[string]any
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("output %q: %v", out.String(), err)
	}
	if len(got) != 1 {
		t.Fatalf("got %d devices, want 1 (--device 0)", len(got))
	}
	for _, name := range []string{"name", "global_bandwidth_gbs", "fp32_gflops", "local_bandwidth_gbs", "launch_overhead_us"} {
		if v, ok := got[0][name]; !ok || v == 0.0 {
			t.Errorf("%s = %v, want a value (stderr %q)", name, v, errOut.String())
		}
	}
}

func TestDevicesErrors(t *testing.T) {
	if _, err := collect.ListDevices(); err != nil {
		t.Skipf("no OpenCL device: %v", err)
	}
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"devices", "--device", "99"}, "--device 99: no such device"},
		{[]string{"devices", "--device", "-2"}, "--device -2: no such device"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var out, errOut bytes.Buffer
			err := run(context.Background(), tt.args, &out, &errOut)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %v, want one mentioning %q", err, tt.want)
			}
		})
	}
}
