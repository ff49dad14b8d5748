// Helpers for the OpenCL queries github.com/jgillich/go-opencl lacks or
// answers only by panicking.
#ifndef AUGUR_CL_H
#define AUGUR_CL_H
#define CL_TARGET_OPENCL_VERSION 120
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>
#endif
