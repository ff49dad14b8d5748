package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/augur-tuning/augur/collect"
)

// TestDeviceByName: --device takes a device's index, name or slug
// (any case) wherever augur runs OpenCL, and an unknown name is a usage
// error that lists the devices.
func TestDeviceByName(t *testing.T) {
	devs, err := collect.ListDevices()
	if err != nil || len(devs) == 0 {
		t.Skipf("no OpenCL device: %v", err)
	}
	d := devs[0]
	for _, arg := range []string{"0", d.Slug(), strings.ToUpper(d.Slug()), d.Name} {
		var out, errOut bytes.Buffer
		if err := run(context.Background(), []string{"devices", "--device", arg}, &out, &errOut); err != nil {
			t.Fatalf("--device %q: %v", arg, err)
		}
		if !strings.Contains(out.String(), d.Slug()) {
			t.Errorf("--device %q printed %q, want the row of %s", arg, out.String(), d.Slug())
		}
	}
	var out, errOut bytes.Buffer
	err = run(context.Background(), []string{"devices", "--device", "no-such-device"}, &out, &errOut)
	if err == nil || exitStatus(err) != exitUsage || !strings.Contains(errOut.String()+err.Error(), d.Slug()) {
		t.Errorf("unknown device: err %v (status %d), stderr %q; want a usage error listing %s", err, exitStatus(err), errOut.String(), d.Slug())
	}
}
