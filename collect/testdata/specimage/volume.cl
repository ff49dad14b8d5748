// Sums a 3D image of floats and one of RGBA bytes read as integers
// (CL_UNSIGNED_INT8) along their depth, one work-item a column, and writes
// the floats doubled to a 3D image. MODE 0 and 1 sum in two orders; 2
// leaves the last slice out of the sum; 3 leaves it unwritten.
#pragma OPENCL EXTENSION cl_khr_3d_image_writes : enable

__constant sampler_t nearest = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;

__kernel void volume(__read_only image3d_t vol, __read_only image3d_t rgba, __global float* out,
                     __write_only image3d_t twice, const int width, const int height, const int depth) {
    const int x = get_global_id(0), y = get_global_id(1);
    if (x >= width || y >= height) {
        return;
    }
    float sum = 0.0f;
    uint bytes = 0;
    for (int i = 0; i < depth; i++) {
        const int z = MODE == 1 ? depth - 1 - i : i;
        const float v = read_imagef(vol, nearest, (int4)(x, y, z, 0)).x;
        const uint4 p = read_imageui(rgba, nearest, (int4)(x, y, z, 0));
        if (MODE != 2 || z != depth - 1) {
            sum += v;
            bytes += p.x + p.w;
        }
        if (MODE != 3 || z != depth - 1) {
            write_imagef(twice, (int4)(x, y, z, 0), (float4)(2.0f * v, 0.0f, 0.0f, 1.0f));
        }
    }
    out[y * width + x] = sum + (float)bytes;
}
