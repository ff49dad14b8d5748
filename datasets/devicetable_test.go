package datasets

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// TestDevices checks the shipped table: every device the fleet work names
// is there, with the values collect recorded for the H100 and H200.
func TestDevices(t *testing.T) {
	tab := Devices()
	for _, name := range []string{"NVIDIA RTX A4000", "AMD Radeon PRO W6600", "NVIDIA A100-PCIE-40GB", "NVIDIA RTX A6000",
		"AMD Instinct MI250X", "AMD Radeon PRO W7800", "NVIDIA H100 80GB HBM3", "NVIDIA H200"} {
		p, err := tab.Lookup(strings.ToUpper(name))
		if err != nil {
			t.Errorf("Lookup(%q): %v", name, err)
			continue
		}
		if p.Name != name || p.ComputeUnits <= 0 || p.ClockMHz <= 0 || p.GlobalMemBytes <= 0 || p.Type != "gpu" {
			t.Errorf("Lookup(%q) = %+v", name, p)
		}
	}
	h100, _ := tab.Lookup("nvidia-h100-80gb-hbm3")
	if h100.ComputeUnits != 132 || h100.GlobalMemBytes != 85017493504 || h100.GlobalCacheBytes != 4325376 {
		t.Errorf("H100 by slug = %+v, want collect's recorded values", h100)
	}
	if len(tab.Sources) != len(tab.Devices) {
		t.Errorf("%d sources for %d devices", len(tab.Sources), len(tab.Devices))
	}
}

func TestDevicesErrors(t *testing.T) {
	head := strings.Join(deviceColumns, ",") + "\n"
	row := "X,v,p,gpu,1,1,1,1x1x1,1,1,1,1,1,true,spec\n"
	for _, tc := range []struct{ name, in, want string }{
		{"empty", "", "device table"},
		{"header", strings.Replace(head, "clock_mhz", "clock", 1) + row, `column 6 is "clock"`},
		{"no rows", head, "no rows"},
		{"negative", head + strings.Replace(row, "gpu,1,", "gpu,-1,", 1), "line 2: X: compute_units"},
		{"type", head + strings.Replace(row, "gpu", "fpga", 1), `type "fpga"`},
		{"sizes", head + strings.Replace(row, "1x1x1", "1x1", 1), "max_work_item_sizes"},
		{"bool", head + strings.Replace(row, "true", "yes", 1), "image_support"},
		{"source", head + strings.Replace(row, ",spec", ",", 1), "source is empty"},
		{"twice", head + row + strings.Replace(row, "X", "x", 1), "appears twice"},
		{"columns", head + "X,v\n", "wrong number of fields"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadDevices(strings.NewReader(tc.in))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want one containing %q", err, tc.want)
			}
		})
	}
	_, err := Devices().Lookup("GeForce 256")
	if !errors.Is(err, ErrUnknownDevice) || !strings.Contains(err.Error(), "NVIDIA RTX A4000") {
		t.Errorf("Lookup of an unknown device: %v, want ErrUnknownDevice listing the names", err)
	}
}

// FuzzReadDevices feeds arbitrary bytes to ReadDevices: an error or a
// table, never a panic, and every name of a table it returns looks up.
func FuzzReadDevices(f *testing.F) {
	f.Add([]byte(strings.Join(deviceColumns, ",") + "\nGPU X,V,P,gpu,8,1000,256,256x256x64,32768,1073741824,65536,0,64,true,spec\n"))
	f.Add([]byte("name\n"))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, data []byte) {
		tab, err := ReadDevices(bytes.NewReader(data))
		if err != nil {
			return
		}
		for _, n := range tab.Names() {
			if _, err := tab.Lookup(n); err != nil {
				t.Errorf("Lookup(%q) of a listed name: %v", n, err)
			}
		}
	})
}
