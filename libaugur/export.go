package main

/*
#cgo CFLAGS: -I${SRCDIR}/../include
#include <stdlib.h>
#include "augur_types.h"
void augur_set_error_(const char *msg, size_t n);
*/
import "C"

import (
	"unsafe"

	"github.com/augur-tuning/augur/features"
	"github.com/augur-tuning/augur/runtime"
)

// lib is the one table of handles the C entry points share: a C library
// has no caller to pass it in, so this is the package's only state.
var lib = newLibrary()

// versionC is augur_version's string, allocated once and never freed.
var versionC = C.CString(features.Version)

// report sets the calling thread's last error to err and returns its code.
func report(err error) C.int {
	if err == nil {
		return C.int(statusOK)
	}
	msg := err.Error()
	if msg == "" {
		msg = "libaugur: error"
	}
	C.augur_set_error_((*C.char)(unsafe.Pointer(unsafe.StringData(msg))), C.size_t(len(msg)))
	return C.int(codeOf(err))
}

// guard turns a panic in an entry point into AUGUR_ERR_INTERNAL: a bug in
// libaugur must not take the caller's process down.
func guard(name string, rc *C.int) {
	if r := recover(); r != nil {
		*rc = report(failf(statusInternal, "%s: internal error: %v", name, r))
	}
}

// goString returns the C string s, "" for NULL.
func goString(s *C.char) string {
	if s == nil {
		return ""
	}
	return C.GoString(s)
}

// cBytes returns the C array at p of n bytes as a Go slice over the same
// memory.
func cBytes(p *C.char, n int) []byte { return unsafe.Slice((*byte)(unsafe.Pointer(p)), n) }

// putString writes s and a NUL into the C array at p of n bytes.
func putString(p *C.char, n int, s, what string) error {
	if len(s)+1 > n {
		return failf(statusTruncated, "%s is %d bytes, the struct holds %d", what, len(s), n-1)
	}
	b := cBytes(p, n)
	copy(b, s)
	b[len(s)] = 0
	return nil
}

// cShape returns shape[0..n) as a Go slice over the caller's memory.
func cShape(shape *C.int64_t, n C.int32_t, what string) ([]int64, error) {
	switch {
	case shape == nil:
		return nil, failf(statusArg, "%s is NULL", what)
	case n < 0 || n > maxParams:
		return nil, failf(statusShape, "%s has %d values", what, int(n))
	}
	return unsafe.Slice((*int64)(unsafe.Pointer(shape)), int(n)), nil
}

// putPick writes p into the caller's structs.
func putPick(p runtime.Pick, out *C.augur_config, plan *C.augur_plan) error {
	// What can fail is checked first, so that a failure leaves the
	// caller's structs as they were.
	if plan != nil && len(p.Plan.BuildOptions)+1 > len(plan.build_options) {
		return failf(statusTruncated, "build options is %d bytes, the struct holds %d", len(p.Plan.BuildOptions), len(plan.build_options)-1)
	}
	out.n = C.int32_t(len(p.Config))
	for i, v := range p.Config {
		out.values[i] = C.int64_t(v)
	}
	out.log_speedup = C.double(p.LogSpeedup)
	out.outside_octaves = C.double(p.OutsideOctaves)
	out.clamped = 0
	if p.Clamped {
		out.clamped = 1
	}
	// The source is a label: one longer than the struct holds (a long
	// device slug) is cut, never an error that loses the pick.
	if err := putString(&out.source[0], len(out.source), cut(p.Source, len(out.source)-1), "source"); err != nil {
		return err
	}
	if plan == nil {
		return nil
	}
	plan.dims = C.int32_t(p.Plan.Dims)
	for i := range 3 {
		plan.global[i] = C.int64_t(p.Plan.Global[i])
		plan.local[i] = C.int64_t(p.Plan.Local[i])
	}
	plan.local_mem_bytes = C.int64_t(p.Plan.LocalMemBytes)
	return putString(&plan.build_options[0], len(plan.build_options), p.Plan.BuildOptions, "build options")
}

// cut returns s, or its first bytes and "..." in at most n bytes.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-3] + "..."
}

//export augur_version
func augur_version() *C.char { return versionC }

//export augur_abi
func augur_abi() C.int { return C.AUGUR_ABI }

//export augur_open
func augur_open(opt *C.augur_open_options, out *C.augur_handle) (rc C.int) {
	defer guard("augur_open", &rc)
	if opt == nil || out == nil {
		return report(failf(statusArg, "augur_open: opt or out is NULL"))
	}
	o := openOptions{
		Path:         goString(opt.path),
		Device:       goString(opt.device),
		PlatformJSON: goString(opt.platform_json),
		WisdomPath:   goString(opt.wisdom_path),

		TrustedKeysPEM: goString(opt.trusted_keys_pem),
		SignaturePath:  goString(opt.signature_path),
	}
	switch {
	case opt.bundle != nil && opt.path != nil:
		return report(failf(statusArg, "augur_open: both path and bundle are set; set one"))
	case opt.bundle != nil:
		if opt.bundle_len == 0 {
			return report(failf(statusArg, "augur_open: bundle_len is 0"))
		}
		o.Bundle = C.GoBytes(opt.bundle, C.int(opt.bundle_len))
	case opt.path == nil:
		return report(failf(statusArg, "augur_open: neither path nor bundle is set"))
	}
	h, err := lib.open(o)
	if err != nil {
		return report(err)
	}
	*out = C.augur_handle(h)
	return C.int(statusOK)
}

//export augur_open_file
func augur_open_file(path *C.char, device *C.char, out *C.augur_handle) (rc C.int) {
	defer guard("augur_open_file", &rc)
	if path == nil {
		return report(failf(statusArg, "augur_open_file: path is NULL"))
	}
	opt := C.augur_open_options{path: path, device: device}
	return augur_open(&opt, out)
}

//export augur_open_bytes
func augur_open_bytes(buf unsafe.Pointer, n C.size_t, device *C.char, out *C.augur_handle) (rc C.int) {
	defer guard("augur_open_bytes", &rc)
	if buf == nil {
		return report(failf(statusArg, "augur_open_bytes: buf is NULL"))
	}
	opt := C.augur_open_options{bundle: buf, bundle_len: n, device: device}
	return augur_open(&opt, out)
}

//export augur_open_platform_json
func augur_open_platform_json(path *C.char, platformJSON *C.char, out *C.augur_handle) (rc C.int) {
	defer guard("augur_open_platform_json", &rc)
	if path == nil || platformJSON == nil {
		return report(failf(statusArg, "augur_open_platform_json: path or platform_json is NULL"))
	}
	opt := C.augur_open_options{path: path, platform_json: platformJSON}
	return augur_open(&opt, out)
}

//export augur_close
func augur_close(h C.augur_handle) (rc C.int) {
	defer guard("augur_close", &rc)
	return report(lib.close(int64(h)))
}

func names(h C.augur_handle, buf *C.char, size C.size_t, n *C.int32_t, which func(*handle) []string) C.int {
	c, err := lib.get(int64(h))
	if err != nil {
		return report(err)
	}
	list := which(c)
	if n != nil {
		*n = C.int32_t(len(list))
	}
	if buf == nil {
		if n == nil {
			return report(failf(statusArg, "buf and n are NULL"))
		}
		return report(failf(statusTruncated, "buf is NULL"))
	}
	return report(joinNames(list, cBytes(buf, int(size))))
}

//export augur_shape_names
func augur_shape_names(h C.augur_handle, buf *C.char, size C.size_t, n *C.int32_t) (rc C.int) {
	defer guard("augur_shape_names", &rc)
	return names(h, buf, size, n, func(c *handle) []string { return c.shapeNames })
}

//export augur_param_names
func augur_param_names(h C.augur_handle, buf *C.char, size C.size_t, n *C.int32_t) (rc C.int) {
	defer guard("augur_param_names", &rc)
	return names(h, buf, size, n, func(c *handle) []string { return c.paramNames })
}

//export augur_param_labels
func augur_param_labels(h C.augur_handle, param C.int32_t, buf *C.char, size C.size_t, n *C.int32_t, kind *C.int32_t) (rc C.int) {
	defer guard("augur_param_labels", &rc)
	c, err := lib.get(int64(h))
	if err != nil {
		return report(err)
	}
	if buf == nil {
		return report(failf(statusArg, "param_labels: buf is NULL"))
	}
	count, k, err := c.paramLabels(int(param), cBytes(buf, int(size)))
	if n != nil {
		*n = C.int32_t(count)
	}
	if kind != nil {
		*kind = C.int32_t(k)
	}
	return report(err)
}

//export augur_plan_value_names
func augur_plan_value_names(h C.augur_handle, buf *C.char, size C.size_t, n *C.int32_t) (rc C.int) {
	defer guard("augur_plan_value_names", &rc)
	return names(h, buf, size, n, func(c *handle) []string { return c.valueNames })
}

//export augur_plan_value
func augur_plan_value(h C.augur_handle, shape *C.int64_t, n C.int32_t, config *C.int64_t, nconf C.int32_t, name *C.char, value *C.double) (rc C.int) {
	defer guard("augur_plan_value", &rc)
	c, err := lib.get(int64(h))
	if err != nil {
		return report(err)
	}
	if config == nil || name == nil || value == nil {
		return report(failf(statusArg, "augur_plan_value: config, name or value is NULL"))
	}
	s, err := cShape(shape, n, "shape")
	if err != nil {
		return report(err)
	}
	if nconf < 0 || nconf > maxParams {
		return report(failf(statusConfig, "augur_plan_value: config has %d values", int(nconf)))
	}
	cfg := unsafe.Slice((*int64)(unsafe.Pointer(config)), int(nconf))
	v, err := c.planValue(s, cfg, C.GoString(name))
	if err != nil {
		return report(err)
	}
	*value = C.double(v)
	return C.int(statusOK)
}

//export augur_choose
func augur_choose(h C.augur_handle, shape *C.int64_t, n C.int32_t, out *C.augur_config, plan *C.augur_plan) (rc C.int) {
	defer guard("augur_choose", &rc)
	c, err := lib.get(int64(h))
	if err != nil {
		return report(err)
	}
	if out == nil {
		return report(failf(statusArg, "augur_choose: out is NULL"))
	}
	s, err := cShape(shape, n, "shape")
	if err != nil {
		return report(err)
	}
	p, err := c.choose(s)
	if err != nil {
		return report(err)
	}
	return report(putPick(p, out, plan))
}

//export augur_candidates
func augur_candidates(h C.augur_handle, shape *C.int64_t, n C.int32_t, k C.int32_t, out *C.augur_config, plans *C.augur_plan, count *C.int32_t) (rc C.int) {
	defer guard("augur_candidates", &rc)
	c, err := lib.get(int64(h))
	if err != nil {
		return report(err)
	}
	if out == nil || count == nil {
		return report(failf(statusArg, "augur_candidates: out or count is NULL"))
	}
	*count = 0
	s, err := cShape(shape, n, "shape")
	if err != nil {
		return report(err)
	}
	ps, err := c.candidates(s, int(k))
	if err != nil {
		return report(err)
	}
	outs := unsafe.Slice(out, int(k))
	var planSlice []C.augur_plan
	if plans != nil {
		planSlice = unsafe.Slice(plans, int(k))
	}
	for i, p := range ps[:min(len(ps), int(k))] {
		var pl *C.augur_plan
		if planSlice != nil {
			pl = &planSlice[i]
		}
		if err := putPick(p, &outs[i], pl); err != nil {
			return report(err)
		}
		*count = C.int32_t(i + 1)
	}
	return C.int(statusOK)
}

//export augur_record
func augur_record(h C.augur_handle, shape *C.int64_t, n C.int32_t, config *C.int64_t, nconf C.int32_t, timeNs C.double) (rc C.int) {
	defer guard("augur_record", &rc)
	c, err := lib.get(int64(h))
	if err != nil {
		return report(err)
	}
	s, err := cShape(shape, n, "shape")
	if err != nil {
		return report(err)
	}
	if config == nil {
		return report(failf(statusArg, "augur_record: config is NULL"))
	}
	if nconf < 0 || nconf > maxParams {
		return report(failf(statusConfig, "augur_record: config has %d values", int(nconf)))
	}
	cfg := unsafe.Slice((*int64)(unsafe.Pointer(config)), int(nconf))
	return report(c.record(s, cfg, float64(timeNs)))
}

//export augur_refresh
func augur_refresh(h C.augur_handle) (rc C.int) {
	defer guard("augur_refresh", &rc)
	c, err := lib.get(int64(h))
	if err != nil {
		return report(err)
	}
	return report(c.refresh())
}
