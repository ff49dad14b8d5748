// out[i] += 2 in[i] for the first half of out, whose second half no
// configuration writes: Kernel Tuner runs such kernels from the output's
// fill (zeros). VAR 1 adds 3 in[i] and must fail verification; grid_size_x
// and kernel_tuner are macros Kernel Tuner defines.
#ifndef kernel_tuner
#error "built without Kernel Tuner's macros"
#endif
__kernel void add(__global const float* in, __global float* out, const int n) {
    const int i = get_global_id(0);
    if (get_num_groups(0) != grid_size_x) {
        out[i] = NAN;
        return;
    }
    if (i < n / 2) {
#if VAR == 0
        out[i] += 2.0f * in[i];
#else
        out[i] += 3.0f * in[i];
#endif
    }
}
