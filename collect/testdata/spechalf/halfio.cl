// Reads halves with vload_half and writes twice each value with
// vstore_half: core OpenCL, no cl_khr_fp16 needed. MODE 0 and 1 compute
// the same values two ways; 2 leaves the last value unwritten; 3 writes
// another value.
__kernel void halfio(__global const half* in, __global half* out, const int n) {
    const int i = get_global_id(0);
    if (i >= n) {
        return;
    }
#if MODE == 1
    const float v = vload_half(i, in) + vload_half(i, in);
#elif MODE == 3
    const float v = 2.0f * vload_half(i, in) + 1.0f;
#else
    const float v = 2.0f * vload_half(i, in);
#endif
#if MODE == 2
    if (i == n - 1) {
        return;
    }
#endif
    vstore_half(v, i, out);
}
