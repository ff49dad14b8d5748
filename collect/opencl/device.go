package opencl

// #include "augur_cl.h"
import "C"

import (
	"fmt"
	"sort"
	"strings"

	"github.com/augur-tuning/augur/features"
	"github.com/jgillich/go-opencl/cl"
)

// Device is one OpenCL device with the description queried when it was
// listed.
type Device struct {
	dev  *cl.Device
	info features.Platform
}

// Devices lists every device of every platform. The order is stable from
// one call (and one process) to the next: platforms sorted by name, and
// devices within a platform in the driver's order, so that an index into
// the list names the same device each time.
func Devices() ([]Device, error) {
	platforms, err := cl.GetPlatforms()
	if err != nil {
		return nil, fmt.Errorf("opencl: list platforms: %w", err)
	}
	type named struct {
		p    *cl.Platform
		name string
	}
	ps := make([]named, len(platforms))
	for i, p := range platforms {
		ps[i] = named{p, p.Name()}
	}
	sort.SliceStable(ps, func(i, j int) bool { return ps[i].name < ps[j].name })

	var out []Device
	for _, p := range ps {
		devs, err := p.p.GetDevices(cl.DeviceTypeAll)
		if err != nil {
			// A platform without devices reports DEVICE_NOT_FOUND; it
			// simply contributes nothing.
			continue
		}
		for _, d := range devs {
			info, err := describe(p.name, d)
			if err != nil {
				return nil, err
			}
			out = append(out, Device{dev: d, info: info})
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("opencl: no OpenCL devices found on %d platforms", len(platforms))
	}
	return out, nil
}

// Platform returns the device's description, every field filled.
func (d Device) Platform() features.Platform { return d.info }

// String returns "platform: device".
func (d Device) String() string { return d.info.PlatformName + ": " + d.info.Name }

// describe queries every field of features.Platform. It uses error-
// returning queries rather than the binding's panicking getters, so that a
// driver that does not answer one yields an error, not a crash.
func describe(platform string, d *cl.Device) (features.Platform, error) {
	p := features.Platform{PlatformName: platform}
	var errs []string
	note := func(name string, err error) {
		if err != nil {
			errs = append(errs, name+": "+err.Error())
		}
	}
	str := func(name string, param C.cl_device_info) string {
		s, err := infoString(d, param)
		note(name, err)
		return strings.TrimSpace(s)
	}
	num := func(name string, get func(*cl.Device, C.cl_device_info) (uint64, error), param C.cl_device_info) uint64 {
		v, err := get(d, param)
		note(name, err)
		return v
	}
	p.Vendor = str("vendor", C.CL_DEVICE_VENDOR)
	p.Name = str("name", C.CL_DEVICE_NAME)
	p.DriverVersion = str("driver version", C.CL_DRIVER_VERSION)
	p.OpenCLVersion = str("version", C.CL_DEVICE_VERSION)
	var err error
	p.Type, err = deviceType(d)
	note("type", err)
	p.ComputeUnits = int(num("compute units", infoUint, C.CL_DEVICE_MAX_COMPUTE_UNITS))
	p.ClockMHz = int(num("clock", infoUint, C.CL_DEVICE_MAX_CLOCK_FREQUENCY))
	p.MaxWorkGroupSize = int(num("max work-group size", infoSize, C.CL_DEVICE_MAX_WORK_GROUP_SIZE))
	p.MaxWorkItemSizes, err = maxWorkItemSizes(d)
	note("max work-item sizes", err)
	p.LocalMemBytes = int64(num("local memory", infoUlong, C.CL_DEVICE_LOCAL_MEM_SIZE))
	p.GlobalMemBytes = int64(num("global memory", infoUlong, C.CL_DEVICE_GLOBAL_MEM_SIZE))
	p.ConstantMemBytes = int64(num("constant memory", infoUlong, C.CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE))
	p.GlobalCacheBytes = int64(num("global cache", infoUlong, C.CL_DEVICE_GLOBAL_MEM_CACHE_SIZE))
	p.CacheLineBytes = int(num("cache line", infoUint, C.CL_DEVICE_GLOBAL_MEM_CACHELINE_SIZE))
	p.ImageSupport, err = infoBool(d, C.CL_DEVICE_IMAGE_SUPPORT)
	note("image support", err)
	if len(errs) > 0 {
		return p, fmt.Errorf("opencl: query device %q: %s", p.Name, strings.Join(errs, "; "))
	}
	return p, nil
}
