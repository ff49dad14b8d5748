// out[i] = in[i] * factor, VAR choosing how; VAR 2 is wrong on purpose
// (collect must record it as a verification error), and BROKEN 1 does not
// compile.
__kernel void scale(__global const float* in, __global float* out, const int n, const float factor) {
    const int i = get_global_id(0);
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
