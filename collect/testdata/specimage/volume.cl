// Sums a 3D image of floats and one of RGBA bytes read as integers
// (CL_UNSIGNED_INT8) along their depth, one work-item a column. MODE 0
// and 1 sum in two orders; 2 leaves the last slice out.
__constant sampler_t nearest = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;

__kernel void volume(__read_only image3d_t vol, __read_only image3d_t rgba, __global float* out,
                     const int width, const int height, const int depth) {
    const int x = get_global_id(0), y = get_global_id(1);
    if (x >= width || y >= height) {
        return;
    }
    float sum = 0.0f;
    uint bytes = 0;
    for (int i = 0; i < depth - (MODE == 2 ? 1 : 0); i++) {
        const int z = MODE == 1 ? depth - 1 - i : i;
        sum += read_imagef(vol, nearest, (int4)(x, y, z, 0)).x;
        const uint4 p = read_imageui(rgba, nearest, (int4)(x, y, z, 0));
        bytes += p.x + p.w;
    }
    out[y * width + x] = sum + (float)bytes;
}
