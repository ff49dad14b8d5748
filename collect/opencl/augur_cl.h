// Helpers for the OpenCL queries github.com/jgillich/go-opencl lacks or
// answers only by panicking.
#ifndef AUGUR_CL_H
#define AUGUR_CL_H
// The Makefile exports CGO_CFLAGS with the target for every cgo package:
// go-opencl's headers set none, the compiler notes that some 40 times on a
// fresh build, and cgo flags of this package cannot reach another module's.
// A plain go build gets 1.2 here, the API this package uses.
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>

// setDescBuffer sets the buffer of an image description, a member of an
// anonymous union in OpenCL 2.0 headers (buffer, mem_object) that cgo
// cannot name.
static inline void setDescBuffer(cl_image_desc *d, cl_mem b) { d->buffer = b; }
#endif
