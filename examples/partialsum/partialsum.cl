// The first pass of a sum of n floats, as a reduction written for an
// auto-tuner: num_blocks work-groups of block_size_x items each add every
// (block_size_x*num_blocks*VW)-th vector of VW floats, UNROLL vectors an
// iteration, then each group adds its items' sums in local memory and
// writes one partial sum, out[group]. Which partial sums a configuration
// writes depends on it; their total does not (the spec's Verify "sum").
// The caller adds the num_blocks partial sums (a second pass, or the host).
#if VW == 1
#define VTYPE float
#define VLOAD(i, p) (p)[i]
#define VSUM(v) (v)
#elif VW == 2
#define VTYPE float2
#define VLOAD(i, p) vload2(i, p)
#define VSUM(v) ((v).s0 + (v).s1)
#else
#define VTYPE float4
#define VLOAD(i, p) vload4(i, p)
#define VSUM(v) ((v).s0 + (v).s1 + (v).s2 + (v).s3)
#endif

__kernel void partialsum(__global float* restrict out,
                         __global const float* restrict in,
                         const int n) {
    __local float part[block_size_x];
    const int lx = get_local_id(0);
    const int stride = block_size_x * num_blocks;
    const int nvec = n / VW;
    VTYPE sum = (VTYPE)(0.0f);
    int i = get_group_id(0) * block_size_x + lx;
    for (; i + (UNROLL - 1) * stride < nvec; i += UNROLL * stride) {
#pragma unroll
        for (int u = 0; u < UNROLL; u++)
            sum += VLOAD(i + u * stride, in);
    }
    for (; i < nvec; i += stride)
        sum += VLOAD(i, in);
    float acc = VSUM(sum);
    // The tail of n that fills no vector.
    for (int j = nvec * VW + get_global_id(0); j < n; j += stride)
        acc += in[j];
    part[lx] = acc;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = block_size_x / 2; s > 0; s >>= 1) {
        if (lx < s)
            part[lx] += part[lx + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lx == 0)
        out[get_group_id(0)] = part[0];
}
