// out[i] = 2 in[i], by a configuration that may fault: FAULT 1 writes far
// beyond out, which kills the process (a segmentation fault), and FAULT 2
// never finishes (its loop steps by 0, the compiler cannot tell).
__kernel void fault(__global const float* in, __global float* out, const int n) {
    const int i = get_global_id(0);
    if (i >= n) {
        return;
    }
#if FAULT == 1
    out[(size_t)i + ((size_t)1 << 40)] = 1.0f;
#endif
    for (int k = 0; k < 1; k += (FAULT == 2 && n > 0) ? 0 : 1) {
        out[i] = 2.0f * in[i];
    }
}
