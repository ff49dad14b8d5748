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
	// The H100's figures are measured: below its datasheet's peaks.
	if h100.GlobalBandwidthGBs >= 3350 || h100.FP32GFLOPs >= 67000 || h100.LaunchOverheadUs <= 0 {
		t.Errorf("H100 measured columns = %+v, want measured figures below the datasheet's 3350 GB/s and 67000 GFLOP/s, and a launch overhead", h100)
	}
	for i, p := range tab.Devices {
		if p.GlobalBandwidthGBs <= 0 || p.FP32GFLOPs <= 0 {
			t.Errorf("%s: global_bw_gbs %g, fp32_gflops %g; want every device's specification", p.Name, p.GlobalBandwidthGBs, p.FP32GFLOPs)
		}
		if !strings.Contains(tab.Sources[i], "global_bw_gbs") {
			t.Errorf("%s: source %q does not say where the measured columns come from", p.Name, tab.Sources[i])
		}
	}
	if len(tab.Sources) != len(tab.Devices) {
		t.Errorf("%d sources for %d devices", len(tab.Sources), len(tab.Devices))
	}
}

// TestReadDevicesMeasured reads the measured columns, an empty cell as 0,
// and a table written before they existed.
func TestReadDevicesMeasured(t *testing.T) {
	head := strings.Join(deviceColumns, ",") + "\n"
	legacy := strings.Join(legacyColumns, ",") + "\n"
	tests := []struct {
		name, in string
		want     [4]float64
	}{
		{"all", head + "X,v,p,gpu,1,1,1,1x1x1,1,1,1,1,1,true,900,19500,9000,4.5,spec\n", [4]float64{900, 19500, 9000, 4.5}},
		{"empty cells", head + "X,v,p,gpu,1,1,1,1x1x1,1,1,1,1,1,true,900,, ,,spec\n", [4]float64{900, 0, 0, 0}},
		{"legacy table", legacy + "X,v,p,gpu,1,1,1,1x1x1,1,1,1,1,1,true,spec\n", [4]float64{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tab, err := ReadDevices(strings.NewReader(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			p := tab.Devices[0]
			got := [4]float64{p.GlobalBandwidthGBs, p.FP32GFLOPs, p.LocalBandwidthGBs, p.LaunchOverheadUs}
			if got != tt.want || tab.Sources[0] != "spec" || p.ComputeUnits != 1 {
				t.Errorf("got %v (source %q, %d compute units), want %v (source spec, 1)", got, tab.Sources[0], p.ComputeUnits, tt.want)
			}
		})
	}
}

func TestDevicesErrors(t *testing.T) {
	head := strings.Join(deviceColumns, ",") + "\n"
	row := "X,v,p,gpu,1,1,1,1x1x1,1,1,1,1,1,true,10,,2.5,,spec\n"
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
		{"measured", head + strings.Replace(row, ",10,", ",fast,", 1), `global_bw_gbs is "fast"`},
		{"measured negative", head + strings.Replace(row, ",2.5,", ",-2.5,", 1), `local_bw_gbs is "-2.5"`},
		{"measured infinite", head + strings.Replace(row, ",10,", ",+Inf,", 1), `global_bw_gbs is "+Inf"`},
		{"header short", "name,vendor\n" + row, "2 columns, want the 19"},
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
	f.Add([]byte(strings.Join(deviceColumns, ",") + "\nGPU X,V,P,gpu,8,1000,256,256x256x64,32768,1073741824,65536,0,64,true,900,,1e4,5,spec\n"))
	f.Add([]byte(strings.Join(legacyColumns, ",") + "\nGPU X,V,P,gpu,8,1000,256,256x256x64,32768,1073741824,65536,0,64,true,spec\n"))
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
