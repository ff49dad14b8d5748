// Row sums: out[r] = the sum of row r of in (rows x cols, row-major), the
// reduction behind softmax and layer norms. A work-group of WG x RPW items
// reduces RPW rows: each item sums every (WG*VW)-th vector of VW floats of
// its row, UNROLL vectors an iteration, then the group adds the partial
// sums in local memory.
#if VW == 1
#define VLOAD(i, p) (p)[i]
#define VSUM(v) (v)
#define VTYPE float
#else
#define VLOAD(i, p) CONCAT(vload, VW)(i, p)
#define CONCAT(a, b) CONCAT2(a, b)
#define CONCAT2(a, b) a##b
#define VTYPE CONCAT(float, VW)
#if VW == 2
#define VSUM(v) ((v).s0 + (v).s1)
#else
#define VSUM(v) ((v).s0 + (v).s1 + (v).s2 + (v).s3)
#endif
#endif

__kernel void rowsum(__global const float* restrict in,
                     __global float* restrict out,
                     const int cols, const int rows) {
    __local float part[RPW][WG];
    const int lx = get_local_id(0), ly = get_local_id(1);
    const int row = get_group_id(1) * RPW + ly;
    float acc = 0.0f;
    if (row < rows) {
        __global const float* p = in + (size_t)row * cols;
        const int nvec = cols / VW;
        VTYPE sum = (VTYPE)(0.0f);
        int i = lx;
        for (; i + (UNROLL - 1) * WG < nvec; i += UNROLL * WG) {
#pragma unroll
            for (int u = 0; u < UNROLL; u++)
                sum += VLOAD(i + u * WG, p);
        }
        for (; i < nvec; i += WG)
            sum += VLOAD(i, p);
        acc = VSUM(sum);
        for (int j = nvec * VW + lx; j < cols; j += WG)
            acc += p[j];
    }
    part[ly][lx] = acc;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = WG / 2; s > 0; s >>= 1) {
        if (lx < s)
            part[ly][lx] += part[ly][lx + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lx == 0 && row < rows)
        out[row] = part[ly][0];
}
