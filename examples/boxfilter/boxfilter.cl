// A box filter: each output pixel is the mean of the (2 radius + 1)^2
// input pixels around it, the image's edge repeated beyond it. How a
// work-group loads its pixels is a tuning parameter, LOAD: 0 reads the
// buffer in (through the caches), 1 the same pixels as a 2D image (the
// texture path), 2 a tile of them into local memory first. Each work-item
// computes PPT pixels of a column, WG_Y rows apart. Every way adds the same
// pixels in the same order, so every configuration gives the reference's
// output to the bit.
__constant sampler_t edge = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;

__kernel void boxfilter(__global const float* in, __read_only image2d_t img, __global float* out,
                        __local float* tile, const int width, const int height, const int radius) {
    const int lx = get_local_id(0), ly = get_local_id(1);
    const int x = get_group_id(0) * WG_X + lx;
    const int top = get_group_id(1) * (WG_Y * PPT);
#if LOAD == 2
    // The work-group's band of WG_Y * PPT rows and WG_X columns, with
    // radius more on each side.
    const int tw = WG_X + 2 * radius, th = WG_Y * PPT + 2 * radius;
    const int left = get_group_id(0) * WG_X - radius;
    for (int j = ly; j < th; j += WG_Y) {
        const int row = clamp(top - radius + j, 0, height - 1) * width;
        for (int i = lx; i < tw; i += WG_X) {
            tile[j * tw + i] = in[row + clamp(left + i, 0, width - 1)];
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
#endif
    const float scale = 1.0f / (float)((2 * radius + 1) * (2 * radius + 1));
    for (int p = 0; p < PPT; p++) {
        const int y = top + ly + p * WG_Y;
        if (x >= width || y >= height) {
            continue;
        }
        float s = 0.0f;
        for (int dy = -radius; dy <= radius; dy++) {
#if LOAD == 0
            const int row = clamp(y + dy, 0, height - 1) * width;
#elif LOAD == 2
            const int row = (ly + p * WG_Y + radius + dy) * tw + lx + radius;
#endif
            for (int dx = -radius; dx <= radius; dx++) {
#if LOAD == 0
                s += in[row + clamp(x + dx, 0, width - 1)];
#elif LOAD == 1
                s += read_imagef(img, edge, (int2)(x + dx, y + dy)).x;
#else
                s += tile[row + dx];
#endif
            }
        }
        out[y * width + x] = s * scale;
    }
}
