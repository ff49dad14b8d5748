// out[i] = in[i] * factor, VAR choosing how; VAR 2 is wrong on purpose
// (collect must record it as a verification error), and BROKEN 1 does not
// compile. wg and scratch are set for each configuration: a wrong wg, or a
// scratch buffer too small, leaves NaN.
__kernel void scale(__global const float* in, __global float* out, const int n, const float factor,
                    const int wg, __local float* scratch) {
    const int i = get_global_id(0);
    scratch[get_local_id(0)] = (float)wg;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (wg != WG || scratch[WG - 1 - get_local_id(0)] != (float)WG) {
        if (i < n) out[i] = NAN;
        return;
    }
#if BROKEN
    this does not compile;
#endif
    if (i < n) {
#if VAR == 0
        out[i] = in[i] * factor;
#elif VAR == 1
        out[i] = factor * in[i];
#else
        out[i] = in[i] * factor + 1.0f;
#endif
    }
}
