package opencl

// #cgo linux pkg-config: OpenCL
// #cgo darwin LDFLAGS: -framework OpenCL
// #include "augur_cl.h"
import "C"

import (
	"unsafe"

	"github.com/jgillich/go-opencl/cl"
)

// The binding keeps its OpenCL handles in unexported fields. cl.Device and
// cl.Kernel (at the version go.mod pins) hold the handle as their first
// field, so a pointer to either is a pointer to its handle. The tests check
// the queries made through these handles, so a binding whose layout changes
// fails them instead of reading garbage.

func deviceID(d *cl.Device) C.cl_device_id { return *(*C.cl_device_id)(unsafe.Pointer(d)) }

func kernelID(k *cl.Kernel) C.cl_kernel { return *(*C.cl_kernel)(unsafe.Pointer(k)) }

func infoString(d *cl.Device, param C.cl_device_info) (string, error) {
	var n C.size_t
	if rc := C.clGetDeviceInfo(deviceID(d), param, 0, nil, &n); rc != C.CL_SUCCESS {
		return "", cl.ErrOther(rc)
	}
	if n == 0 {
		return "", nil
	}
	buf := make([]byte, n)
	if rc := C.clGetDeviceInfo(deviceID(d), param, n, unsafe.Pointer(&buf[0]), nil); rc != C.CL_SUCCESS {
		return "", cl.ErrOther(rc)
	}
	// The answer is NUL-terminated.
	for i, b := range buf {
		if b == 0 {
			buf = buf[:i]
			break
		}
	}
	return string(buf), nil
}

func infoUint(d *cl.Device, param C.cl_device_info) (uint64, error) {
	var v C.cl_uint
	rc := C.clGetDeviceInfo(deviceID(d), param, C.size_t(unsafe.Sizeof(v)), unsafe.Pointer(&v), nil)
	if rc != C.CL_SUCCESS {
		return 0, cl.ErrOther(rc)
	}
	return uint64(v), nil
}

func infoUlong(d *cl.Device, param C.cl_device_info) (uint64, error) {
	var v C.cl_ulong
	rc := C.clGetDeviceInfo(deviceID(d), param, C.size_t(unsafe.Sizeof(v)), unsafe.Pointer(&v), nil)
	if rc != C.CL_SUCCESS {
		return 0, cl.ErrOther(rc)
	}
	return uint64(v), nil
}

func infoSize(d *cl.Device, param C.cl_device_info) (uint64, error) {
	var v C.size_t
	rc := C.clGetDeviceInfo(deviceID(d), param, C.size_t(unsafe.Sizeof(v)), unsafe.Pointer(&v), nil)
	if rc != C.CL_SUCCESS {
		return 0, cl.ErrOther(rc)
	}
	return uint64(v), nil
}

func infoBool(d *cl.Device, param C.cl_device_info) (bool, error) {
	var v C.cl_bool
	rc := C.clGetDeviceInfo(deviceID(d), param, C.size_t(unsafe.Sizeof(v)), unsafe.Pointer(&v), nil)
	if rc != C.CL_SUCCESS {
		return false, cl.ErrOther(rc)
	}
	return v == C.CL_TRUE, nil
}

// maxWorkItemSizes reads CL_DEVICE_MAX_WORK_ITEM_SIZES. Dimensions past
// the device's count (fewer than 3 is legal) are reported as 1.
func maxWorkItemSizes(d *cl.Device) ([3]int, error) {
	out := [3]int{1, 1, 1}
	dims, err := infoUint(d, C.CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS)
	if err != nil {
		return out, err
	}
	dims = min(dims, 16)
	var sizes [16]C.size_t
	rc := C.clGetDeviceInfo(deviceID(d), C.CL_DEVICE_MAX_WORK_ITEM_SIZES,
		C.size_t(uintptr(dims)*unsafe.Sizeof(sizes[0])), unsafe.Pointer(&sizes[0]), nil)
	if rc != C.CL_SUCCESS {
		return out, cl.ErrOther(rc)
	}
	for i := 0; i < int(min(dims, 3)); i++ {
		out[i] = int(sizes[i])
	}
	return out, nil
}

// kernelLocalMem returns CL_KERNEL_LOCAL_MEM_SIZE: the local memory, in
// bytes, the compiled kernel uses on the device, which go-opencl does not
// expose.
func kernelLocalMem(k *cl.Kernel, d *cl.Device) (int64, error) {
	var v C.cl_ulong
	rc := C.clGetKernelWorkGroupInfo(kernelID(k), deviceID(d), C.CL_KERNEL_LOCAL_MEM_SIZE,
		C.size_t(unsafe.Sizeof(v)), unsafe.Pointer(&v), nil)
	if rc != C.CL_SUCCESS {
		return 0, cl.ErrOther(rc)
	}
	return int64(v), nil
}

// deviceType reads CL_DEVICE_TYPE as "gpu", "cpu", "accelerator" or
// "other".
func deviceType(d *cl.Device) (string, error) {
	var v C.cl_device_type
	rc := C.clGetDeviceInfo(deviceID(d), C.CL_DEVICE_TYPE, C.size_t(unsafe.Sizeof(v)), unsafe.Pointer(&v), nil)
	if rc != C.CL_SUCCESS {
		return "", cl.ErrOther(rc)
	}
	switch {
	case v&C.CL_DEVICE_TYPE_GPU != 0:
		return "gpu", nil
	case v&C.CL_DEVICE_TYPE_CPU != 0:
		return "cpu", nil
	case v&C.CL_DEVICE_TYPE_ACCELERATOR != 0:
		return "accelerator", nil
	}
	return "other", nil
}

func eventID(e *cl.Event) C.cl_event { return *(*C.cl_event)(unsafe.Pointer(e)) }

// eventStatus reads CL_EVENT_COMMAND_EXECUTION_STATUS without waiting:
// CL_COMPLETE (0) when the command finished, a positive value while it is
// queued, submitted or running, and a negative error code when it failed.
func eventStatus(e *cl.Event) (int, error) {
	var v C.cl_int
	rc := C.clGetEventInfo(eventID(e), C.CL_EVENT_COMMAND_EXECUTION_STATUS, C.size_t(unsafe.Sizeof(v)), unsafe.Pointer(&v), nil)
	if rc != C.CL_SUCCESS {
		return 0, cl.ErrOther(rc)
	}
	return int(v), nil
}

func memID(m *cl.MemObject) C.cl_mem { return *(*C.cl_mem)(unsafe.Pointer(m)) }

// ctxID is the handle of a context; cl.Context holds it first, like
// cl.Device.
func ctxID(c *cl.Context) C.cl_context { return *(*C.cl_context)(unsafe.Pointer(c)) }

// createImageBuffer creates a 1D image buffer (image1d_buffer_t) of n
// pixels of format f over the start of buf, with flags (cl.MemReadOnly or
// cl.MemWriteOnly), which go-opencl cannot: its image description panics
// on a buffer. The MemObject it returns holds only the handle (no
// finalizer); the caller releases it before buf.
func createImageBuffer(ctx *cl.Context, buf *cl.MemObject, n int, f cl.ImageFormat, flags cl.MemFlag) (*cl.MemObject, error) {
	format := C.cl_image_format{image_channel_order: C.cl_channel_order(f.ChannelOrder), image_channel_data_type: C.cl_channel_type(f.ChannelDataType)}
	var desc C.cl_image_desc
	desc.image_type = C.CL_MEM_OBJECT_IMAGE1D_BUFFER
	desc.image_width = C.size_t(n)
	C.setDescBuffer(&desc, memID(buf))
	var rc C.cl_int
	mem := C.clCreateImage(ctxID(ctx), C.cl_mem_flags(flags), &format, &desc, nil, &rc)
	if rc != C.CL_SUCCESS {
		return nil, cl.ErrOther(rc)
	}
	m := new(cl.MemObject)
	*(*C.cl_mem)(unsafe.Pointer(m)) = mem
	return m, nil
}

// maxAllocBytes reads CL_DEVICE_MAX_MEM_ALLOC_SIZE, the largest buffer the
// device allocates, in bytes.
func maxAllocBytes(d *cl.Device) (int64, error) {
	v, err := infoUlong(d, C.CL_DEVICE_MAX_MEM_ALLOC_SIZE)
	return int64(v), err
}
