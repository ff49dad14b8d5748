// One partial sum of in a work-group, written to out[group]: the values of
// out depend on GROUPS, their sum does not. VAR 1 adds 1 to the first
// partial sum, so its total is wrong.
__kernel void partial(__global const float* in, __global float* out, const int n) {
    __local float sh[WG];
    const int ti = get_local_id(0);
    float s = 0.0f;
    for (int i = get_global_id(0); i < n; i += WG * GROUPS)
        s += in[i];
    sh[ti] = s;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int h = WG / 2; h > 0; h /= 2) {
        if (ti < h)
            sh[ti] += sh[ti + h];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (ti == 0)
        out[get_group_id(0)] = sh[0] + (VAR == 1 && get_group_id(0) == 0 ? 1.0f : 0.0f);
}
