package datasets

import (
	_ "embed"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/augur-tuning/augur/features"
)

//go:embed devices.csv
var devicesCSV string

// ErrUnknownDevice is returned by DeviceTable.Lookup for a name that is not
// in the table. (It lives here rather than in errors.go, which another
// change holds open.)
var ErrUnknownDevice = errors.New("datasets: unknown device")

// deviceColumns are the columns of a device table, in order: the queried
// features, the measured ones (measuredColumns), and the source.
var deviceColumns = slices.Concat(queriedColumns, measuredColumns, []string{"source"})

// queriedColumns are the features OpenCL reports, as features.Platform
// holds them.
var queriedColumns = []string{
	"name", "vendor", "platform_name", "type", "compute_units", "clock_mhz",
	"max_work_group_size", "max_work_item_sizes", "local_mem_bytes",
	"global_mem_bytes", "constant_mem_bytes", "global_cache_bytes",
	"cache_line_bytes", "image_support",
}

// measuredColumns are the features collect measures with micro-benchmarks
// (features.Platform.GlobalBandwidthGBs and the three after it), named as
// the platform features are (features.PlatformNames). An empty cell is 0:
// not measured, nor known from a specification.
var measuredColumns = []string{"global_bw_gbs", "fp32_gflops", "local_bw_gbs", "launch_us"}

// legacyColumns are the columns of a device table written before the
// measured ones; ReadDevices still reads it, every measured value 0.
var legacyColumns = slices.Concat(queriedColumns, []string{"source"})

// DeviceTable is the features of devices augur has not queried itself,
// one row a device, for data imported from other tuners: a fleet model
// can only tell devices apart by these features. Sizes are in bytes,
// clocks in MHz, as features.Platform has them.
type DeviceTable struct {
	// Devices are the rows in file order; Sources[i] names the
	// specification Devices[i]'s values came from.
	Devices []features.Platform
	Sources []string
}

// Devices returns the table that ships with augur (datasets/devices.csv).
func Devices() *DeviceTable {
	t, err := ReadDevices(strings.NewReader(devicesCSV))
	if err != nil {
		// The embedded file is tested; it cannot fail here.
		panic(err)
	}
	return t
}

// ReadDevices reads a device table: CSV with a header row naming the
// columns name, vendor, platform_name, type, compute_units, clock_mhz,
// max_work_group_size, max_work_item_sizes (as "1024x1024x64"),
// local_mem_bytes, global_mem_bytes, constant_mem_bytes,
// global_cache_bytes, cache_line_bytes, image_support (true or false),
// global_bw_gbs, fp32_gflops, local_bw_gbs, launch_us (numbers >= 0, or
// empty for unknown) and source, in that order. A table without the four
// measured columns, as written before they existed, is read too. Errors
// name the line and column.
func ReadDevices(r io.Reader) (*DeviceTable, error) {
	cr := csv.NewReader(r)
	// The header sets the number of fields every row must have.
	cr.FieldsPerRecord = 0
	head, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("datasets: device table: %w", err)
	}
	measured, err := checkHeader(head)
	if err != nil {
		return nil, err
	}
	t := &DeviceTable{}
	seen := map[string]bool{}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("datasets: device table: %w", err)
		}
		line, _ := cr.FieldPos(0)
		p, err := parseDevice(rec, measured)
		if err != nil {
			return nil, fmt.Errorf("datasets: device table line %d: %w", line, err)
		}
		key := strings.ToLower(p.Name)
		if seen[key] {
			return nil, fmt.Errorf("datasets: device table line %d: device %q appears twice", line, p.Name)
		}
		seen[key] = true
		t.Devices = append(t.Devices, p)
		t.Sources = append(t.Sources, strings.TrimSpace(rec[len(rec)-1]))
	}
	if len(t.Devices) == 0 {
		return nil, fmt.Errorf("datasets: device table has no rows")
	}
	return t, nil
}

// checkHeader checks a device table's header: deviceColumns, or
// legacyColumns (measured is then false).
func checkHeader(head []string) (measured bool, err error) {
	got := make([]string, len(head))
	for i, h := range head {
		got[i] = strings.TrimSpace(h)
	}
	switch {
	case slices.Equal(got, deviceColumns):
		return true, nil
	case slices.Equal(got, legacyColumns):
		return false, nil
	}
	for i, c := range deviceColumns {
		if i < len(got) && got[i] != c {
			return false, fmt.Errorf("datasets: device table: column %d is %q, want %q", i+1, head[i], c)
		}
	}
	return false, fmt.Errorf("datasets: device table: %d columns, want the %d of %s", len(got), len(deviceColumns), strings.Join(deviceColumns, ","))
}

// parseDevice reads one row of a device table, with the measured columns
// when measured is set.
func parseDevice(rec []string, measured bool) (features.Platform, error) {
	f := func(i int) string { return strings.TrimSpace(rec[i]) }
	p := features.Platform{Name: f(0), Vendor: f(1), PlatformName: f(2), Type: f(3)}
	if p.Name == "" {
		return p, fmt.Errorf("name is empty")
	}
	switch p.Type {
	case "gpu", "cpu", "accelerator":
	default:
		return p, fmt.Errorf("type %q, want gpu, cpu or accelerator", p.Type)
	}
	if f(len(rec)-1) == "" {
		return p, fmt.Errorf("%s: source is empty; name the specification the values come from", p.Name)
	}
	type field struct {
		col int
		dst *int64
	}
	var cu, clock, wg, line int64
	ints := []field{{4, &cu}, {5, &clock}, {6, &wg}, {8, &p.LocalMemBytes}, {9, &p.GlobalMemBytes},
		{10, &p.ConstantMemBytes}, {11, &p.GlobalCacheBytes}, {12, &line}}
	for _, c := range ints {
		v, err := strconv.ParseInt(f(c.col), 10, 64)
		if err != nil || v <= 0 {
			return p, fmt.Errorf("%s: %s is %q, want a positive integer", p.Name, deviceColumns[c.col], f(c.col))
		}
		*c.dst = v
	}
	p.ComputeUnits, p.ClockMHz, p.MaxWorkGroupSize, p.CacheLineBytes = int(cu), int(clock), int(wg), int(line)
	dims := strings.Split(f(7), "x")
	if len(dims) != 3 {
		return p, fmt.Errorf("%s: max_work_item_sizes is %q, want three sizes such as 1024x1024x64", p.Name, f(7))
	}
	for i, d := range dims {
		v, err := strconv.Atoi(d)
		if err != nil || v <= 0 {
			return p, fmt.Errorf("%s: max_work_item_sizes is %q, want three positive sizes such as 1024x1024x64", p.Name, f(7))
		}
		p.MaxWorkItemSizes[i] = v
	}
	img, err := strconv.ParseBool(f(13))
	if err != nil {
		return p, fmt.Errorf("%s: image_support is %q, want true or false", p.Name, f(13))
	}
	p.ImageSupport = img
	if !measured {
		return p, nil
	}
	at := len(queriedColumns)
	for i, dst := range []*float64{&p.GlobalBandwidthGBs, &p.FP32GFLOPs, &p.LocalBandwidthGBs, &p.LaunchOverheadUs} {
		text := f(at + i)
		if text == "" {
			continue // unknown: 0, as for a device never measured
		}
		v, err := strconv.ParseFloat(text, 64)
		if err != nil || !(v >= 0) || math.IsInf(v, 0) {
			return p, fmt.Errorf("%s: %s is %q, want a number >= 0 or nothing", p.Name, measuredColumns[i], text)
		}
		*dst = v
	}
	return p, nil
}

// Names returns the devices' names in table order.
func (t *DeviceTable) Names() []string {
	out := make([]string, len(t.Devices))
	for i, p := range t.Devices {
		out[i] = p.Name
	}
	return out
}

// Lookup returns the device named name (case-insensitive), or the one
// whose slug it is; an unknown name gives an error wrapping
// ErrUnknownDevice that lists the table's names.
func (t *DeviceTable) Lookup(name string) (features.Platform, error) {
	for _, p := range t.Devices {
		if strings.EqualFold(p.Name, name) || p.Slug() == name {
			return p, nil
		}
	}
	return features.Platform{}, fmt.Errorf("%w %q; the table has %s", ErrUnknownDevice, name, strings.Join(t.Names(), ", "))
}
